"""Real Napoletane decks, deck by deck, through ``referee detect``'s code (finder + classifier).

    nice .venv/bin/python benchmarks/real_decks.py                          # committed model, all 8 decks
    nice .venv/bin/python benchmarks/real_decks.py --model-dir build/cand --decks deck05 deck06 deck07 deck08
    nice .venv/bin/python benchmarks/real_decks.py --others                 # + the other real sets and scan prints
    nice .venv/bin/python benchmarks/real_decks.py --in-frame --heights 245 80   # + the shrunk photos in a camera frame
    nice .venv/bin/python benchmarks/real_decks.py --in-frame --results build/rd.jsonl   # + every detection kept
    .venv/bin/python benchmarks/real_decks.py --rescore build/rd.jsonl --floor 0.5   # scored again, reads < 0.5 dropped

One card per photo (``../shared/photos/italian_napoletane_real_decks``; the verified quads in
``benchmarks/data/napoletane_real_quads.csv``, :mod:`referee.recognition.real_decks`). Per deck:

right      photos whose card is read right: a detection of the labelled card whose centre lies
           on the card (inside its verified quad)
false/100  every other detection (a wrong card, a second card cut from the same card's pips, a
           card on the table), per 100 photos
crop       the classifier alone on the card cut along its verified quad (no finder): separates a
           finder miss from a misread
sure       the crops read right at >= 0.8 (:data:`SURE`; below it the live loop asks the operator):
           where every crop is read right, whether a model's reads are sure of it

then the same with each photo area-downscaled so the card is 245 / 160 / 100 / 80 px tall (the
box's camera, hardware/README.md) and JPEG-compressed at quality 60, and the confusion pairs
(label -> read, over all sizes). The shrunk photo alone is a tiny image the card fills most of;
``--in-frame`` also places it in a 1280x720 frame of the photo's own surface (the median colour
outside the card's quad, with mild noise; a place drawn per photo, seeded by its name; the
photo's border faded into it, short of the card), as the
box's camera sees a card 80-245 px tall on its table, then JPEG 60. A deck a model trained on is marked ``seen`` (the model's JSON
``training.real_photos.decks``): its figures say nothing about unseen decks.

``--others`` adds ``recognition_accuracy.py``'s figures for the same model: held-out scan prints,
the real French pinochle photos (held-out half) and the real Triestine photos (the French model
from the same ``--model-dir``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.camera_frame import FRAME, in_frame
from referee.recognition.real_crops import seen_at
from referee.recognition.real_decks import DeckPhoto, cut, deck_names, deck_photos
from referee.vision.detect import detect_image
from referee.vision.pipeline import FramePipeline

#: card heights (px) of the shrunk runs, as ``recognition_accuracy.CAMERA_HEIGHTS``
HEIGHTS = (245, 160, 100, 80)
JPEG_QUALITY = 60
#: a crop read right at this confidence or more is sure (the pipeline asks the operator below it)
SURE = 0.8
#: a regime: the card height (None: the photo as it is) and whether the photo lies in a frame
Regime = tuple[int | None, bool]


@dataclass
class Tally:
    photos: int = 0
    right: int = 0
    false: int = 0
    crop_right: int = 0
    crop_sure: int = 0
    confusions: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.photos += other.photos
        self.right += other.right
        self.false += other.false
        self.crop_right += other.crop_right
        self.crop_sure += other.crop_sure
        self.confusions.update(other.confusions)

    def row(self) -> str:
        n = max(1, self.photos)
        return (f"{self.photos:4d} {self.right / n:7.1%} {100 * self.false / n:8.1f} {self.crop_right / n:7.1%} {self.crop_sure / n:7.1%}")


def shrink(image: np.ndarray, quad: np.ndarray, height: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The photo area-downscaled so the card is ``height`` px tall and JPEG-compressed (``None``:
    as it is), with the quad in its pixels."""
    if height is None:
        return image, quad
    tall = max(float(np.linalg.norm(quad[3] - quad[0])), float(np.linalg.norm(quad[1] - quad[0])))
    s = height / tall
    h = image.shape[0]
    small = seen_at(image, max(8, round(h * s)), JPEG_QUALITY)
    return small, quad * np.float32(small.shape[0] / h)


@dataclass
class Read:
    """One photo at one regime through the still path: every detection, and the classifier's read
    of the card cut along its verified quad (what ``--results`` writes and ``--rescore`` reads)."""
    deck: str
    photo: str
    regime: Regime
    card: str
    quad: list[list[float]]
    detections: list[tuple[str, float, list[list[float]]]]
    crop: tuple[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck, "photo": self.photo, "height": self.regime[0], "framed": self.regime[1],
                "card": self.card, "quad": self.quad, "crop": list(self.crop),
                "detections": [{"card": c, "confidence": p, "quad": q} for c, p, q in self.detections]}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Read:
        return cls(row["deck"], row["photo"], (row["height"], bool(row["framed"])), row["card"], row["quad"],
                   [(d["card"], float(d["confidence"]), d["quad"]) for d in row["detections"]],
                   (row["crop"][0], float(row["crop"][1])))


