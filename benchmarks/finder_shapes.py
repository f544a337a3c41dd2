"""Seconds per image through ``referee detect``'s code (finder + classifier) on random-noise
images of odd shapes: a tall thin strip must cost no more than a frame; then one self-made card
per photo at print aspects from 1.35 to 2.3 (a tall narrow Trevisane-family scan is ~2.2) on a
green and on a light table: each must be exactly one detection.

    nice .venv/bin/python benchmarks/finder_shapes.py
    nice .venv/bin/python benchmarks/finder_shapes.py --deck french --repeat 3

Prints per shape: the finder's work image (height x width), the median seconds per image over
``--repeat`` runs, and the cards found (noise holds none); per aspect and table, the detections
the classifier kept (1 is right).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

SHAPES = ((720, 1280), (500, 50), (1000, 50), (2000, 50), (50, 1000), (113, 50))
ASPECTS = (1.35, 1.7, 2.0, 2.2, 2.3)
TABLES = {"green": (60, 120, 40), "light": (228, 230, 232)}


def main(argv: list[str] | None = None) -> int:
    from referee.recognition import CardClassifier
    from referee.vision.detect import detect_image
    from referee.vision.pipeline import FramePipeline

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="italian")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    pipeline = FramePipeline.create(CardClassifier.load(args.deck, threads=1))
    rng = np.random.default_rng(0)
    print(f"{'image (h x w)':>14} {'work (h x w)':>13} {'s/image':>8} {'cards':>6}")
    for shape in SHAPES:
        image = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
        times, cards = [], 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            cards = len(detect_image(pipeline, image)["cards"])
            times.append(time.perf_counter() - start)
        work = pipeline.finder.last_work_shape
        print(f"{shape[0]:>6} x {shape[1]:<5} {work[0]:>5} x {work[1]:<5} {statistics.median(times):8.2f} {cards:6d}", flush=True)
    print(f"\n{'aspect':>6} {'table':>6} {'card px':>8} {'detections':>10}")
    for aspect in ASPECTS:
        for table, colour in TABLES.items():
            for height in (700, 300):
                image = _one_card_photo(aspect, colour, height)
                print(f"{aspect:6.2f} {table:>6} {height:8d} {len(detect_image(pipeline, image)['cards']):10d}", flush=True)
    return 0


def _one_card_photo(aspect: float, table: tuple[int, int, int], height: int) -> np.ndarray:
    """A 960x1280 portrait photo of one card ``height`` px tall: the bundled Trevisane 4 of coppe
    scan stretched to ``aspect``, turned 5 degrees, on a plain ``table``."""
    import cv2

    from referee.paths import BUNDLED_ASSETS

    path = BUNDLED_ASSETS / "faces" / "invido_regional_lowres" / "trevisane" / "coppe_4.png"
    face = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if face is None:
        raise SystemExit(f"cannot read the bundled card scan {path}")
    w = round(height / aspect)
    face = cv2.resize(face, (w, height), interpolation=cv2.INTER_CUBIC)
    rng = np.random.default_rng(4)
    image = np.empty((1280, 960, 3), np.uint8)
    image[:] = table
    image = np.asarray(cv2.add(image, rng.integers(0, 6, image.shape, dtype=np.uint8)), np.uint8)
    rot = cv2.getRotationMatrix2D((w / 2, height / 2), 5, 1.0)
    rot[:, 2] += np.array([450 - w / 2, 600 - height / 2])
    card = cv2.warpAffine(face, rot, (960, 1280), flags=cv2.INTER_LINEAR)
    inside = cv2.warpAffine(np.full((height, w), 255, np.uint8), rot, (960, 1280)) > 127
    image[inside] = card[inside]
    return image


if __name__ == "__main__":
    raise SystemExit(main())
