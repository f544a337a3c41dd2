"""Deck enrollment on the models' held-out synthetic prints (no photos needed).

    nice .venv/bin/python benchmarks/enroll_prints.py [--per-face 2] [--model-dir DIR]

For each committed model and each print held out of its training (``holdout_sets`` in its
JSON): ``--per-face`` renders of every face enroll the print (seed 11, as a club photographs its
deck), as many others are read (seed 12, the game).  Prints right, sure (>= 0.8) and sure-wrong
reads for the base model and base + enrollment, and the fitted weight and sharpness.  The same
protocol as ``tests/recognition/test_committed_models.py``'s enrollment test, over every
held-out print of both decks.  About a minute on one core: run it niced.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.recognition import CardClassifier
from referee.recognition.dataset import render_set
from referee.recognition.enroll import enroll

SURE = 0.8
U8 = npt.NDArray[np.uint8]


def line(clf: CardClassifier, crops: list[U8], truth: list[str]) -> str:
    preds = clf.classify(crops)
    right = sum(p.card == t for p, t in zip(preds, truth, strict=True))
    sure = sum(p.confidence >= SURE for p in preds)
    wrong = sum(p.confidence >= SURE and p.card != t for p, t in zip(preds, truth, strict=True))
    return f"{right / len(truth):7.1%} {sure:5d} {wrong:6d}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-face", type=int, default=2)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=1,
                        help="render processes (more than 1 can hang once onnxruntime is loaded)")
    args = parser.parse_args()
    print(f"{'deck / held-out print':44} {'n':>4} {'base':>7} {'sure':>5} {'wrong':>6} | "
          f"{'enrolled':>8} {'sure':>5} {'wrong':>6}  fit")
    for deck in ("italian", "french"):
        base = CardClassifier.load(deck, args.model_dir, threads=1)
        for held in base.info.extra.get("training", {}).get("holdout_sets", []):
            photos = render_set(deck, [held], args.per_face, seed=11, back_count=0, workers=args.workers,
                                size=base.input_size)
            play = render_set(deck, [held], args.per_face, seed=12, back_count=0, workers=args.workers,
                                size=base.input_size)
            codes = [base.labels[i] for i in photos.labels]
            truth = [base.labels[i] for i in play.labels]
            e = enroll(base, [np.asarray(c, np.uint8) for c in photos.images], codes)
            enrolled = CardClassifier.load(deck, args.model_dir, threads=1, enrollment=e)
            crops = [np.asarray(c, np.uint8) for c in play.images]
            print(f"{deck + ' / ' + held:44} {len(truth):4d} {line(base, crops, truth)} | "
                  f"{line(enrolled, crops, truth):>20}  w {e.weight:.2f} s {e.scale:g}", flush=True)


if __name__ == "__main__":
    main()
