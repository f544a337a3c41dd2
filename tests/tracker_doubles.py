"""Test doubles of the play tracker's side of :class:`referee.table.arbiter.PlayArbiter`.

Shared by the arbiter's own tests (``tests/vision``) and the box's (``tests/box``); importable
as ``tracker_doubles`` however pytest is started because ``[tool.pytest.ini_options]``
puts ``tests/`` on ``sys.path`` (``pythonpath``).
"""

from __future__ import annotations

from typing import Any

from referee.vision.tracker import TrackerConfig


class Track:
    """A tracked card the camera could not settle: its id and best guess."""

    def __init__(self, id: int, guess: str) -> None:
        self.id, self.guess = id, guess


class StubTracker:
    """The tracker's answers to the arbiter's questions, set by each test: ``missed`` (the
    evidence of a missed card), ``on_table`` (whether the trick's cards still lie there),
    ``clear`` (whether the turn seat's play spot is empty: nothing hidden there).
    ``settled`` records what the operator's answers told the tracker, ``resets`` how often the
    live loop reset it (a new deal)."""

    def __init__(self, missed: Track | None = None) -> None:
        self.config = TrackerConfig()
        self.missed = missed
        self.on_table = True
        self.clear = True
        self.resets = 0
        self.settled: list[tuple[int | None, str, str]] = []

    def reset(self) -> None:
        self.resets += 1

    def missed_since(self, t: float) -> Track | None:
        return self.missed

    def trick_on_table(self, cards: Any) -> bool:
        return self.on_table

    def spot_clear(self, seat: str, t: float) -> bool:
        return self.clear

    def best_guess(self, track: Track) -> str | None:
        return track.guess

    def settle(self, track_id: int | None, card: str, seat: str) -> None:
        self.settled.append((track_id, card, seat))
