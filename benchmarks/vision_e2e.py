"""End-to-end vision accuracy on simulated games: every game, several cloths and card prints.

For each (game, cloth, face set, seed) one whole deal is rendered as video
(``referee.vision.simulator``), the table is calibrated from the first frame's ArUco mat, the
vision stage (finder + recogniser + play tracker, as in ``referee demo``) turns frames into
play events, and the rules core referees them.  Against the simulator's truth it prints:

  plays right   true plays fed to the referee with the right card AND seat (target >= 99.9 %)
  misread       plays fed for a seat that did play, with another card
  phantom       plays fed for a seat that had nothing more to play (target 0)
  winners       tricks whose winner the referee called right (target all)
  confirms      plays the camera was unsure of; a simulated operator answered with the card
                on the table (so a confirmed play counts as right: that is how the box works);
                target <= 1 per 20 plays
  refused       confirms the operator had to refuse: asked about a seat that had laid nothing
                new (false alarms a club would hate; target 0)
  violations    violation calls the truth does not have (false calls, e.g. out_of_turn called
                when the camera missed the turn seat's card entirely); target 0

    .venv/bin/python benchmarks/vision_e2e.py                       # all games, 3 cloths, 2 prints
    .venv/bin/python benchmarks/vision_e2e.py --games briscola-4 --seeds 3 --fps 10
    .venv/bin/python benchmarks/vision_e2e.py --seeds 2 --only briscola-2:2   # one deal, its cloth/print as in --seeds 2
    .venv/bin/python benchmarks/vision_e2e.py --oracle             # finder + tracker, no recogniser
    .venv/bin/python benchmarks/vision_e2e.py --truth-vision       # checks the harness itself
    .venv/bin/python benchmarks/vision_e2e.py --seeds 1 --record build/e2e   # also save detections
    .venv/bin/python benchmarks/vision_e2e.py --seeds 1 --replay build/e2e   # tracker+arbiter only
    .venv/bin/python benchmarks/vision_e2e.py --seeds 2 --replay build/e2e --trust-after-tricks 2

``--replay`` referees the recorded detections again (seconds per deal instead of a minute or
more): for changes to the play tracker, the arbiter or the operator logic.  A replay decides
exactly as the recorded run would with today's tracker and arbiter; record again after any
change to the finder, the recogniser or the simulator (their detections are what the
recording holds).  ``--trust-after-tricks N``: the table's opt-in out-of-turn calls without
asking after N whole tricks (default 0 = always ask first, as the box and ``referee watch``).

Rendering plus vision costs about a minute per deal on this machine: run it with ``nice``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import astuple
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.paths import SharedDataMissing, require_shared
from referee.rules import available_games
from referee.vision.simulator.harness import run_demo
from referee.vision.simulator.random_scene import BENCHMARK_FACE_SETS as FACE_SETS
from referee.vision.simulator.random_scene import BENCHMARK_TEXTURES as TEXTURES
from referee.vision.simulator.recording import replay_demo
from referee.vision.simulator.scoring import Score, score

ITALIAN_GAMES = ("briscola-2", "briscola-4", "briscola-chiamata")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=None, help="default: every registered game")
    parser.add_argument("--seeds", type=int, default=2, help="deals per game")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--truth-vision", action="store_true", help="ground truth instead of the pipeline")
    parser.add_argument("--oracle", action="store_true",
                        help="template matching instead of the recogniser (finder + tracker alone)")
    parser.add_argument("--keep", metavar="DIR", help="keep each deal's calls/events/truth in DIR/GAME-SEED "
                        "(results vary from run to run: keep the bad deal to look at it)")
    parser.add_argument("--record", metavar="DIR", help="also save each deal's detections in DIR (for --replay)")
    parser.add_argument("--replay", metavar="DIR", help="referee the detections --record saved in DIR again, "
                        "without rendering or recognition (tracker and arbiter changes)")
    parser.add_argument("--only", nargs="*", default=None, metavar="GAME:SEED",
                        help="run only these deals, each with the cloth and print it gets in the whole list "
                             "(which depends on its place in the list of games and --seeds)")
    parser.add_argument("--trust-after-tricks", type=int, default=0, metavar="N",
                        help="the arbiter calls out of turn without asking after N whole tricks seen "
                             "(default 0: always asks first)")
    args = parser.parse_args(argv)
    if not args.replay:
        try:  # its cloths and card prints are the shared folder's
            require_shared("benchmarks/vision_e2e.py", "faces")
        except SharedDataMissing as exc:
            print(exc, file=sys.stderr)
            return 2
    games = args.games or available_games()
    totals = Score(0, 0, 0, 0, 0, 0)
    started = time.perf_counter()
    print(f"{'game':18} {'cloth':9} {'faces':40} seed  plays right  misread  phantom  winners  confirms refused "
          "violations    s")
    confirms = 0
    refused = 0
    violations = 0
    delays: list[float] = []
    run = 0
    done = 0
    for game in games:
        family = "italian" if game in ITALIAN_GAMES else "french"
        for seed in range(1, args.seeds + 1):
            texture = TEXTURES[run % len(TEXTURES)]
            faces = FACE_SETS[family][run % len(FACE_SETS[family])]
            run += 1
            if args.only is not None and f"{game}:{seed}" not in args.only:
                continue
            done += 1
            name = f"{game}-{seed}-{texture}-{faces.replace('/', '_')}{'-oracle' if args.oracle else ''}.npz"
            if args.replay:
                try:
                    result = replay_demo(Path(args.replay) / name, args.trust_after_tricks)
                except RefereeError as exc:
                    print(f"vision_e2e: {exc}", file=sys.stderr)
                    return 2
            else:
                with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
                    out = Path(args.keep) / f"{game}-{seed}" if args.keep else Path(tmp)
                    result = run_demo(game=game, deck=faces, seed=seed, out=out, texture=texture,
                                      fps=args.fps, truth_vision=args.truth_vision, video=False, quiet=True,
                                      oracle=args.oracle, record=Path(args.record) / name if args.record else None,
                                      trust_after=args.trust_after_tricks)
            sc = score(result)
            totals = Score(*(a + b for a, b in zip(astuple(totals), astuple(sc), strict=True)))
            confirms += result.confirms
            refused += result.refused
            false_calls = false_violations(result.calls, result.truth_calls)
            violations += false_calls
            delays += result.delays
            print(f"{game:18} {texture:9} {faces:40} {seed:4}  {sc.right:3}/{sc.plays:<3}   {sc.misread:5}  "
                  f"{sc.phantom:7}  "
                  f"{sc.winners_right:3}/{sc.tricks:<3}  {result.confirms:8} {result.refused:7} {false_calls:10} "
                  f"{result.seconds:5.0f}", flush=True)
    if not done:
        print(f"vision_e2e: no deal matches --only {' '.join(args.only or [])}", file=sys.stderr)
        return 2
    pct = 100.0 * totals.right / totals.plays if totals.plays else 0.0
    print(f"\nvision: {result.vision}")
    print(f"plays correctly attributed (card+seat): {totals.right}/{totals.plays} = {pct:.2f} % (target >= 99.9 %)")
    print(f"misread plays (right seat, wrong card): {totals.misread}")
    print(f"phantom plays: {totals.phantom} (target 0)")
    print(f"trick winners right: {totals.winners_right}/{totals.tricks} (target all)")
    per = f"1 per {totals.plays / confirms:.1f} plays" if confirms else "none"
    print(f"operator confirms asked: {confirms} = {per} (target <= 1 per 20; the simulated operator "
          "answered with the card on the table)")
    print(f"confirms the operator refused (asked about a seat that laid nothing new): {refused} (target 0)")
    print(f"false violation calls (not in the truth): {violations} (target 0)")
    if delays:
        ordered = sorted(delays)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"delay from a card lying still to its play event: median {statistics.median(delays):.2f} s, "
              f"p95 {p95:.2f} s (operator confirms included)")
    print(f"{done} deals in {time.perf_counter() - started:.0f} s")
    ok = pct >= 99.9 and totals.phantom == 0 and totals.winners_right == totals.tricks and violations == 0
    return 0 if ok else 1


def false_violations(calls: list[dict[str, Any]], truth: list[dict[str, Any]]) -> int:
    """Violation calls with no matching (seat, rule) violation in the truth's calls."""
    real = Counter((c.get("seat"), c.get("rule")) for c in truth if c.get("call") == "violation")
    false = 0
    for call in calls:
        if call.get("call") != "violation":
            continue
        key = (call.get("seat"), call.get("rule"))
        if real[key] > 0:
            real[key] -= 1
        else:
            false += 1
    return false


if __name__ == "__main__":
    sys.exit(main())
