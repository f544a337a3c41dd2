"""What the black-pips vote does to the live loop's reads of simulated French tables.

For each French print the simulator has (``../shared/faces``, the held-out Knoll among them) and
each French game, one simulated deal is played on a random cloth; at the frames after each trick's
second and last card (``recognition_sim.trick_frames``) the live loop's detection
(``LiveVision.detect``: the finder, the recogniser with its live views, the card size measured on
sure reads) is run with the vote off, and the vote (:func:`referee.vision.pipeline.clubs_by_pips`,
with the thresholds of the model's JSON) applied to the same reads. Every face-up card at most
``--max-hidden`` hidden is matched to the detection over it (IoU >= 0.5) and scored both ways::

    .venv/bin/python benchmarks/live_pip_vote.py
    .venv/bin/python benchmarks/live_pip_vote.py --seeds 2 --model-dir build/lab/candidate

Per print: cards matched, right without and with the vote, and the reads the vote turned:
``fixed`` (a spade read of a club, now right), ``broken`` (a right spade, now a club) and
``still wrong`` (a club misread by rank, or a card that is neither). Rule 2 of
docs/lab/2026-12-05-live-pip-vote.md: no broken read on any print.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from referee.paths import exit_without_shared, models_dir
from referee.recognition.black_pips import PipVote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recognition_sim import iou, trick_frames  # a sibling benchmark: written once

FRENCH_GAMES = ("belotta", "binocolo")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="deals per print and game")
    parser.add_argument("--max-hidden", type=float, default=0.4, help="cards hidden more than this are not scored")
    parser.add_argument("--model-dir", type=Path, default=None, help="the French model's folder (default: models/)")
    args = parser.parse_args(argv)

    exit_without_shared("benchmarks/live_pip_vote.py", "faces")
    from referee.recognition import CardClassifier
    from referee.recognition.views import LIVE_VIEWS
    from referee.vision.live import LiveVision
    from referee.vision.pipeline import clubs_by_pips
    from referee.vision.simulator.assets import face_sets
    from referee.vision.simulator.video import simulate_game

    json_path = (args.model_dir or models_dir()) / "french.json"
    vote = PipVote.from_info(json.loads(json_path.read_text()), json_path) or PipVote()
    classifier = CardClassifier.load("french", model_dir=args.model_dir, threads=1, views=LIVE_VIEWS)
    print(f"vote: {vote}")
    print(f"{'print':36s} {'cards':>6s} {'right, no vote':>15s} {'with vote':>10s} {'fixed':>6s} {'broken':>7s} "
          f"{'still wrong':>12s}")
    broken_all = 0
    for face_set in face_sets("french"):
        cards = right_off = right_on = fixed = broken = still = 0
        turned: Counter[str] = Counter()
        for game in FRENCH_GAMES:
            for seed in range(args.seeds):
                sim = simulate_game(game, deck=face_set, seed=seed, texture="random")
                live = LiveVision.create(sim.layout, classifier, apply_plays=False)
                live.pipeline.pip_vote_frames = False  # voted below, on the same reads
                for frame in trick_frames(sim):
                    dets = live.detect(frame.image)
                    voted = clubs_by_pips(frame.image, dets, vote)
                    for card in frame.cards:
                        if not card.face_up or card.moving or card.occluded_fraction > args.max_hidden:
                            continue
                        scores = [iou(q, card.quad) for q in dets.quad]
                        if not scores or max(scores) < 0.5:
                            continue
                        k = int(np.argmax(scores))
                        before, after = str(dets.card[k]), str(voted.card[k])
                        cards += 1
                        right_off += before == card.code
                        right_on += after == card.code
                        if before != after:
                            turned[f"{card.code}: {before}->{after}"] += 1
                            fixed += after == card.code
                            broken += before == card.code
                            still += card.code not in (before, after)
        broken_all += broken
        print(f"{face_set:36s} {cards:6d} {right_off / max(1, cards):15.1%} {right_on / max(1, cards):10.1%} "
              f"{fixed:6d} {broken:7d} {still:12d}", flush=True)
        if turned:
            print("  turned: " + ", ".join(f"{k} x{n}" for k, n in turned.most_common()), flush=True)
    print(f"right reads the vote turned wrong, all prints: {broken_all}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
