"""What the table asks the camera's play tracker (``referee.vision.tracker.PlayTracker``; the
tests' ``tracker_doubles.StubTracker`` answers the same), so the table layer needs no vision
import."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol


class TrackerTimes(Protocol):
    @property
    def long_gone_s(self) -> float:
        """Seconds a played card may be unseen before its trick counts as gathered."""
        ...


class CameraTracker(Protocol):
    """The questions the arbiter asks about the table, and what it tells the tracker."""

    @property
    def config(self) -> TrackerTimes: ...

    def reset(self) -> None:
        """A new deal: nothing on the table is a play of it."""

    def missed_since(self, t: float) -> Any | None:
        """The latest card that lay still since ``t`` without becoming a play (a track with
        an ``id``), else None."""

    def best_guess(self, track: Any) -> str | None:
        """The likeliest card of such a track, for the question about it."""

    def trick_on_table(self, cards: Collection[str]) -> bool:
        """Whether any of a trick's cards was seen lately (all gone: it was gathered)."""

    def spot_clear(self, seat: str, t: float) -> bool:
        """Whether nothing lies on ``seat``'s play spot (no card of it can hide there)."""

    def settle(self, track_id: int | None, card: str, seat: str) -> None:
        """The operator named ``card`` as ``seat``'s play (of track ``track_id``, if any)."""