def tally_of(read: Read, finder: bool = True, floor: float = 0.0) -> Tally:
    """The photo's tally; ``floor``: as if the still path had dropped every read below it."""
    quad = np.array(read.quad, np.float32)
    cards = [(c, q) for c, p, q in read.detections if p >= floor]
    t = Tally(photos=1)
    hit = None
    for i, (c, q) in enumerate(cards):
        centre = np.mean(np.array(q, np.float32), axis=0)
        on_card = cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0
        if hit is None and on_card and c == read.card:
            hit = i
    t.right = int(hit is not None)
    t.false = len(cards) - t.right
    for i, (c, _) in enumerate(cards):
        if i != hit:
            # a second detection of the right card is a card cut from the card's own pips or figure
            t.confusions[f"{read.card}->{c}{' (twice)' if c == read.card else ''}"] += 1
    if finder and hit is None and not cards:
        t.confusions[f"{read.card}->(none)"] += 1
    t.crop_right = int(read.crop[0] == read.card)
    t.crop_sure = int(read.crop[0] == read.card and read.crop[1] >= SURE)
    if not finder and read.crop[0] != read.card:
        t.confusions[f"{read.card}->{read.crop[0]} (crop)"] += 1
    return t


def score_photo(pipeline: FramePipeline | None, classifier: CardClassifier, photo: DeckPhoto, image: np.ndarray,
                height: int | None, framed: bool = False) -> Read:
    """One photo (at one card size, alone or in a frame) through the finder and classifier, and
    its quad's crop through the classifier alone (``pipeline`` None: the crop only)."""
    assert photo.quad is not None
    if framed and height is not None:
        img, quad = in_frame(image, photo.quad, height, f"{photo.deck}/{photo.image.name}")
    else:
        img, quad = shrink(image, photo.quad, height)
    cards = [] if pipeline is None else detect_image(pipeline, np.asarray(img, np.uint8))["cards"]
    crop = cut(DeckPhoto(photo.image, photo.card, photo.deck, quad), {photo.image: np.asarray(img, np.uint8)})
    read = classifier.classify([crop])[0]
    return Read(photo.deck, photo.image.name, (height, framed and height is not None), photo.card,
                np.asarray(quad, np.float32).tolist(),
                [(str(c["card"]), float(c["confidence"]), [list(map(float, v)) for v in c["quad"]]) for c in cards],
                (read.card, float(read.confidence)))


def run(model_dir: Path, decks: list[str] | None, heights: tuple[int, ...], crops_only: bool = False,
        framed: bool = False, reads: list[Read] | None = None) -> dict[str, Any]:
    classifier = CardClassifier.load("italian", model_dir, threads=1)
    real = classifier.info.extra.get("training", {}).get("real_photos", {})
    seen = set(real.get("decks", [])) if isinstance(real, dict) else set()
    photos = deck_photos(decks=decks)
    excluded = [p for p in photos if p.quad is None]
    sizes: list[Regime] = [(None, False), *((h, False) for h in heights), *((h, True) for h in heights if framed)]
    tallies: dict[tuple[str, Regime], Tally] = {}
    pipeline = None if crops_only else FramePipeline.create(classifier)
    for p in photos:
        if p.quad is None:
            continue
        image = np.asarray(cv2.imread(str(p.image), cv2.IMREAD_COLOR), np.uint8)
        for h, f in sizes:
            read = score_photo(pipeline, classifier, p, image, h, f)
            if reads is not None:
                reads.append(read)
            tallies.setdefault((p.deck, (h, f)), Tally()).add(tally_of(read, pipeline is not None))
    return {"seen": sorted(seen), "excluded": [f"{p.deck}/{p.image.name}" for p in excluded], "tallies": tallies,
            "decks": sorted({p.deck for p in photos}), "sizes": sizes, "crops_only": crops_only}


def load_reads(path: Path, parser: argparse.ArgumentParser) -> list[Read]:
    """A ``--results`` file's reads; a missing file or a bad line stops with its name and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        parser.error(f"--rescore: cannot read {path}: {exc}")
    reads: list[Read] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            reads.append(Read.from_json(json.loads(line)))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            parser.error(f"--rescore: {path}:{number}: not a real_decks.py --results line ({exc!r})")
    return reads


def rescored(reads: list[Read], model_dir: Path, floor: float) -> dict[str, Any]:
    """:func:`run`'s result from a ``--results`` file's reads, each photo's reads below ``floor`` dropped."""
    info = CardClassifier.load("italian", model_dir, threads=1).info
    real = info.extra.get("training", {}).get("real_photos", {})
    seen = set(real.get("decks", [])) if isinstance(real, dict) else set()
    tallies: dict[tuple[str, Regime], Tally] = {}
    sizes: list[Regime] = []
    for r in reads:
        if r.regime not in sizes:
            sizes.append(r.regime)
        tallies.setdefault((r.deck, r.regime), Tally()).add(tally_of(r, True, floor))
    return {"seen": sorted(seen), "excluded": [], "tallies": tallies, "decks": sorted({r.deck for r in reads}),
            "sizes": sizes, "crops_only": False}


