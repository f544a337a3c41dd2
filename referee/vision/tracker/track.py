"""One tracked card: where it lies, how it was read frame by frame, what it was played as; and
the geometry of a read (its pose: centre and long side's angle)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from referee.cards import BACK
from referee.vision.detections import Detections

Point = tuple[float, float]
#: where and how a read's quad lay: centre x, y and its long side's angle (degrees, mod 180)
Pose = tuple[float, float, float]


@dataclass
class Track:
    id: int
    centre: Point
    origin: Point  # first sighting: where the card came from
    size: float  # card long side (px)
    first_t: float
    last_t: float
    anchor: Point
    still_since: float
    #: other centres the still card's quads were fitted at (see ``TrackerConfig.still_spots``)
    spots: list[Point] = field(default_factory=list)
    votes: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    reads: int = 0
    moved: bool = False  # seen at two places before settling: origin is meaningful
    played: str | None = None  # the card code once it was played
    seat: str | None = None  # the seat it was played by
    finished_t: float | None = None  # when its trick was seen over
    trick: int = 0  # the rules' trick number when it was played
    rejected: bool = False  # read for long and never even a little sure: not a card
    self_t: float = 0.0  # when a played card was last read as itself (or was played, named)
    named: bool = False  # the operator said what it is: never doubted
    after: list[tuple[str, float]] = field(default_factory=list)  # reads on its spot once played
    doubted: bool = False  # a correction was asked about it already
    #: poses of its reads since it lay still (with what each read put first); once played,
    #: only those read as the played card, and its later reads as itself
    poses: list[tuple[Pose, str]] = field(default_factory=list)

    last_vote: list[tuple[str, float]] = field(default_factory=list)  # this frame's read
    history: list[list[tuple[str, float]]] = field(default_factory=list)  # each frame's read

    def vote(self, top: Sequence[tuple[str, float]], pose: Pose) -> None:
        for code, p in top:
            self.votes[code] += float(p)
        self.reads += 1
        self.last_vote = list(top)
        if top:
            self.history.append([(str(c), float(p)) for c, p in top])
            self.poses.append((pose, str(top[0][0])))  # one per read while unplayed

    def pose(self) -> Pose:
        """Where it lies and its latest read's angle (NaN, matching no pose, when unknown)."""
        angle = self.poses[-1][0][2] if self.poses else float("nan")
        return (self.centre[0], self.centre[1], angle)

    def clear_votes(self) -> None:
        self.votes.clear()
        self.reads = 0
        self.history = []
        self.poses = []

    def revote(self, top: Sequence[tuple[str, float]], pose: Pose) -> None:
        """Another hypothesis of this card in the same frame: one read per frame, the surer one
        (a quad off by half a card reads as some other card, rarely with confidence)."""
        if not self.last_vote or sureness(top) > sureness(self.last_vote):
            for code, p in self.last_vote:
                self.votes[code] -= float(p)
            if self.last_vote:
                self.reads -= 1
                self.history.pop()
                self.poses.pop()
            self.vote(top, pose)


#: poses a track keeps (the latest)
MAX_POSES = 30


def add_pose(track: Track, pose: Pose, card: str) -> None:
    track.poses.append((pose, str(card)))
    del track.poses[:-MAX_POSES]


def long_side_angles(quad: np.ndarray[Any, Any]) -> list[float]:
    """Each quad's long side's direction in degrees, 0-180 (a card's two ends look alike)."""
    if not len(quad):
        return []
    a = quad[:, 1] - quad[:, 0]
    b = quad[:, 2] - quad[:, 1]
    v = np.where((np.linalg.norm(a, axis=1) >= np.linalg.norm(b, axis=1))[:, None], a, b)
    return [float(x) for x in np.degrees(np.arctan2(v[:, 1], v[:, 0])) % 180.0]


def angle_gap(a: float, b: float) -> float:
    """Degrees between two long-side directions (mod 180)."""
    return abs((a - b + 90.0) % 180.0 - 90.0)


def sureness(top: Sequence[tuple[str, float]]) -> float:
    """How sure a read is of some face (a quad over the cloth beside a card reads ``back``)."""
    return float(top[0][1]) if top and top[0][0] != BACK else 0.0


def top_reads(dets: Detections, di: int) -> list[tuple[str, float]]:
    top = list(dets.top[di]) if dets.top[di] else []
    if not top:
        top = [(str(dets.card[di]), float(dets.confidence[di]))]
    return top

