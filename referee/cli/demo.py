"""``referee demo``: a simulated game on video, refereed end to end, with no camera.

    referee demo                                   # briscola-4, italian cards, seed 1
    referee demo --game belotta --seed 3 --out /tmp/demo

It renders the game (``referee.vision.simulator``), calibrates the table from the first frame's
ArUco mat, runs the vision stage on every frame, feeds the play events to the rules core, prints
the calls as JSON Lines and the final score, and writes to the output folder:
``annotated.webm`` (a video any browser plays: quads, labels, seat zones, the current call;
5 frames a second, 640 px wide, unless ``--video-fps``/``--video-width`` say otherwise),
``screens/`` (the box's OLED screen for each call, as PNG), ``calls.jsonl``, ``events.jsonl``
and ``truth.jsonl``.

The vision stage is ``referee watch``'s live loop (finder + recogniser + play tracker +
confirmation of unsure plays) when a recogniser model is present; otherwise, or with
``--truth-vision``, the simulator's ground truth stands in behind the same interface, and the
demo says so.  Operator input (contracts, declarations, answers to confirm requests) comes from
a simulated operator who looks at the table, as the box's menu and buttons would give it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.errors import RefereeError
from referee.vision.simulator.harness import VIDEO_FPS, VIDEO_WIDTH, run_demo


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="briscola-4", help="briscola-2, briscola-4, briscola-chiamata, belotta, binocolo")
    parser.add_argument("--deck", default=None,
                        help="italian|french (default: the game's), 'random', or a face set like "
                             "invido_regional_lowres/napoletane")
    parser.add_argument("--seed", type=int, default=1, help="which random game (and table) to simulate")
    parser.add_argument("--out", default="demo-out", help="output folder (made if missing)")
    parser.add_argument("--texture", default="check", help="table cloth: check, stripes, felt, wood, a texture "
                                                           "name, or random")
    parser.add_argument("--fps", type=float, default=10.0, help="simulated camera frame rate")
    parser.add_argument("--truth-vision", action="store_true",
                        help="use the simulator's ground truth instead of the vision pipeline")
    parser.add_argument("--oracle", action="store_true",
                        help="template matching against the simulated print instead of the recogniser "
                             "(measures finder + tracker alone)")
    parser.add_argument("--trust-after-tricks", type=int, default=0, metavar="N",
                        help="call an out-of-turn play without asking once the camera saw N whole tricks "
                             "in a row (default 0: always ask whether the seat on turn played first)")
    parser.add_argument("--no-video", action="store_true", help="skip writing annotated.webm")
    parser.add_argument("--video-fps", type=float, default=VIDEO_FPS,
                        help=f"frames per second kept in annotated.webm (default {VIDEO_FPS:g}; as many as --fps: every frame)")
    parser.add_argument("--video-width", type=int, default=VIDEO_WIDTH,
                        help=f"annotated.webm's width in pixels (default {VIDEO_WIDTH}; the camera's is 1280)")
    parser.add_argument("--quiet", action="store_true", help="print only the final score")


def run(args: argparse.Namespace) -> int:
    try:
        result = run_demo(
            game=args.game, deck=args.deck, seed=args.seed, out=Path(args.out), texture=args.texture,
            fps=args.fps, truth_vision=args.truth_vision, video=not args.no_video, quiet=args.quiet,
            oracle=args.oracle, trust_after=args.trust_after_tricks, video_fps=args.video_fps,
            video_width=args.video_width,
        )
    except RefereeError as exc:
        print(f"referee demo: {exc}", file=sys.stderr)
        return 2
    return 0 if result.calls else 1


