"""The black-pips vote on every French print's face scans: which clubs it reads as clubs, and
whether it would turn any spade (it must not).

    .venv/bin/python benchmarks/black_pips.py [--heights 350 250 160] [--model-dir models]

For each print under ``<shared>/faces`` (the seven the French model trains on and the two it holds
out), each club and spade of rank 2-10 is laid on white, scaled to each card height (px, as a
card's quad rectified at its own size in an analysed photo) and voted on by
:class:`referee.recognition.black_pips.PipVote` with the thresholds of the model JSON's
``"black_pips"`` block (the module's defaults when it has none). Prints, per print and height: the
clubs voted club (of 9) and the spades voted club (of 9, must be 0), and the whole pips found on
the cards (median). A low-resolution print (Invido's, about 144 px tall) has pips under the vote's
minimum size at every height: the vote abstains there, as it should on a blurred card.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from referee.paths import models_dir
from referee.recognition.black_pips import PIP_RANKS, PipVote, pip_shapes
from referee.recognition.faces import face_sets, read_bgra


def on_white(path: Path, height: int) -> np.ndarray:
    """The face scan over white paper, scaled to ``height`` px tall (BGR)."""
    bgra = read_bgra(path).astype(np.float32)
    alpha = bgra[..., 3:4] / 255.0
    bgr = bgra[..., :3] * alpha + 255.0 * (1.0 - alpha)
    h, w = bgr.shape[:2]
    scaled = cv2.resize(bgr, (max(1, round(w * height / h)), height), interpolation=cv2.INTER_AREA)
    return np.asarray(np.clip(scaled, 0, 255), np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heights", type=int, nargs="+", default=[350, 250, 160])
    parser.add_argument("--model-dir", type=Path, default=None, help="the French model's folder (default: models/)")
    args = parser.parse_args()
    json_path = (args.model_dir or models_dir()) / "french.json"
    vote = PipVote.from_info(json.loads(json_path.read_text()), json_path) or PipVote()
    print(f"vote: {vote}")
    print(f"{'print':40s} {'height':>6s} {'clubs->C':>9s} {'spades->C':>10s} {'pips (median)':>14s}")
    turned_spades = 0
    for faces in face_sets("french"):
        for height in args.heights:
            clubs = spades = 0
            pips: list[int] = []
            for rank in PIP_RANKS:
                for suit in ("C", "S"):
                    path = faces.files.get(f"{rank}{suit}")
                    if path is None:
                        continue
                    crop = on_white(path, height)
                    pips.append(len(pip_shapes(crop, vote.min_pip_px)))
                    if vote.votes_club(crop):
                        clubs += suit == "C"
                        spades += suit == "S"
                        if suit == "S":
                            print(f"  TURNED: {faces.name} {rank}S at {height} px")
            turned_spades += spades
            print(f"{faces.name:40s} {height:6d} {clubs:9d} {spades:10d} {np.median(pips) if pips else 0:14.1f}", flush=True)
    print(f"spades turned to clubs, all prints and heights: {turned_spades}")


if __name__ == "__main__":
    main()
