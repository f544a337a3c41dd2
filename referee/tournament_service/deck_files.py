"""The enrolment files of the pairs' decks, as the service sends them to the tables where the
decks play (``referee/table-N/deck``, retained; the assignment names the file's sha256 and
size, so the box checks what it got).

A file is read whole and checked by the same reader as the box's own enrolment (an ``.npz``
of plain arrays, never unpickled; shapes and values checked) when the tournament is
configured and again before it is sent: a file that is missing, too big or not an enrolment
is named, with the entrant whose deck it is.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from referee.errors import ConfigError, RefereeError
from referee.tournament.messages import MAX_DECK_FILE_BYTES


@dataclass(frozen=True)
class DeckFile:
    """One enrolment file, read and checked: its bytes as sent, and their sha256 (hex)."""

    path: Path
    data: bytes
    sha256: str

    @property
    def size(self) -> int:
        return len(self.data)


def read_deck_file(path: Path, owner: str) -> DeckFile:
    """``path`` read and checked as an enrolment file; :class:`ConfigError` naming the entrant
    ``owner`` and the file otherwise."""
    from referee.recognition.enrollment import Enrollment  # numpy: only with decks to send

    where = f"enrollment: {path} (the deck of {owner})"
    try:
        size = path.stat().st_size
        if size > MAX_DECK_FILE_BYTES:
            raise ConfigError(f"{where}: {size} bytes, more than the {MAX_DECK_FILE_BYTES} a box takes")
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read it: {exc.strerror or exc}") from exc
    try:
        Enrollment.load(path)
    except RefereeError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return DeckFile(path, data, hashlib.sha256(data).hexdigest())
