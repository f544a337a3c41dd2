"""The camera frames that decided each play, kept for a dispute: JPEG files in the state
directory, bounded in size, the oldest evicted first.

The feed offers each frame in which the tracker proposed a play (:meth:`FrameKeeper.offer`:
encoded once, held in memory, only the last few); when the box records a play that came from
that frame (its source position), the box asks to keep it under the match and the recorded
event's line (:meth:`FrameKeeper.keep`), the line ``referee history --export`` gives that event.
A question the operator answers minutes later still finds its frame while it is among the
last :data:`HELD_FRAMES` offered.

Keeping frames is a courtesy to a dispute, never a condition of refereeing: a frame that
cannot be encoded or written (full disk, read-only folder) is logged and counted, and
:meth:`keep` returns ``None``; nothing raises into the box.

    state_dir/frames/000003/00017.jpg     match 3, the event on line 17 of its export
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.rules import Referee

log = logging.getLogger(__name__)

FRAMES_DIR = "frames"
#: what all kept frames may take on disk together (about 500 full-HD frames: a dozen deals)
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
#: frames offered and not yet kept, held in memory (a question's frame waits here for the answer)
HELD_FRAMES = 32
JPEG_QUALITY = 85
_NAME = re.compile(r"^(\d{5,})\.jpg$")
_MATCH = re.compile(r"^(\d{6,})$")

Encoder = Callable[[Any], bytes]


@dataclass(frozen=True, order=True)
class KeptFrame:
    """A frame on disk: ``match``, ``event`` (the recorded event's line in the match's
    export, 1 = its first), the file and its size in bytes."""

    match: int
    event: int
    path: Path
    size: int


def jpeg(image: Any, quality: int = JPEG_QUALITY) -> bytes:
    """A BGR image (the camera's frame) as JPEG bytes."""
    import cv2  # the box keeps frames only when it has a camera, hence OpenCV

    ok, data = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return bytes(data.tobytes())


class FrameKeeper:
    """See the module docstring. ``folder``: ``state_dir/frames``; ``max_bytes``: the budget
    on disk; ``encode``: image -> JPEG bytes (tests inject their own)."""

    def __init__(self, folder: Path, max_bytes: int = DEFAULT_MAX_BYTES, encode: Encoder = jpeg,
                 held: int = HELD_FRAMES) -> None:
        self.folder, self.max_bytes, self.encode, self.held = folder, max_bytes, encode, held
        self._held: OrderedDict[int, bytes] = OrderedDict()  # source position -> JPEG
        self.faults = 0  # frames that could not be encoded or kept
        self.last_fault: str | None = None
        self._kept: dict[tuple[int, int], KeptFrame] | None = None  # read from disk on first use

    # -- from the feed ---------------------------------------------------------------------
    def offer(self, pos: int, image: Any) -> None:
        """The frame at source position ``pos`` proposed a play: encoded now, held until a
        recorded play asks for it (or :data:`HELD_FRAMES` newer ones push it out)."""
        try:
            data = self.encode(image)
        except Exception as exc:  # any encoder failure: the play is refereed all the same
            self._fault(f"frame {pos}: not encoded: {exc}")
            return
        self._held[pos] = data
        self._held.move_to_end(pos)
        while len(self._held) > self.held:
            self._held.popitem(last=False)

    # -- from the box ----------------------------------------------------------------------
    def keep(self, match: int, event: int, pos: int | None) -> KeptFrame | None:
        """Keep the frame offered at ``pos`` as the one that decided ``match``'s event on line
        ``event``; ``None`` when there is none (a play entered by hand) or it could not be
        written (logged, counted in :attr:`faults`)."""
        data = self._held.get(pos) if pos is not None else None
        if data is None:
            return None
        path = self.folder / f"{match:06d}" / f"{event:05d}.jpg"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError as exc:
            self._fault(f"{path}: not written: {exc.strerror or exc}")
            return None
        kept = KeptFrame(match, event, path, len(data))
        known = self._known()
        known[(match, event)] = kept
        self._evict(keep=kept)
        return kept

    # -- reading (history page, ``referee history --frames``) ---------------------------------
    def frames(self, match: int) -> list[KeptFrame]:
        """The match's kept frames, by event line."""
        return sorted(f for f in self._known().values() if f.match == match)

    def read(self, match: int, event: int) -> bytes | None:
        """The JPEG of ``match``'s event ``event``, or ``None`` (never kept, or evicted)."""
        frame = self._known().get((match, event))
        if frame is None:
            return None
        try:
            return frame.path.read_bytes()
        except OSError as exc:
            log.warning("%s: not readable: %s", frame.path, exc.strerror or exc)
            return None

    def total_bytes(self) -> int:
        return sum(f.size for f in self._known().values())

    # -- inside ----------------------------------------------------------------------------
    def _known(self) -> dict[tuple[int, int], KeptFrame]:
        if self._kept is None:
            self._kept = {(f.match, f.event): f for f in scan(self.folder)}
        return self._kept

    def _evict(self, keep: KeptFrame) -> None:
        """Over the budget: the oldest frames go (lowest match, then lowest event), never the
        one just kept."""
        known = self._known()
        total = sum(f.size for f in known.values())
        for frame in sorted(known.values()):
            if total <= self.max_bytes:
                break
            if frame == keep:
                continue
            try:
                frame.path.unlink(missing_ok=True)
            except OSError as exc:
                self._fault(f"{frame.path}: not evicted: {exc.strerror or exc}")
                continue
            del known[(frame.match, frame.event)]
            total -= frame.size
            _remove_if_empty(frame.path.parent)

    def _fault(self, why: str) -> None:
        self.faults += 1
        self.last_fault = why
        log.warning("frames for disputes: %s", why)


def scan(folder: Path) -> list[KeptFrame]:
    """The frames kept in ``folder`` (files of other names are left alone)."""
    found: list[KeptFrame] = []
    try:
        matches = [d for d in folder.iterdir() if d.is_dir() and _MATCH.match(d.name)]
    except OSError:
        return found  # no folder yet, or unreadable: nothing kept
    for match_dir in matches:
        try:
            files = list(match_dir.iterdir())
        except OSError:
            continue
        for path in files:
            named = _NAME.match(path.name)
            if named is None:
                continue
            try:
                size = path.stat().st_size
            except OSError:
                continue
            found.append(KeptFrame(int(match_dir.name), int(named.group(1)), path, size))
    return sorted(found)


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not empty (or already gone): fine either way
        folder.rmdir()


@dataclass(frozen=True)
class PlayFrame:
    """A kept frame with the play it decided: the deal and trick it went into, who laid which
    card (as recorded: the operator's answer when one was asked)."""

    event: int
    deal: int
    trick: int
    seat: str
    card: str
    frame: KeptFrame

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.event, "deal": self.deal, "trick": self.trick, "seat": self.seat,
                "card": self.card, "bytes": self.frame.size}


def play_frames(events: Sequence[Mapping[str, Any]], kept: Sequence[KeptFrame]) -> list[PlayFrame]:
    """Each kept frame of a match with its play: the recorded ``events`` run through the rules
    core (so an undo or a redeal numbers the tricks as the table saw them)."""
    by_line = {f.event: f for f in kept}
    referee = Referee()
    out: list[PlayFrame] = []
    for line, event in enumerate(events, start=1):
        deal = referee.deal
        spot = (deal.number, deal.trick_number) if deal is not None and event.get("event") == "play" else None
        with contextlib.suppress(RefereeError):  # rejected when recorded: rejected again, harmlessly
            referee.apply(event)
        frame = by_line.get(line)
        if spot is not None and frame is not None:
            out.append(PlayFrame(line, spot[0], spot[1], str(event.get("seat")), str(event.get("card")), frame))
    return out
