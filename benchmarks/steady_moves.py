"""How a photo's reads hold when their boxes move: the measurement behind ``"still_steady"``.

    .venv/bin/python benchmarks/vision_photos.py --sets pinochle --results build/lab/pin.jsonl   # a model dir without the block
    .venv/bin/python benchmarks/steady_moves.py --results build/lab/pin.jsonl --sets pinochle

Each detection of a ``vision_photos.py --results`` file is read again in the six boxes
:func:`referee.vision.steady_read.moved_quads` moves it to (``--shift``, 0.15 by default), with
the set's model and game as ``referee detect`` reads them (the model's test-time views too), and
the reads that give the same card are counted. Printed per set and, for pinochle, per half (the
training half the French recipe's real crops come from, where the rule was chosen, and the
held-out half), the right reads and the false ones (``vision_photos.py``'s verdicts, labels fixed)
by how many of the six agree, then the false reads that one agreeing move or none would drop.

Read the detections of a run made with the rule **off** (``REFEREE_MODELS`` pointing at a copy
of ``models/`` whose JSONs have no ``"still_steady"``): a run with it on holds only the reads it
kept. The comparison is of the model's reads, before the black-pips vote: a spade the vote
turned into its club reads as the spade in every move, so it counts none agreeing here (the
photo reader compares before the vote and keeps it).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import vision_photos as vp

from referee.paths import exit_without_shared, shared_dir
from referee.recognition import CardClassifier
from referee.recognition.label_fixes import load_label_fixes
from referee.recognition.real_crops import is_training_photo
from referee.vision.finder.quad import rectify
from referee.vision.steady_read import moved_quads


def agreeing(records: list[vp.Record], truths: dict[Path, list[vp.Truth]], classifier: CardClassifier,
             shift: float) -> list[tuple[str, str, str, float, int]]:
    """(photo, verdict, card, confidence, moves agreeing) for every detection of ``records``."""
    by_key = {vp.photo_key(path): (path, ts) for path, ts in truths.items()}
    width, height = classifier.input_size
    out = []
    for r in records:
        path, ts = by_key[r.photo]
        cards: list[dict[str, Any]] = r.result["cards"]
        if not cards:
            continue
        image = np.asarray(cv2.imread(str(path), cv2.IMREAD_COLOR), np.uint8)
        if not r.shape:
            r.shape = image.shape
        verdicts = vp.score_image(path, ts, r.result, r.shape, vp.Tally(), False)
        # the photo as referee detect reads it (detect_image: at most 1280 px wide)
        scale = min(1.0, 1280 / image.shape[1])
        if scale < 1.0:
            image = np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
        for card, verdict in zip(cards, verdicts, strict=True):
            quad = np.asarray(card["quad"], np.float32) * np.float32(scale)
            reads = classifier.classify([rectify(image, m, (width, height)) for m in moved_quads(quad, shift)])
            same = sum(p.card == card["card"] for p in reads)
            out.append((path.name, verdict, str(card["card"]), float(card["confidence"]), same))
    return out


def report(label: str, rows: list[tuple[str, str, str, float, int]]) -> None:
    right = Counter(same for _, v, _, _, same in rows if v == "right")
    false = Counter(same for _, v, _, _, same in rows if v != "right")
    print(f"{label}: {sum(right.values())} right reads, {sum(false.values())} false")
    print("  moves agreeing  " + " ".join(f"{k:>4}" for k in range(7)))
    print("  right reads     " + " ".join(f"{right[k]:>4}" for k in range(7)))
    print("  false reads     " + " ".join(f"{false[k]:>4}" for k in range(7)))
    for photo, verdict, card, conf, same in rows:
        if verdict != "right" and same <= 1:
            print(f"    {photo:24} {verdict:10} {card:10} {conf:.4f}  {same} of 6 agree")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, required=True, help="a vision_photos.py --results file")
    parser.add_argument("--sets", nargs="+", default=["pinochle", "triestine"], choices=list(vp.SETS))
    parser.add_argument("--shift", type=float, default=0.15)
    args = parser.parse_args()
    exit_without_shared("benchmarks/steady_moves.py", "photos")
    cv2.setNumThreads(1)
    saved = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    for name in args.sets:
        family, loader = vp.SETS[name]
        truths = vp.with_fixes(loader(shared_dir() / "photos"), load_label_fixes(vp.fixes_file(name)), family)
        records = [vp.Record.from_json(row, False) for row in saved if row["set"] == name]
        if not records:
            print(f"{name}: no detections of this set in {args.results}")
            continue
        game = vp.set_game(name)
        classifier = CardClassifier.load(family, threads=1, game=game)
        rows = agreeing(records, truths, classifier, args.shift)
        if name == "pinochle":
            names = sorted(path.name for path in truths)
            report(f"{name}, training half", [r for r in rows if is_training_photo(r[0], names)])
            report(f"{name}, held-out half", [r for r in rows if not is_training_photo(r[0], names)])
        else:
            report(name, rows)


if __name__ == "__main__":
    main()
