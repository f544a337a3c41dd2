"""The live loop's table logic (``referee watch``, whose command line is :mod:`referee.cli.watch`).

:class:`WatchLoop` takes each frame's :class:`~referee.vision.live.LiveVision` plays and the
operator's events into a :class:`~referee.table.session.TableSession`, and gives the lines to
print: the rules core's calls, confirm requests for unsure plays, the camera's status and
errors for rejected operator lines.  :class:`OperatorFeed` follows a JSON Lines file of operator
events as it grows.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from referee.captions import CaptionBoard
from referee.jsonl import JsonLineError, parse_line
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


def game_family(game: str) -> str:
    deck = get_game(game).deck
    return "italian" if next(iter(deck)).italian else "french"


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
            with Path(path).open(encoding="utf-8", errors="surrogateescape") as handle:
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
            # The one strict reader every event path shares (BOM, NaN, huge numbers, lone
            # surrogates, depth, size): a bad line is an error call, never a dead reader thread.
            try:
                event = parse_line(line, number)
            except JsonLineError as exc:
                self._queue.put({"event": "error", "detail": f"events {exc}"})
                continue
            if event is not None:
                self._queue.put(event)
