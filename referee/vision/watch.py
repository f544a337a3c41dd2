"""``referee watch --source SRC --game G --layout FILE``: the live loop, calls out as JSON Lines.

    referee watch --source picamera --game briscola-4 --layout layout.json --annotate out.webm
    referee watch --source sim:briscola-4:7 --game briscola-4        # the simulator's own layout

Each frame goes through :class:`~referee.vision.live.LiveVision` (finder, recogniser, play
tracker); plays go into the rules core and its calls are printed, one JSON object a line, with
the frame time ``t``.  Besides the core's calls the loop prints:

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
import queue
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from referee.captions import CaptionBoard
from referee.errors import RefereeError
from referee.rules import Referee, get_game
from referee.table.answer import Answer, AnswerError
from referee.table.arbiter import NEVER_TRUSTED, PlayArbiter
from referee.table.question import Question
from referee.table.refused import Refused
from referee.table.session import TableSession, Told
from referee.vision.detections import Image
from referee.vision.live import LiveVision

Event = dict[str, Any]
TRUMP_GAMES = frozenset({"briscola-2", "briscola-4"})


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
                                         enrollment=args.enrollment)
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


def game_family(game: str) -> str:
    deck = get_game(game).deck
    return "italian" if next(iter(deck)).italian else "french"


def _emit(lines: Sequence[Mapping[str, Any]]) -> None:
    for line in lines:
        print(json.dumps(line), flush=True)


class WatchLoop:
    """Camera plays + operator events -> a :class:`~referee.table.session.TableSession` (the
    rules core and the arbiter's decisions: confirmations, missed plays, quiet after the
    deal); this loop adds what the camera alone knows: the deal dealt once the face-up
    briscola is read, the camera's status, the video's captions."""

    def __init__(
        self,
        live: LiveVision,
        referee: Referee,
        game: str,
        seats: Sequence[str],
        confirm_below: float = 0.8,
        trust_after: int = NEVER_TRUSTED,
    ) -> None:
        self.live = live
        self.game = game
        self.seats = list(seats)
        self.session = TableSession(live.tracker, referee=referee, confirm_below=confirm_below,
                                    trust_after=trust_after)
        self.session.listeners.append(self._heard)
        #: the questions asked during the latest :meth:`step` or :meth:`camera` (the demo's
        #: simulated operator answers them)
        self.asked: list[Question] = []
        self.trump_votes: Counter[str] = Counter()
        self.dealt = False
        self.camera_ok = True
        self.captions = CaptionBoard()
        self.status_text = ""

    @property
    def referee(self) -> Referee:
        return self.session.referee

    @property
    def arbiter(self) -> PlayArbiter:
        assert self.session.arbiter is not None  # a watch loop always has the camera's tracker
        return self.session.arbiter

    @property
    def t(self) -> float:
        return self.arbiter.t

    @property
    def last_text(self) -> str:
        """The video's caption now: the latest call or question, after a trick's still held."""
        return self.captions.text(self.t)

    def camera(self, ok: bool, detail: str, operator: Sequence[Event]) -> list[Event]:
        self.asked = []
        out: list[Event] = []
        if ok != self.camera_ok:
            self.camera_ok = ok
            self.status_text = "" if ok else "CAMERA: no frames"
            out.append({"call": "camera", "status": "ok" if ok else "degraded", "detail": detail})
        for event in operator:  # the operator may act while the camera is down
            out += self._operator(event)
        return out

    def step(self, image: Image, t: float, operator: Sequence[Event]) -> list[Event]:
        self.asked = []
        self.session.tick(t)
        out: list[Event] = []
        for event in operator:
            out += self._operator(event)
        plays = self.live.update(image, t)
        if self.dealt and self.session.deal_over():
            # Between deals nothing on the table is a play: wait quietly for the next deal.
            self.arbiter.clear()
            if self.game in TRUMP_GAMES:
                self.dealt, self.trump_votes = False, Counter()
            return out
        if not self.dealt:
            out += self._auto_deal()
            return out  # nothing on the table is a play before the deal
        return out + self._told(self.session.camera(plays, t))

    def _told(self, told: Told | Refused) -> list[Event]:
        """The session's output as lines; a question it asks is the video's caption."""
        if isinstance(told, Refused):
            return [told.to_call()]
        if told.question is not None:
            question = told.question
            self.asked.append(question)
            was = f" (not {question.correction})" if question.correction else ""
            self.captions.show(f"CONFIRM? {question.seat} {question.card or '(missed?)'}{was}", self.t)
        return told.lines()

    # -- operator ------------------------------------------------------------------------
    def _operator(self, event: Event) -> list[Event]:
        if not isinstance(event, dict) or "event" not in event:
            return [{"call": "error", "detail": f"not an event: {event!r}"}]
        if event["event"] == "error":  # a line the feed could not read
            return [{"call": "error", "detail": event.get("detail", "")}]
        if event["event"] == "confirm":
            try:
                answer = Answer.from_event(event)
            except AnswerError as exc:
                return [{"call": "error", "detail": str(exc)}]
            return self._told(self.session.answer(None, answer))
        if event["event"] == "deal":
            self.dealt = True
            return _lines(self.session.submit(event))
        return _lines(self.session.apply(event))

    def _auto_deal(self) -> list[Event]:
        if self.game not in TRUMP_GAMES:
            self.dealt = True
            return _lines(self.session.apply({"event": "deal", "game": self.game, "seats": self.seats}))
        dets = self.live.last
        zone_of = self.live.pipeline.layout
        for i in range(len(dets)):
            centre = tuple(float(v) for v in dets.centers[i])
            if zone_of is not None and zone_of.zone_of(centre) == "stock" and dets.confidence[i] >= 0.6:
                self.trump_votes[str(dets.card[i])] += 1
        if self.trump_votes:
            card, n = self.trump_votes.most_common(1)[0]
            if n >= 5:
                self.dealt = True
                deal = {"event": "deal", "game": self.game, "seats": self.seats, "trump_card": card}
                return _lines(self.session.apply(deal))
        self.status_text = "waiting for the briscola"
        return []

    def _heard(self, event: Mapping[str, Any], calls: list[Event]) -> None:
        """Every event the rules core took: the captions follow its calls."""
        if event.get("event") == "deal":
            self.status_text = ""
        for call in calls:
            self.captions.add(call, self.t)


def _lines(done: list[Event] | Refused) -> list[Event]:
    return [done.to_call()] if isinstance(done, Refused) else done


class OperatorFeed:
    """Operator events from a JSON Lines file (followed as it grows) or ``-`` (stdin)."""

    def __init__(self, path: str) -> None:
        self._queue: queue.Queue[Event] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self._thread.start()

    def poll(self) -> list[Event]:
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def stop(self) -> None:
        self._stop.set()

    def _read(self, path: str) -> None:
        if path == "-":
            self._follow(sys.stdin, follow=False)
            return
        try:
            with Path(path).open(encoding="utf-8") as handle:
                self._follow(handle, follow=True)
        except OSError as exc:
            self._queue.put({"event": "error", "detail": f"cannot read events {path}: {exc}"})

    def _follow(self, handle: TextIO, follow: bool) -> None:
        number = 0
        while not self._stop.is_set():
            line = handle.readline()
            if not line:
                if not follow:
                    return
                time.sleep(0.05)
                continue
            number += 1
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as exc:
                event = {"event": "error", "detail": f"events line {number}: {exc}"}
            self._queue.put(event if isinstance(event, dict) else {"event": "error", "detail": f"line {number}"})
