"""A play waiting in the arbiter's queue: a camera proposal, the operator's named card, or a
question the arbiter put before them (a missed card, a premise)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.table.proposal import ProposedPlay


@dataclass
class WaitingPlay:
    """One entry of :attr:`PlayArbiter.queue <referee.table.arbiter.PlayArbiter.queue>`.

    ``card`` is ``None`` only for a missed card the camera has no guess for.  What the arbiter
    learns while it waits is set on it: ``uncertain`` and ``violation`` (a sure read the rules
    would call a violation), ``checked`` (the seat on turn said it did not play: this play
    stands, out of turn or not)."""

    seat: str
    card: str | None
    confidence: float | None = None
    track: int | None = None
    alternatives: tuple[str, ...] = ()
    uncertain: bool = False
    #: the card a play already recorded was played as (a camera correction, or a premise)
    correction: str | None = None
    #: "did <seat> play?": the camera may have missed that seat's card
    missed: bool = False
    #: "was the deal's ``index``-th play really ``correction``?": a violation rests on it
    premise: bool = False
    index: int | None = None
    violation: str | None = None
    checked: bool = False
    #: the operator's card (applied unless a premise must be checked first); ``was_missed``:
    #: named after a "did <seat> play?" question
    named: bool = False
    was_missed: bool = False

    @classmethod
    def of(cls, play: ProposedPlay) -> WaitingPlay:
        return cls(play.seat, play.card, play.confidence, play.track, play.alternatives, play.uncertain,
                   play.correction)

    @property
    def sureness(self) -> float:
        """The camera's confidence; a play that gives none is a sure one."""
        return self.confidence if self.confidence is not None else 1.0
