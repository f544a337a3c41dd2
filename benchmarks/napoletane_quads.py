"""Propose the card quad of every real Napoletane deck photo, for a person to check by eye.

    nice .venv/bin/python benchmarks/napoletane_quads.py --out build/napo    # proposals, draft, montages
    nice .venv/bin/python benchmarks/napoletane_quads.py --montage-only --out build/napo  # the committed quads

One card per photo, from above. Four proposals per photo, because no one method follows every
deck's card on its surface (a grey worn card on a grey surface, a white card on white lace, a
white card on light wood):

* ``grabcut``: GrabCut on the whole photo at 400 px, seeded "table" on a 4% border and "card"
  on the middle; the largest segment's convex hull, its minimum-area rectangle;
* ``finder``: ``referee detect``'s finder and classifier (the committed Italian model), the
  largest detection;
* ``otsu``: the brightest large region (Otsu threshold, :func:`referee.recognition.rectify.find_card_quad`);
* ``smooth``: the largest bright region with little texture (local grey-level spread under 22 in
  a 15 px window at 480 px), near the middle: a card's plain stock against lace or cloth.

``<out>/proposals.csv`` lists all four; ``<out>/draft_quads.csv`` takes, for each photo, the
proposal that overlaps the others most (grabcut, finder, otsu; the mean IoU in the note); and
``<out>/<deck>_draft.png`` shows the draft's rectified crops, 40 a deck, labelled by card and
method. A person then looks at every deck's crops and, where the draft's crop is not the whole
card (corners off by more than ~10% of the card, the card's picture or pips cut, or much table
in the crop), picks another proposal by its method name, or excludes the photo with a note.
The result is committed as ``benchmarks/data/napoletane_real_quads.csv`` (its header says what
was checked); ``--montage-only`` draws those committed quads again for a second look.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition.real_decks import (
    QUADS,
    DeckPhoto,
    cut,
    deck_photos,
    photos_folder,
    read_labels,
)
from referee.recognition.rectify import order_corners, warp_portrait

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]


def grabcut_quad(image: U8, side: int = 400, margin: float = 0.04, iterations: int = 5) -> F32 | None:
    """The one card of a photo: GrabCut seeded by the photo's border (table) and middle (card)."""
    s = side / max(image.shape[:2])
    small = np.asarray(cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    h, w = small.shape[:2]
    mask = np.full((h, w), cv2.GC_PR_BGD, np.uint8)
    m = int(margin * max(h, w))
    mask[:m, :] = mask[-m:, :] = cv2.GC_BGD
    mask[:, :m] = mask[:, -m:] = cv2.GC_BGD
    mask[int(.3 * h):int(.7 * h), int(.3 * w):int(.7 * w)] = cv2.GC_PR_FGD
    mask[int(.45 * h):int(.55 * h), int(.45 * w):int(.55 * w)] = cv2.GC_FGD
    bgd, fgd = np.zeros((1, 65)), np.zeros((1, 65))
    cv2.setRNGSeed(0)  # GrabCut's k-means starts from OpenCV's global RNG
    cv2.grabCut(small, mask, (0, 0, 1, 1), bgd, fgd, iterations, cv2.GC_INIT_WITH_MASK)
    seg = np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
    seg = np.asarray(cv2.morphologyEx(seg, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8)), np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(seg)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    contours, _ = cv2.findContours((lab == k).astype(np.uint8) * 255, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    return order_corners(cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32) / np.float32(s))


def otsu_quad(image: U8) -> F32 | None:
    """The largest bright region (Otsu) at 480 px tall."""
    from referee.recognition.rectify import find_card_quad

    s = 480 / image.shape[0]
    small = np.asarray(cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    quad = find_card_quad(small, 0.05)
    return None if quad is None else (quad / np.float32(s)).astype(np.float32)


def smooth_quad(image: U8, window: int = 15, spread: float = 22.0) -> F32 | None:
    """The largest bright, untextured region near the middle, at 480 px tall."""
    s = 480 / image.shape[0]
    small = np.asarray(cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mean = cv2.blur(grey, (window, window))
    sd = np.sqrt(np.maximum(cv2.blur(grey * grey, (window, window)) - mean * mean, 0))
    _, bright = cv2.threshold(grey.astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    plain = ((sd < spread) & (bright > 0)).astype(np.uint8) * 255
    plain = np.asarray(cv2.morphologyEx(plain, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))), np.uint8)
    contours, _ = cv2.findContours(plain, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = plain.shape

    def central_area(c: npt.NDArray[Any]) -> float:
        x, y, bw, bh = cv2.boundingRect(c)
        central = abs(x + bw / 2 - w / 2) < w / 3 and abs(y + bh / 2 - h / 2) < h / 3
        return float(cv2.contourArea(c)) if central else 0.0

    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=central_area))
    return order_corners(cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32) / np.float32(s))


