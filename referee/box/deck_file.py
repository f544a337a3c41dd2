"""The enrolment file of the deck a table plays with, as the tournament service sends it
(``referee/table-N/deck``, retained): the assignment names the file's sha256 and size, the
file comes on its own topic, in either order. Once both are in and agree, the file is checked
(size bound, checksum, then the enrolment reader: an ``.npz`` of plain arrays, never unpickled,
shapes and values checked), written beside the record (written beside and renamed over, so a
power cut leaves the old file or the new one whole) and handed on as a :class:`DeckFile`;
the recogniser switches to it between two frames (``VisionFeed.use_enrollment``).

A file that fails any check is refused with :class:`DeckFileError` naming why: the box keeps
the enrolment it has and reports the refusal in its status. A file whose sha256 is not the
assignment's is not taken, but not refused at once either: it is the next deck's file heard
before its assignment (the service sends the file first), or the previous deck's retained file
that a restarted broker delivers again, and the right one follows within moments. Only when no
matching file came for ``wait_s`` is the mismatch reported (:meth:`DeckReceiver.overdue`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import RefereeError
from referee.tournament.messages import MAX_DECK_FILE_BYTES, Assignment

if TYPE_CHECKING:
    from referee.recognition.enrollment import Enrollment

log = logging.getLogger("referee.deck")


class DeckFileError(RefereeError):
    """A deck's enrolment file the box does not take (the message says why)."""

    def __init__(self, sha256: str, reason: str) -> None:
        super().__init__(f"the deck's enrolment file {sha256[:12]}: {reason}")
        self.sha256, self.reason = sha256, reason


@dataclass(frozen=True)
class DeckFile:
    """A deck's enrolment file, checked and kept at ``path``."""

    owner: str | None
    sha256: str
    path: Path
    enrollment: Enrollment


class DeckReceiver:
    """Pairs each assignment's expected file with the file heard (see the module docstring).
    ``folder``: where taken files are kept (``decks/`` beside the box's record)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.expected: tuple[str, int, str | None] | None = None  # (sha256, size, owner)
        self.data: bytes | None = None
        self.taken: str | None = None  # the sha256 of the last file handed on
        #: since when the file heard is not the one the assignment names (None: it is, or
        #: there is none); the mismatch is reported once, when overdue
        self.mismatch_since: float | None = None
        self.mismatch_told = False

    def expect(self, assignment: Assignment) -> DeckFile | None:
        """An assignment heard: its deck's file, if that is in already (else ``None``: it is
        on its way, or the deck has none)."""
        if assignment.deck_sha256 is None or assignment.deck_size is None:
            self.expected = None
            return None
        self.expected = (assignment.deck_sha256, assignment.deck_size, assignment.deck_owner)
        if self.data is None or hashlib.sha256(self.data).hexdigest() != assignment.deck_sha256:
            self._mismatch()  # the previous deck's file, or none yet: the new one is on its way
            return None
        return self._take(self.data)

    def received(self, payload: bytes) -> DeckFile | None:
        """A file heard on ``deck``: taken when the assignment expects it (another one waits,
        see :meth:`overdue`); one too big, or not an enrolment, raises :class:`DeckFileError`."""
        if not payload:
            return None  # the retained file cleared
        sha = hashlib.sha256(payload).hexdigest()
        if len(payload) > MAX_DECK_FILE_BYTES:  # not kept, not even in memory
            raise DeckFileError(sha, f"{len(payload)} bytes, more than the {MAX_DECK_FILE_BYTES} taken")
        self.data = payload
        if self.expected is None:
            return None  # no assignment heard yet: it names the file to take
        if sha != self.expected[0]:
            self._mismatch()
            return None
        return self._take(payload)

    def _mismatch(self) -> None:
        if self.mismatch_since is None:
            self.mismatch_since, self.mismatch_told = time.monotonic(), False

    def overdue(self, wait_s: float, now: float | None = None) -> DeckFileError | None:
        """The mismatch between the assignment's file and the one heard, once it lasted
        ``wait_s`` (told once: a file tampered with, or one the service could not send)."""
        if self.mismatch_since is None or self.mismatch_told or self.expected is None:
            return None
        if (time.monotonic() if now is None else now) - self.mismatch_since < wait_s:
            return None
        self.mismatch_told = True
        heard = "none" if self.data is None else f"sha256 {hashlib.sha256(self.data).hexdigest()[:12]}"
        return DeckFileError(self.expected[0], f"the file received ({heard}) is not the assignment's "
                                               f"after {wait_s:g} s: not taken")

    def _take(self, data: bytes) -> DeckFile | None:
        from referee.recognition.enrollment import Enrollment  # numpy: only with a deck to take

        assert self.expected is not None
        sha, size, owner = self.expected
        self.mismatch_since = None
        if sha == self.taken:
            return None  # the same file, heard again after a reconnect
        if len(data) != size:
            raise DeckFileError(sha, f"{len(data)} bytes, the assignment says {size}")
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{sha}.npz"
        tmp = self.folder / f".{sha}.npz.tmp"
        try:
            with tmp.open("wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise DeckFileError(sha, f"cannot be kept in {self.folder}: {exc.strerror or exc}") from exc
        try:
            enrollment = Enrollment.load(path)
        except RefereeError as exc:
            path.unlink(missing_ok=True)
            raise DeckFileError(sha, str(exc)) from exc
        self.taken = sha
        log.info("took the enrolment file of %s's deck (%s, %d bytes)", owner or "?", sha[:12], size)
        return DeckFile(owner, sha, path, enrollment)
