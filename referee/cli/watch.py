"""``referee watch --source SRC --game G --layout FILE``: the live loop, calls out as JSON Lines.

    referee watch --source picamera --game briscola-4 --layout layout.json --annotate out.webm
    referee watch --source sim:briscola-4:7 --game briscola-4        # the simulator's own layout

Each frame goes through :class:`~referee.vision.live.LiveVision` (finder, recogniser, play
tracker); plays go into the rules core and its calls are printed, one JSON object a line, with
the frame time ``t``.  The table logic is :mod:`referee.vision.watch`.  Besides the core's calls the loop prints:

* ``{"call": "confirm", "seat", "card", "confidence", "alternatives"}`` when the camera is
  unsure of a play (with ``"correction": X`` when a card played as X now reads surely as
  ``card``: yes replaces the play).  The play waits (and the plays after it queue behind it) until the operator
  answers with ``{"event": "confirm"}`` (yes), ``{"event": "confirm", "card": "coppe_2"}`` (it
  was that card) or ``{"event": "confirm", "accept": false}`` (no play).
* ``{"call": "camera", "status": "degraded"|"ok", "detail"}`` when frames stop and come back;
  nothing is lost meanwhile, the loop just waits.
* ``{"call": "error", "detail"}`` for operator lines that are not valid JSON or are rejected.

A play from a seat not on turn is asked about ("did the seat on turn play?") before it is
called out of turn, unless ``--trust-after-tricks N`` lets a camera that saw N whole tricks in
a row call it at once (see :mod:`referee.table.arbiter`).

Operator events (``deal``, ``confirm``, ``undo``, contracts...) come from ``--events FILE``
(JSON Lines, followed as it grows, ``-`` for stdin); a ``sim:`` source without ``--events``
plays the simulated operator (its deal and contract events, never its plays).  Without a
``deal`` event the loop deals itself: briscola games wait until the face-up briscola is read in
the stock zone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import RefereeError
from referee.rules import Referee
from referee.table.arbiter import NEVER_TRUSTED
from referee.vision.live import LiveVision
from referee.vision.watch import Event, OperatorFeed, WatchLoop, game_family


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, help="picamera, a webcam index, a video, an image glob, sim:GAME:SEED")
    parser.add_argument("--game", required=True, help="briscola-2, briscola-4, briscola-chiamata, belotta, binocolo")
    parser.add_argument("--layout", help="layout file from `referee calibrate` (not needed for sim: sources)")
    parser.add_argument("--deck", choices=("italian", "french"), help="recogniser (default: the game's deck)")
    parser.add_argument("--annotate", metavar="OUT.webm", help="write annotated frames to this video (.webm plays in browsers; .mp4 too)")
    parser.add_argument("--events", metavar="FILE", help="operator events, JSON Lines (followed; - = stdin)")
    parser.add_argument("--models", help="model folder (default: the committed models/)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--enrollment", help="the club's deck, from `referee enroll` (.npz)")
    parser.add_argument("--confirm-below", type=float, default=0.8, help="ask the operator below this confidence")
    add_trust_argument(parser)
    parser.add_argument("--max-frames", type=int, default=0, help="stop after this many frames (0 = no limit)")


def add_trust_argument(parser: argparse.ArgumentParser) -> None:
    """``--trust-after-tricks N`` (``referee watch`` and ``referee demo``)."""
    parser.add_argument(
        "--trust-after-tricks", type=_tricks, default=NEVER_TRUSTED, metavar="N",
        help="call an out-of-turn play without asking once the camera saw N whole tricks in a row "
             "(default 0: always ask whether the seat on turn played first; a camera that missed "
             "that card entirely would call it falsely)")


def _tricks(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 (always ask) or a number of tricks, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from referee.recognition import CardClassifier
    from referee.recognition.views import LIVE_VIEWS
    from referee.vision.annotate import AnnotatedVideo, annotate
    from referee.vision.layout import TableLayout
    from referee.vision.sources import EndOfSource, SimulatorSource, open_source

    try:
        family = args.deck or game_family(args.game)
        source = open_source(args.source)
        if args.layout:
            layout = TableLayout.load(args.layout)
        elif isinstance(source, SimulatorSource):
            layout = source.game.layout
        else:
            raise RefereeError("--layout is required for a camera: make one with `referee calibrate`")
        classifier = CardClassifier.load(family, model_dir=args.models, threads=args.threads,
                                         enrollment=args.enrollment, views=LIVE_VIEWS)
    except RefereeError as exc:
        print(f"referee watch: {exc}", file=sys.stderr)
        return 2
    referee = Referee()
    live = LiveVision.create(layout, classifier, referee, apply_plays=False)
    loop = WatchLoop(live, referee, args.game, layout.seats, args.confirm_below, args.trust_after_tricks)
    feed = OperatorFeed(args.events) if args.events else None
    scripted: list[tuple[float, Event]] = []
    if feed is None and isinstance(source, SimulatorSource):
        timed = sorted(source.game.timed_events, key=lambda te: te[0])
        scripted = [(t, dict(e)) for t, e in timed if e.get("event") != "play"]
    video = AnnotatedVideo(args.annotate) if args.annotate else None
    frames = 0
    try:
        while not args.max_frames or frames < args.max_frames:
            try:
                frame = source.read()
            except EndOfSource:
                break
            operator = feed.poll() if feed is not None else []
            if frame is not None and scripted:  # a simulated table's operator: deal, contracts
                while scripted and scripted[0][0] <= frame.t + 1e-9:
                    operator.append(scripted.pop(0)[1])
            if frame is None:
                _emit(loop.camera(False, source.last_error or "no frame", operator))
                time.sleep(0.05)
                continue
            if frames == 0:
                layout.check_frame(frame.image.shape)
            frames += 1
            _emit(loop.camera(True, "", []) + loop.step(frame.image, frame.t, operator))
            if video is not None:
                video.write(annotate(frame.image, layout, live.seen(), loop.last_text, frame.t, loop.status_text))
    except RefereeError as exc:  # a layout that does not fit the frames
        print(f"referee watch: {exc}", file=sys.stderr)
        return 2
    finally:
        source.close()
        if video is not None:
            video.close()
        if feed is not None:
            feed.stop()
    return 0


def _emit(lines: Sequence[Mapping[str, Any]]) -> None:
    for line in lines:
        print(json.dumps(line), flush=True)