def finder_quad(pipeline: object, image: U8) -> F32 | None:
    """The largest card ``referee detect`` finds in the photo."""
    from referee.vision.detect import detect_image
    from referee.vision.pipeline import FramePipeline

    assert isinstance(pipeline, FramePipeline)
    quads = [np.array(c["quad"], np.float32) for c in detect_image(pipeline, image)["cards"]]
    if not quads:
        return None
    return order_corners(max(quads, key=lambda q: float(cv2.contourArea(q))))


def iou(a: F32 | None, b: F32 | None) -> float:
    if a is None or b is None:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def montage(tiles: list[U8], per_row: int = 10) -> U8:
    while len(tiles) % per_row:
        tiles.append(np.zeros_like(tiles[0]))
    return np.vstack([np.hstack(tiles[i:i + per_row]) for i in range(0, len(tiles), per_row)])


def thumbnail(image: U8, name: str, quads: list[tuple[F32 | None, tuple[int, int, int]]], width: int = 150) -> U8:
    s = width / image.shape[1]
    out = np.asarray(cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    for quad, colour in quads:
        if quad is not None:
            cv2.polylines(out, [np.round(quad * s).astype(np.int32)], True, colour, 2)
    cv2.putText(out, name, (3, 14), 0, 0.45, (0, 0, 255), 1)
    return out


def propose(out: Path) -> None:
    from referee.recognition import CardClassifier
    from referee.vision.pipeline import FramePipeline

    folder = photos_folder()
    labels = read_labels(folder)
    classifier = CardClassifier.load("italian", threads=1)
    out.mkdir(parents=True, exist_ok=True)
    crops: dict[str, list[U8]] = {}
    with (out / "proposals.csv").open("w", newline="") as fh, (out / "draft_quads.csv").open("w", newline="") as dh:
        writer, draft = csv.writer(fh), csv.writer(dh, lineterminator="\n")
        writer.writerow(["file", "method", "x0", "y0", "x1", "y1", "x2", "y2", "x3", "y3"])
        draft.writerow(["file", "x0", "y0", "x1", "y1", "x2", "y2", "x3", "y3", "method", "note"])
        for name, (card, deck) in sorted(labels.items()):
            image = np.asarray(cv2.imread(str(folder / name), cv2.IMREAD_COLOR), np.uint8)
            quads = {"grabcut": grabcut_quad(image), "finder": finder_quad(FramePipeline.create(classifier), image),
                     "otsu": otsu_quad(image), "smooth": smooth_quad(image)}
            for method, quad in quads.items():
                writer.writerow([name, method, *([f"{v:.1f}" for v in quad.ravel()] if quad is not None else [""] * 8)])
            pool = [m for m in ("grabcut", "finder", "otsu") if quads[m] is not None]
            agree = {m: float(np.mean([iou(quads[m], quads[o]) for o in pool if o != m] or [0.0])) for m in pool}
            best = max(pool, key=lambda m: agree[m]) if pool else None
            if best is None:
                draft.writerow([name, *[""] * 8, "excluded", "no proposal"])
                continue
            chosen = quads[best]
            assert chosen is not None
            draft.writerow([name, *(f"{v:.1f}" for v in chosen.ravel()), best, f"mean IoU with the others {agree[best]:.2f}"])
            crop = np.asarray(cv2.resize(warp_portrait(image, chosen), (110, 170), interpolation=cv2.INTER_AREA), np.uint8)
            cv2.putText(crop, card, (2, 12), 0, 0.38, (0, 0, 255), 1)
            cv2.putText(crop, f"{best} {agree[best]:.2f}", (2, 165), 0, 0.38, (0, 0, 255), 1)
            crops.setdefault(deck, []).append(crop)
    for deck, ts in crops.items():
        cv2.imwrite(str(out / f"{deck}_draft.png"), montage(ts))


def show_committed(out: Path, quads: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    by_deck: dict[str, list[DeckPhoto]] = {}
    for photo in deck_photos(quads=quads):
        by_deck.setdefault(photo.deck, []).append(photo)
    for deck, photos in by_deck.items():
        thumbs, crops = [], []
        cache: dict[Path, U8] = {}
        for p in photos:
            image = np.asarray(cv2.imread(str(p.image), cv2.IMREAD_COLOR), np.uint8)
            cache = {p.image: image}
            thumbs.append(thumbnail(image, p.card, [(p.quad, (0, 255, 0))]))
            crop = cut(p, cache) if p.quad is not None else np.zeros((150, 96, 3), np.uint8)
            crop = np.asarray(cv2.resize(crop, (96, 150), interpolation=cv2.INTER_AREA), np.uint8)
            cv2.putText(crop, p.card, (2, 12), 0, 0.35, (0, 0, 255), 1)
            crops.append(crop)
        cv2.imwrite(str(out / f"{deck}_quads.png"), montage(thumbs))
        cv2.imwrite(str(out / f"{deck}_crops.png"), montage(crops, 20))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/napo"))
    parser.add_argument("--quads", type=Path, default=QUADS)
    parser.add_argument("--montage-only", action="store_true", help="draw the committed quads, propose nothing")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.montage_only:
        show_committed(args.out, args.quads)
    else:
        propose(args.out)


if __name__ == "__main__":
    main()
