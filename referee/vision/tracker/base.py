"""What every stage of the play tracker shares: its tracks, the card size, the play spots, the
rules view, and the few questions each stage asks about them (a card's size near a track,
the seat of a spot, whether a card is still possible, whether a centre is in the play area)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from referee.vision.card_size import ReadSizes
from referee.vision.tracker.config import TrackerConfig
from referee.vision.tracker.rules_view import RulesView
from referee.vision.tracker.track import Point, Track


class TrackerBase:
    """The tracker's state and shared helpers (:class:`~referee.vision.tracker.PlayTracker`)."""

    def __init__(
        self,
        seat_of: Callable[[Sequence[float]], str],
        zone_of: Callable[[Sequence[float]], str] | None = None,
        rules: RulesView | None = None,
        config: TrackerConfig | None = None,
        play_spots: Mapping[str, Point] | None = None,
    ) -> None:
        self.seat_of = seat_of
        self.play_spots = dict(play_spots or {})
        self.zone_of = zone_of
        self.rules = rules
        self.config = config or TrackerConfig()
        self.tracks: list[Track] = []
        self._next_id = 0
        #: long sides of recent reads: the card size (a quad spanning two cards is no measure)
        self._sizes = ReadSizes(window=300)
        self._size = 0.0
        self._now = 0.0  # time of the latest frame
        #: still cards in the play area that never became plays (unreadable, lost): evidence
        #: that a play may have been missed, newest last
        self.unexplained: list[Track] = []
        #: why each track became a play, was adopted or rejected (``trace=True``; diagnosis)
        self.trace: list[dict[str, Any]] | None = None

    def _card(self, track: Track) -> float:
        """A card's long side near ``track``: the usual size of reads, never more than the
        track's first read (which may be a quad spanning two overlapping cards)."""
        return min(track.size, self._size) if self._size > 0 else track.size

    def _plausible(self, code: str) -> bool:
        return True if self.rules is None else bool(self.rules.plausible(code))

    def _seat_of_spot(self, centre: Point, use_turn: bool = True) -> str:
        """The seat whose play spot is nearest; a near tie goes to the seat whose turn it is
        (a half-hidden card's quad drifts toward its neighbour's spot)."""
        if not self.play_spots:
            return self.seat_of(centre)
        ranked = sorted(self.play_spots, key=lambda s: np.hypot(*np.subtract(self.play_spots[s], centre)))
        first = ranked[0]
        if len(ranked) > 1 and self.rules is not None and use_turn:
            d1 = float(np.hypot(*np.subtract(self.play_spots[first], centre)))
            d2 = float(np.hypot(*np.subtract(self.play_spots[ranked[1]], centre)))
            turn = self.rules.turn()
            if d2 <= self.config.spot_tie * max(d1, 1.0) and turn in ranked[:2]:
                return str(turn)
        return first

    def _finished(self, track: Track, t: float) -> float:
        """When the tracker first saw ``track``'s trick over (the rules moved past it)."""
        if track.finished_t is None:
            track.finished_t = t
        return track.finished_t

    def _in_play_zone(self, centre: Point) -> bool:
        zones = self.config.play_zones
        return self.zone_of is None or zones is None or self.zone_of(centre) in zones

    def _note(self, track: Track, t: float, what: str, **extra: Any) -> None:
        """Record a decision about ``track`` (when tracing): the data to tell why it happened."""
        if self.trace is None:
            return
        reads = max(track.reads, 1)
        votes = sorted(track.votes.items(), key=lambda kv: -kv[1])[:3]
        self.trace.append({
            "t": round(t, 2), "what": what, "track": track.id, "first_t": round(track.first_t, 2),
            "still_since": round(track.still_since, 2), "reads": track.reads, "moved": track.moved,
            "origin": [round(v) for v in track.origin], "centre": [round(v) for v in track.centre],
            "votes": [(c, round(v / reads, 2)) for c, v in votes], **extra,
        })

    def _unexplained(self, track: Track, t: float) -> None:
        """Remember a still card that never became a play (see :meth:`missed_since`)."""
        keep = t - self.config.missed_memory_s
        self.unexplained = [tr for tr in self.unexplained if tr.last_t >= keep and tr is not track] + [track]
