"""What feeds a record, named by what it is, so the record can keep its position and refuse to
resume one source's match from another.

An event log is named by its path and a digest of its first line (the same file rewritten with
another match is another source); a camera by its ``camera.source``. A source that can be read
again from its start after a restart (a log, a video file, a simulation) is *positional*: the
record keeps where it was read to. A live camera is not: its frames are gone.

>>> events_source(Path("game.jsonl"))  # doctest: +SKIP
SourceRef(key='events:/home/pi/game.jsonl#3f2a...', positional=True)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from referee.jsonl import MAX_LINE_BYTES

#: ``camera.source`` kinds whose frames cannot be read again
LIVE_KINDS = ("picamera2", "usb")


@dataclass(frozen=True)
class SourceRef:
    key: str
    positional: bool

    def describe(self) -> str:
        """The key for a message: ``events:/path/game.jsonl`` without its digest."""
        return self.key.split("#", 1)[0]


def events_source(path: Path) -> SourceRef:
    """An event log: its absolute path and a digest of its first line."""
    return SourceRef(f"events:{path.resolve()}#{_first_line_digest(path)}", True)


def camera_source(camera_source: str, sim_events: Path | None = None) -> SourceRef:
    """A camera, video or simulation by its ``camera.source`` (and the event log a
    simulation acts out, which makes it another game)."""
    key = f"camera:{camera_source}"
    if sim_events is not None:
        key += f"+{events_source(sim_events).key}"
    return SourceRef(key, camera_source.partition(":")[0] not in LIVE_KINDS)


def describe_key(key: str) -> str:
    """A stored key for a message (see :meth:`SourceRef.describe`)."""
    return key.split("#", 1)[0]


def _first_line_digest(path: Path) -> str:
    try:
        with path.open("rb") as f:
            first = f.readline(MAX_LINE_BYTES + 2)
    except OSError:
        return "unreadable"  # opening the feed says why
    return hashlib.sha256(first).hexdigest()[:16] if first else "empty"
