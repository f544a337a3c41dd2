"""What ``referee run`` reads: referee events with their position in the source, plus "a frame
arrived" heartbeats (the watchdog and the no-frames fault watch those).

Two feeds share one small interface (:class:`Feed`):
- :class:`JsonlFeed`: a JSON Lines event log paced over time (tests, demos, the crash test);
  the position is the line number, so a restarted run skips what the record already holds.
- :class:`VisionFeed`: camera -> vision pipeline, when ``referee.vision.pipeline`` is present.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from referee.errors import CameraError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedItem:
    event: dict[str, Any] | None  # None: a frame with nothing new on the table
    pos: int | None = None  # where in the source (line number of a log); None for live input
    #: a camera frame's time, on its heartbeat: the clock of the questions that wait for quiet
    #: (a trick gathered short with no play since); ``None`` for an event log
    t: float | None = None


class Feed(Protocol):
    finished: bool

    def poll(self, timeout: float) -> list[FeedItem]:
        """What arrived within ``timeout`` s; raises :class:`CameraError` when input is lost."""
        ...

    def skip_to(self, pos: int | None) -> None: ...

    def reopen(self) -> None: ...

    def close(self) -> None: ...

    # Optional, looked up with getattr: ``stock_card() -> str | None``, the card the camera
    # reads face up in the stock zone now (briscola's trump, belotta's turned card); without
    # it, a feed's ``vision`` stage is read (referee.box.stock). The box's deal-card menu
    # starts on it, so one OK confirms the next deal.


class JsonlFeed:
    """Events from a JSON Lines file, one every ``pace_s`` seconds (a heartbeat in between)."""

    def __init__(
        self,
        path: Path,
        pace_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path, self.pace_s, self.clock, self.sleep = path, pace_s, clock, sleep
        self.finished = False
        self.line = 0
        self.skip = 0
        self.next_due = 0.0
        self.file: IO[str] | None = None
        self.reopen()

    def reopen(self) -> None:
        if self.file is not None:
            self.file.close()
        try:
            self.file = self.path.open(encoding="utf-8")
        except OSError as exc:
            self.file = None
            raise CameraError(f"{self.path}: cannot read events: {exc.strerror or exc}") from exc
        for _ in range(self.line):  # back to where we were
            self.file.readline()

    def skip_to(self, pos: int | None) -> None:
        self.skip = pos or 0

    def poll(self, timeout: float) -> list[FeedItem]:
        if self.file is None:
            raise CameraError(f"{self.path}: not open")
        now = self.clock()
        if now < self.next_due:
            self.sleep(min(timeout, self.next_due - now))
            return [FeedItem(None)]
        while True:
            text = self.file.readline()
            if not text:
                self.finished = True
                return [FeedItem(None)]
            self.line += 1
            if self.line <= self.skip or not text.strip():
                continue  # already in the record / blank
            try:
                event = json.loads(text)
            except json.JSONDecodeError as exc:
                log.warning("%s:%d: not JSON, skipped: %s", self.path, self.line, exc)
                continue
            if not isinstance(event, dict):
                log.warning("%s:%d: not a JSON object, skipped", self.path, self.line)
                continue
            self.next_due = now + self.pace_s
            return [FeedItem(event, self.line)]

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
