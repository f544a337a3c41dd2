"""The referee's state as plain data: one deal (:class:`DealState`) and the match around it.

The engine (:mod:`referee.rules.referee`) owns and mutates these; games read them in their
hooks and keep their own per-deal state in ``DealState.data``: a :class:`DealData` dataclass
of the game's own, with typed fields, read back with ``deal.data_as(TheGamesDealData)``; and
their per-match state likewise in ``MatchState.data`` (a :class:`MatchData`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from referee.cards import Card
from referee.rules.calls import DealEndCall, MatchEndCall
from referee.rules.options import GameOptions
from referee.rules.tricks import Obligation, Trick

Phase = Literal["contract", "play", "over"]
DataT = TypeVar("DataT", bound="DealData")
MatchDataT = TypeVar("MatchDataT", bound="MatchData")


def team_name(team: tuple[str, ...] | list[str]) -> str:
    """A team's name is its seats joined by ``+`` (``("N", "S")`` -> ``"N+S"``)."""
    return "+".join(team)


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended: card ``points`` per team (or seat), ``winner`` (``None`` = tie / void),
    game-specific ``extra`` fields for the ``deal_end`` call (declarations, credits...)."""

    points: Mapping[str, int]
    winner: str | None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def call(self) -> DealEndCall:
        return DealEndCall(points=dict(self.points), winner=self.winner, extra=dict(self.extra))


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """The match is over: ``winner`` (``None`` = drawn) and the final ``score``."""

    winner: str | None
    score: Mapping[str, int]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def call(self) -> MatchEndCall:
        return MatchEndCall(winner=self.winner, score=dict(self.score), extra=dict(self.extra))


@dataclass(slots=True)
class DealData:
    """A game's own per-deal state (``DealState.data``).  A game that keeps any subclasses this
    as a dataclass with typed fields, sets a fresh one in ``start_deal`` and reads it with
    :meth:`DealState.data_as`; this base (briscola's) holds nothing."""


@dataclass(slots=True)
class MatchData:
    """A game's own per-match state (``MatchState.data``), like :class:`DealData`: set in
    ``new_match``, read with :meth:`MatchState.data_as`; this base holds nothing."""


@dataclass(slots=True)
class PendingObligation:
    """A play whose legality waits for proof: ``seat`` played ``card`` in trick ``trick``."""

    trick: int
    card: Card
    obligations: list[Obligation]


@dataclass(slots=True)
class DealState:
    """Everything the referee knows about the deal in progress."""

    game: str
    number: int  #: 1-based deal number within the match
    seats: tuple[str, ...]  #: in play order
    dealer: str
    options: GameOptions
    trump_card: Card | None = None  #: face-up card under the stock (briscola)
    turned: Card | None = None  #: belotta's turned card
    trump: str | None = None  #: trump suit, once known (games set it)
    phase: Phase = "play"
    tricks: list[Trick] = field(default_factory=list)  #: completed tricks
    trick: Trick | None = None  #: the trick in progress
    turn: str | None = None  #: whose turn it is (None before play / after the deal)
    seen: Counter[Card] = field(default_factory=Counter)  #: cards seen face up this deal
    known: dict[str, list[Card]] = field(default_factory=dict)  #: shown but not yet played
    played: dict[str, list[Card]] = field(default_factory=dict)  #: each seat's plays
    won: dict[str, list[Card]] = field(default_factory=dict)  #: cards each seat took
    points: dict[str, int] = field(default_factory=dict)  #: card points each seat took
    pending: dict[str, list[PendingObligation]] = field(default_factory=dict)
    violations: list[tuple[str, str, int]] = field(default_factory=list)  #: (seat, rule, trick)
    #: violations of plays that were reported and not recorded (misreads: bad or duplicate
    #: card, a second card in one trick); no event replays them, so a rebuild carries them over
    rejected: list[tuple[str, str, int]] = field(default_factory=list)
    last_winner: str | None = None  #: who took the last completed trick
    result: DealResult | None = None
    data: DealData = field(default_factory=DealData)  #: the game's own per-deal state
    #: a copy of ``MatchState.data`` as the deal began (read it, e.g. belotta's pot in play)
    carry: MatchData = field(default_factory=MatchData)

    def __post_init__(self) -> None:
        for seat in self.seats:
            self.known.setdefault(seat, [])
            self.played.setdefault(seat, [])
            self.won.setdefault(seat, [])
            self.points.setdefault(seat, 0)
            self.pending.setdefault(seat, [])

    def data_as(self, kind: type[DataT]) -> DataT:
        """:attr:`data` as the game's own class (its ``start_deal`` set it)."""
        data = self.data
        if not isinstance(data, kind):
            raise TypeError(
                f"deal {self.number} of {self.game} holds {type(data).__name__}, "
                f"not {kind.__name__}"
            )
        return data

    @property
    def trick_number(self) -> int:
        """Number of the trick in progress (or the next one)."""
        return len(self.tricks) + 1

    def next_seat(self, seat: str, step: int = 1) -> str:
        """The seat ``step`` places after ``seat`` in play order."""
        i = self.seats.index(seat)
        return self.seats[(i + step) % len(self.seats)]


@dataclass(slots=True)
class MatchState:
    """A match: consecutive deals of one game at one table, scored by the game."""

    game: str
    seats: tuple[str, ...]
    options: GameOptions
    score: dict[str, int] = field(default_factory=dict)
    deals: int = 0  #: deals finished so far
    outcome: MatchOutcome | None = None
    data: MatchData = field(default_factory=MatchData)  #: the game's own per-match state

    def data_as(self, kind: type[MatchDataT]) -> MatchDataT:
        """:attr:`data` as the game's own class (its ``new_match`` set it)."""
        data = self.data
        if not isinstance(data, kind):
            raise TypeError(f"the {self.game} match holds {type(data).__name__}, not {kind.__name__}")
        return data
