"""Mine the still path's proposals off every labelled card on the pinochle photos' training half:
the French recogniser's real negatives (``referee train``'s ``real_negatives``).

    nice .venv/bin/python benchmarks/pinochle_negatives.py            # writes benchmarks/data/pinochle_negative_quads.csv
    nice .venv/bin/python benchmarks/pinochle_negatives.py --montage build/lab/neg.png   # and a montage of the sure ones

Runs ``referee detect``'s still path (``detect_image``, read as binocolo's cards, as
``benchmarks/vision_photos.py`` reads the set) on each photo of the training half of
``french_pinochle_voc_train`` (:func:`referee.recognition.real_crops.training_names`: the
half the committed French model already trains on; the other half stays the check) and records
every quad the finder hands to the recogniser, in every look. A quad is a negative when at
most :data:`MAX_ON_CARD` of its area lies on the labelled boxes (each box is axis-aligned
around its card, so it covers the card and a little table): a diploma, a book, an envelope, a
patch of cloth or wood, as the finder cuts them. The finder proposes few such quads (about
one a photo), so each photo also gives :data:`WINDOWS` card-sized windows of its table, placed
at random (seeded by the photo's name) where they too lie off every card: the photo's own cloth,
wood, papers and hands as the camera saw them. Quads on a labelled card (a group of pips,
half a card) are not negatives: trained as 'back' such parts taught the model that whole cards
with few big shapes are no card (models/HISTORY.md, retired ``--part-negatives``).

The quads are written in the photo's own pixels, so training needs neither the finder nor this
script (a later finder change does not change the data a recipe replays). The pinochle labels
were checked for cards they leave out: the ``--montage`` of the negatives the committed model
reads surely as a card is for a person to look at before committing the file.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.paths import REPO_ROOT, exit_without_shared, shared_dir
from referee.recognition.photos import photo_cards
from referee.recognition.real_crops import TRAINABLE, training_names

OUT = REPO_ROOT / "benchmarks" / "data" / "pinochle_negative_quads.csv"
#: a quad with more of its area on the labelled boxes is part of a card, not a negative
MAX_ON_CARD = 0.1
#: card-sized windows of the table drawn per photo (``kind`` ``window``)
WINDOWS = 8
#: two quads whose corners are all within this share of their long side are one proposal
SAME_QUAD = 0.04


def on_cards(quad: npt.NDArray[np.float32], boxes: list[tuple[int, int, int, int]], shape: tuple[int, ...]) -> float:
    """The share of ``quad``'s area that lies on the union of ``boxes``."""
    h, w = shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in boxes:
        mask[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = 1
    poly = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(poly, np.round(quad).astype(np.int32), 1)
    area = int(poly.sum())
    return float((poly & mask).sum()) / area if area else 1.0


def _same(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> bool:
    side = float(max(np.linalg.norm(a[0] - a[2]), 1.0))
    return bool(np.abs(a - b).max() <= SAME_QUAD * side)


def mine(photo: Path, boxes: list[tuple[int, int, int, int]], classifier: Any) -> list[tuple[npt.NDArray[np.float32], float, str, float]]:
    """(quad, share on cards, read, confidence) of each distinct proposal of ``photo`` off its cards."""
    from referee.vision.detect import detect_image
    from referee.vision.pipeline import FramePipeline

    image = np.asarray(cv2.imread(str(photo), cv2.IMREAD_COLOR), np.uint8)
    pipeline = FramePipeline.create(classifier)
    pipeline.copies = 2  # binocolo's deck, as vision_photos reads the set
    seen: list[npt.NDArray[np.float32]] = []
    cut = pipeline.finder.cut

    def recording(img: Any, dets: Any) -> Any:
        # detect_image reads photos up to 1280 px wide as they are (these are 504x378)
        seen.extend(np.asarray(q, np.float32) for q in dets.quad)
        return cut(img, dets)

    pipeline.finder.cut = recording  # type: ignore[method-assign]
    detect_image(pipeline, image)
    distinct: list[npt.NDArray[np.float32]] = []
    for q in seen:
        if not any(_same(q, d) for d in distinct):
            distinct.append(q)
    out = []
    kept = [(q, on_cards(q, boxes, image.shape)) for q in distinct]
    kept = [(q, share) for q, share in kept if share <= MAX_ON_CARD]
    if kept:
        from referee.vision.finder.quad import rectify

        reads = classifier.classify([rectify(image, q, tuple(classifier.input_size)) for q, _ in kept])
        out = [(q, share, p.card, float(p.confidence)) for (q, share), p in zip(kept, reads, strict=True)]
    return out


def windows(photo: Path, boxes: list[tuple[int, int, int, int]], shape: tuple[int, ...],
            count: int = WINDOWS, tries: int = 300) -> list[tuple[npt.NDArray[np.float32], float]]:
    """Up to ``count`` card-shaped quads inside the photo and off its cards: long side 0.6-1.1
    of the photo's median labelled box's, aspect 1.3-1.6, any angle; seeded by the name."""
    import zlib

    from referee.vision.finder.quad import portrait_order

    h, w = shape[:2]
    rng = np.random.default_rng(zlib.crc32(photo.name.encode()))
    long_side = float(np.median([max(x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes]))
    out: list[tuple[npt.NDArray[np.float32], float]] = []
    for _ in range(tries):
        if len(out) == count:
            break
        length = long_side * rng.uniform(0.6, 1.1)
        width = length / rng.uniform(1.3, 1.6)
        centre = rng.uniform((0, 0), (w, h))
        box = cv2.boxPoints((tuple(centre), (width, length), float(rng.uniform(0, 180))))
        quad = portrait_order(np.asarray(box, np.float32))
        if quad.min() < 0 or quad[:, 0].max() >= w or quad[:, 1].max() >= h:
            continue
        share = on_cards(quad, boxes, shape)
        if share <= MAX_ON_CARD:
            out.append((quad, share))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--montage", type=Path, help="also draw the negatives the committed model reads at >= 0.5 as a card")
    ap.add_argument("--limit", type=int, default=0, help="only the first N training photos (a quick look)")
    args = ap.parse_args()
    exit_without_shared("benchmarks/pinochle_negatives.py", "photos")
    from referee.recognition import CardClassifier
    from referee.recognition.game_faces import GameFaces

    cards = [c for c in photo_cards("french", shared_dir()) if c.source == TRAINABLE["french"]]
    train = training_names([c.image.name for c in cards])
    by_photo: dict[Path, list[tuple[int, int, int, int]]] = {}
    for c in cards:
        if c.image.name in train:
            by_photo.setdefault(c.image, []).append(c.box)
    photos = sorted(by_photo)[: args.limit or None]
    classifier = CardClassifier.load("french", threads=1, game=GameFaces.of("binocolo"))
    rows: list[list[Any]] = []
    sure: list[tuple[Path, npt.NDArray[np.float32], str, float]] = []
    from referee.vision.finder.quad import rectify

    for k, photo in enumerate(photos):
        found = [("proposal", *m) for m in mine(photo, by_photo[photo], classifier)]
        image = np.asarray(cv2.imread(str(photo), cv2.IMREAD_COLOR), np.uint8)
        table = windows(photo, by_photo[photo], image.shape)
        reads = classifier.classify([rectify(image, q, tuple(classifier.input_size)) for q, _ in table]) if table else []
        found += [("window", q, share, p.card, float(p.confidence)) for (q, share), p in zip(table, reads, strict=True)]
        for kind, quad, share, card, conf in found:
            rows.append([photo.name, kind, *[f"{v:.1f}" for v in quad.reshape(-1)], f"{share:.3f}", card, f"{conf:.3f}"])
            if card != "back" and conf >= 0.5:
                sure.append((photo, quad, card, conf))
        if (k + 1) % 20 == 0:
            print(f"{k + 1}/{len(photos)} photos, {len(rows)} negatives", file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as fh:
        fh.write(f"# Still-path proposals off every labelled card (<= {MAX_ON_CARD:.0%} of the quad on the boxes) on the\n"
                 f"# training half of french_pinochle_voc_train, made by benchmarks/pinochle_negatives.py; corners in\n"
                 "# the photo's pixels, portrait order; kind: proposal (the finder's) or window (of the table); read/confidence: the committed french.onnx read as binocolo.\n")
        w = csv.writer(fh)
        w.writerow(["image", "kind", "x0", "y0", "x1", "y1", "x2", "y2", "x3", "y3", "on_cards", "read", "confidence"])
        w.writerows(rows)
    for kind in ("proposal", "window"):
        mine_ = [r for r in rows if r[1] == kind]
        n_card = sum(1 for r in mine_ if r[-2] != "back")
        n_sure = sum(1 for r in mine_ if r[-2] != "back" and float(r[-1]) >= 0.5)
        print(f"{kind}s: {len(mine_)}, {n_card} read as a card, {n_sure} at >= 0.5")
    print(f"{len(photos)} photos: {len(rows)} negatives -> {args.out}")
    if args.montage is not None:
        _montage(args.montage, sure)


def _montage(path: Path, sure: list[tuple[Path, npt.NDArray[np.float32], str, float]]) -> None:
    from referee.vision.finder.quad import rectify

    tiles = []
    for photo, quad, card, conf in sure:
        img = np.asarray(cv2.imread(str(photo), cv2.IMREAD_COLOR), np.uint8)
        tile = np.ascontiguousarray(rectify(img, quad, (96, 144)))
        tile = cv2.copyMakeBorder(tile, 0, 28, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.putText(tile, f"{card} {conf:.2f}", (2, 156), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 1)
        cv2.putText(tile, photo.stem[-8:], (2, 168), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 1)
        tiles.append(tile)
    if not tiles:
        return
    cols = 10
    while len(tiles) % cols:
        tiles.append(np.full_like(tiles[0], 255))
    rows = [np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.vstack(rows))
    print(f"montage of {len(sure)} -> {path}")


if __name__ == "__main__":
    main()
