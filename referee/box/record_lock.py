"""One writer per record: ``referee run`` holds an OS lock on ``referee.lock`` in the state
directory for its whole life; a second ``referee run`` on the same directory is refused with
the holder's pid and start time (written in the lock file) instead of interleaving its events
with the first one's.

The lock is ``flock`` on an open file: the kernel drops it when the holder exits, however it
exits (``kill -9``, power cut), so a stale lock file never blocks a restart.

    with RecordLock.acquire(state_dir):   # RecordLocked when another run holds it
        ...
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
from pathlib import Path
from types import TracebackType

from referee.box.state import DB_NAME, StateError

LOCK_NAME = "referee.lock"


class RecordLocked(StateError):
    """Another ``referee run`` writes this record; the message names its pid and start."""


class RecordLock:
    """The held lock (see the module docstring); :meth:`release` or leave the ``with``."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd, self.path = fd, path

    @classmethod
    def acquire(cls, state_dir: Path) -> RecordLock:
        path = state_dir / LOCK_NAME
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StateError(
                f"{state_dir / DB_NAME}: cannot open the match record (its lock {path}: {exc.strerror or exc})"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise RecordLocked(
                f"{state_dir}: the match record is in use by another `referee run` ({holder}); "
                "only one may write it: stop that one first (systemctl stop referee)"
            ) from None
        started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {started}\n".encode(), 0)
        return cls(fd, path)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the file drops the flock
            self.fd = -1

    def __enter__(self) -> RecordLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "pid unknown: it is just starting"
