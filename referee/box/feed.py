"""What ``referee run`` reads: referee events with their position in the source, plus "a frame
arrived" heartbeats (the watchdog and the no-frames fault watch those).

Two feeds share one small interface (:class:`Feed`):
- :class:`JsonlFeed`: a JSON Lines event log paced over time (tests, demos, the crash test),
  read by the strict reader :mod:`referee.jsonl` (the one ``referee replay`` uses, so both give
  a line the same verdict); the position is the line number, so a restarted run skips what the
  record already holds. A line the reader rejects comes as an item with ``rejected`` set, for
  the record to keep (a restart then skips it instead of dying on it again).
- :class:`VisionFeed`: camera -> vision pipeline, when ``referee.vision.pipeline`` is present.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from referee.errors import CameraError
from referee.jsonl import RawLine, check_raw, raw_lines

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedItem:
    event: dict[str, Any] | None  # None: a frame with nothing new on the table
    pos: int | None = None  # where in the source (line number of a log); None for live input
    #: a camera frame's time, on its heartbeat: the clock of the questions that wait for quiet
    #: (a trick gathered short with no play since); ``None`` for an event log
    t: float | None = None
    #: why the source's line at ``pos`` was rejected before reaching the referee (not JSON,
    #: NaN, ...: see :mod:`referee.jsonl`); ``event`` is then ``None``
    rejected: str | None = None


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
        self.file: IO[bytes] | None = None
        self.lines: Iterator[RawLine] = iter(())
        self.reopen()

    def reopen(self) -> None:
        if self.file is not None:
            self.file.close()
        try:
            self.file = self.path.open("rb")
        except OSError as exc:
            self.file = None
            raise CameraError(f"{self.path}: cannot read events: {exc.strerror or exc}") from exc
        self.lines = raw_lines(self.file)
        for _ in range(self.line):  # back to where we were
            next(self.lines, None)

    def skip_to(self, pos: int | None) -> None:
        self.skip = pos or 0

    def poll(self, timeout: float) -> list[FeedItem]:
        if self.file is None:
            raise CameraError(f"{self.path}: not open")
        now = self.clock()
        if now < self.next_due:
            self.sleep(min(timeout, self.next_due - now))
            return [FeedItem(None)]
        for raw in self.lines:
            self.line = raw.number
            if self.line <= self.skip:
                continue  # already in the record
            line = check_raw(raw)
            if line is None:
                continue  # blank
            self.next_due = now + self.pace_s
            if line.event is None:
                log.warning("%s:%d: rejected: %s", self.path, self.line, line.error)
                return [FeedItem(None, self.line, rejected=line.error)]
            return [FeedItem(line.event, self.line)]
        self.finished = True
        return [FeedItem(None)]

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
