"""Seconds per image through ``referee detect``'s code (finder + classifier) on random-noise
images of odd shapes: a tall thin strip must cost no more than a frame.

    nice .venv/bin/python benchmarks/finder_shapes.py
    nice .venv/bin/python benchmarks/finder_shapes.py --deck french --repeat 3

Prints per shape: the finder's work image (height x width), the median seconds per image over
``--repeat`` runs, and the cards found (noise holds none).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

SHAPES = ((720, 1280), (500, 50), (1000, 50), (2000, 50), (50, 1000), (113, 50))


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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