def show(result: dict[str, Any], model_dir: Path) -> None:
    seen = set(result["seen"])
    print(f"model: {model_dir / 'italian.onnx'}  trained on real decks: {', '.join(sorted(seen)) or 'none'}")
    if result["excluded"]:
        print(f"excluded (no verified quad): {', '.join(result['excluded'])}")
    tallies: dict[tuple[str, Regime], Tally] = result["tallies"]
    for h, framed in result["sizes"]:
        label = "as photographed" if h is None else f"card {h} px tall, JPEG {JPEG_QUALITY}"
        if framed:
            label += f", in a {FRAME[0]}x{FRAME[1]} frame of the photo's surface"
        if result["crops_only"]:
            label += " (crops only: no finder, right and false/100 not measured)"
        print(f"\n-- {label}\n{'deck':14} {'n':>4} {'right':>7} {'false/100':>8} {'crop':>7} {'sure':>7}")
        unseen, every = Tally(), Tally()
        for d in result["decks"]:
            t = tallies.get((d, (h, framed)))
            if t is None:
                continue
            print(f"{d + (' (seen)' if d in seen else ''):14} {t.row()}")
            every.add(t)
            if d not in seen:
                unseen.add(t)
        if seen and unseen.photos:
            print(f"{'unseen decks':14} {unseen.row()}")
        print(f"{'all':14} {every.row()}")
    conf: Counter[str] = Counter()
    for (d, _), t in tallies.items():
        if d not in seen:
            conf.update(t.confusions)
    print(f"\nconfusions on unseen decks, all sizes (label->read x n): "
          f"{', '.join(f'{k} x{v}' for k, v in conf.most_common(25)) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=models_dir())
    parser.add_argument("--decks", nargs="+", default=None, metavar="DECK", help="default: every deck")
    parser.add_argument("--heights", nargs="*", type=int, default=list(HEIGHTS),
                        help=f"card heights of the shrunk runs (default {' '.join(map(str, HEIGHTS))}; none: skip)")
    parser.add_argument("--others", action="store_true",
                        help="also the other real sets and held-out scan prints (recognition_accuracy.py)")
    parser.add_argument("--in-frame", action="store_true",
                        help=f"also each shrunk photo in a {FRAME[0]}x{FRAME[1]} frame of its surface (the box's view)")
    parser.add_argument("--crops-only", action="store_true",
                        help="the classifier on the verified quads' crops only (no finder): seconds, not minutes")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--results", type=Path, default=None, help="write every photo's detections to this JSON Lines file")
    parser.add_argument("--rescore", type=Path, default=None,
                        help="score the detections a --results file holds (no photo read again)")
    parser.add_argument("--floor", type=float, default=0.0,
                        help="with --rescore: drop every detection below this confidence first")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.decks:
        unknown = sorted(set(args.decks) - set(deck_names()))
        if unknown:
            parser.error(f"--decks: no such deck {', '.join(unknown)}; known: {', '.join(deck_names())}")
    t = time.monotonic()
    reads: list[Read] = []
    if args.floor and args.rescore is None:
        parser.error("--floor: only with --rescore (a run's own floor is the still path's)")
    if args.rescore is not None:
        result = rescored(load_reads(args.rescore, parser), args.model_dir, args.floor)
    else:
        result = run(args.model_dir, args.decks, tuple(args.heights), args.crops_only, args.in_frame, reads)
    if args.results is not None:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text("".join(json.dumps(r.to_json()) + "\n" for r in reads))
    show(result, args.model_dir)
    print(f"({time.monotonic() - t:.0f}s)")
    out: dict[str, Any] = {"seen": result["seen"], "excluded": result["excluded"], "decks": {
        f"{d}@{h or 'photo'}{'-frame' if f else ''}": {"photos": v.photos, "right": v.right, "false": v.false, "crop_right": v.crop_right, "crop_sure": v.crop_sure,
                                "confusions": dict(v.confusions)} for (d, (h, f)), v in result["tallies"].items()}}
    if args.others:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from recognition_accuracy import evaluate
        from recognition_accuracy import show as show_accuracy

        for deck in ("italian", "french"):
            report = evaluate(deck, args.model_dir, 4, 30)
            show_accuracy(deck, report)
            out[deck] = report
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
