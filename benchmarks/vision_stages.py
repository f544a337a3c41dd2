"""Where plays are lost: finder recall and recogniser accuracy on simulated still trick cards.

For each trick of simulated deals (every game, the cloths and prints of ``vision_e2e.py``), the
frame 0.5 s after its last card was laid (the whole trick lying still, overlapping) is run
through the frame pipeline, after the frame before it (as in the live loop, which splits
overlapping cards once they lie still; ``--observe`` also learns the card size from sure reads
as the live loop does), and per cloth, over the trick's cards:

  found     the finder proposed a quad over the card (IoU >= 0.5 with the true quad), with the
            play area as its focus, as in the pipeline
  good      ... and its corners lie within 5% of the card's long side of the true ones (what
            the recogniser is trained to tolerate, with margin)
  read      ... and the pipeline's card there is the right one
  hidden    mean part of those cards hidden by others (tight tricks hide more)

It needs no tracker and is ~20x cheaper than ``vision_e2e.py``; use it to see which stage
to work on.

    .venv/bin/python benchmarks/vision_stages.py                 # all games, 2 deals each
    .venv/bin/python benchmarks/vision_stages.py --games belotta --seeds 4 --oracle
    .venv/bin/python benchmarks/vision_stages.py --split corners   # the finder before outlines
    .venv/bin/python benchmarks/vision_stages.py --refine          # quads fitted to the card edges
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from referee.rules import available_games
from referee.vision.simulator.random_scene import BENCHMARK_FACE_SETS as FACE_SETS
from referee.vision.simulator.random_scene import BENCHMARK_TEXTURES as TEXTURES

ITALIAN_GAMES = ("briscola-2", "briscola-4", "briscola-chiamata")


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    a32, b32 = a.astype(np.float32).reshape(-1, 1, 2), b.astype(np.float32).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    union = cv2.contourArea(a32) + cv2.contourArea(b32) - inter
    return float(inter / union) if union > 0 else 0.0


def corner_error(a: np.ndarray, b: np.ndarray) -> float:
    """Largest distance from a corner of ``b`` to the nearest corner of ``a`` (px)."""
    d = np.linalg.norm(b.reshape(-1, 1, 2) - a.reshape(1, -1, 2), axis=2)
    return float(d.min(axis=1).max())


def classifier_for(family: str, face_set: str, oracle: bool) -> Any:
    if oracle:
        from referee.vision.simulator.oracle import TemplateClassifier

        return TemplateClassifier(face_set, family)
    from referee.recognition import CardClassifier

    return CardClassifier.load(family, threads=1)


def main(argv: list[str] | None = None) -> int:
    from referee.vision.finder import FinderConfig
    from referee.vision.pipeline import FramePipeline
    from referee.vision.simulator.video import simulate_game

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=None)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--oracle", action="store_true", help="template matching instead of the recogniser")
    parser.add_argument("--observe", action="store_true",
                        help="learn the card size from sure reads as LiveVision does (measured: it learns the size "
                             "of badly cut quads read with confidence, and finds fewer cards)")
    parser.add_argument("--split", choices=("both", "outline", "corners"), default=None,
                        help="how the finder splits overlapping cards (FinderConfig.split; default: its default)")
    parser.add_argument("--refine", action="store_true",
                        help="fit the quads to the card edges as for single frames (FinderConfig.refine_live)")
    args = parser.parse_args(argv)
    stats: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0, 0])  # cloth -> n, found, read, hidden, good
    errors: list[float] = []  # found cards: the best quad's worst corner error / long side
    run = 0
    for game in args.games or available_games():
        family = "italian" if game in ITALIAN_GAMES else "french"
        for seed in range(1, args.seeds + 1):
            texture = TEXTURES[run % len(TEXTURES)]
            faces = FACE_SETS[family][run % len(FACE_SETS[family])]
            run += 1
            sim = simulate_game(game, deck=faces, seed=seed, texture=texture)
            config = FinderConfig(split_when_still=True, refine_live=args.refine)  # as FramePipeline.create makes it
            if args.split is not None:
                config = replace(config, split=args.split)
            pipe = FramePipeline.create(classifier_for(family, faces, args.oracle), layout=sim.layout, config=config)
            tricks: dict[tuple[int, int], list[Any]] = defaultdict(list)
            for play in sim.plays:
                tricks[(play.deal, play.trick)].append(play)
            for plays in tricks.values():
                # The whole trick lies still before it is gathered: earlier cards are partly hidden.
                index = int(np.ceil((plays[-1].t + 0.5) * sim.fps))
                before, frame = sim.frames(index - 1, index + 1)
                for still in (before, frame):  # the live loop has seen the trick lie still before
                    dets = pipe.process(still.image)
                    if args.observe:  # and learns the card size from sure reads, as LiveVision does
                        pipe.finder.observe(dets[dets.confidence >= 0.9].quad)
                raw = pipe.finder.find(frame.image, focus=pipe._play_area())
                for play in plays:
                    truth = [c for c in frame.cards if c.role == "trick" and c.code == play.card and c.seat == play.seat]
                    if not truth:
                        continue
                    card = truth[0]
                    found = any(iou(q, card.quad) >= 0.5 for q in raw.quad)
                    long_side = float(np.linalg.norm(card.quad[2] - card.quad[1]))
                    long_side = max(long_side, float(np.linalg.norm(card.quad[1] - card.quad[0])))
                    near = [corner_error(q, card.quad) / long_side for q in raw.quad if iou(q, card.quad) >= 0.5]
                    good = bool(near) and min(near) <= 0.05
                    errors += [min(near)] if near else []
                    read = any(iou(q, card.quad) >= 0.5 and str(c) == play.card
                               for q, c in zip(dets.quad, dets.card, strict=True))
                    row = stats[texture]
                    row[0] += 1
                    row[1] += found
                    row[2] += read
                    row[3] += card.occluded_fraction
                    row[4] += good
            print(f"{game:18} {texture:9} {faces:40} seed {seed}: {len(sim.plays)} plays", flush=True)
    print(f"\n{'cloth':10} {'cards':>6} {'found':>8} {'good':>8} {'read':>8} {'hidden':>7}")
    total = [0, 0, 0, 0.0, 0]
    for texture, row in sorted(stats.items()):
        n_cards, n_found, n_read, hidden, n_good = row
        print(f"{texture:10} {n_cards:6.0f} {100 * n_found / n_cards:7.1f}% {100 * n_good / n_cards:7.1f}% "
              f"{100 * n_read / n_cards:7.1f}% {100 * hidden / n_cards:6.1f}%")
        total = [a + b for a, b in zip(total, row, strict=True)]
    n = total[0] or 1
    print(f"{'all':10} {total[0]:6.0f} {100 * total[1] / n:7.1f}% {100 * total[4] / n:7.1f}% {100 * total[2] / n:7.1f}% "
          f"{100 * total[3] / n:6.1f}%")
    if errors:
        print(f"corner error of found cards (worst corner / long side): median {np.median(errors):.3f}, "
              f"p90 {np.percentile(errors, 90):.3f}")
    print("found = finder quad IoU >= 0.5 with the true card; good = ... with corners within 5% of its long side; "
          "read = the pipeline's identity there is right (one frame per trick, 0.5 s after its last card was laid)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
