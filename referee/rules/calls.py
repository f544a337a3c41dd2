"""Typed calls: what the referee announces.  ``call.to_dict()`` is the JSON Lines contract.

Every call is a small frozen dataclass whose ``call`` class attribute is the ``"call"`` key;
``extra`` holds game-specific fields (belotta's declarations, chiamata's credits), merged into
the dict last.  ``Call.from_dict`` is not needed by the core: consumers read the dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_SCALARS = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True, slots=True)
class Call:
    """Base of all calls."""

    call: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"call": self.call}
        extra: Mapping[str, Any] = _EMPTY
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "extra":
                extra = value
            elif value is not None or f.metadata.get("keep_none"):
                out[f.name] = _plain(value)
        for key, value in extra.items():
            out[key] = _plain(value)
        return out


def _plain(value: Any) -> Any:
    """Tuples -> lists, mappings -> dicts, recursively, so calls compare equal to parsed JSON."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class TurnCall(Call):
    """It is ``seat``'s turn to play."""

    call: ClassVar[str] = "turn"
    seat: str

    def to_dict(self) -> dict[str, Any]:  # hot path: one per play
        return {"call": "turn", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class TrickCall(Call):
    """Trick ``number`` (1-based) went to ``winner``; ``cards`` are ``(seat, code)`` in play order."""

    call: ClassVar[str] = "trick"
    number: int
    winner: str
    cards: tuple[tuple[str, str], ...]
    points: int
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:  # hot path: one per trick
        out: dict[str, Any] = {
            "call": "trick",
            "number": self.number,
            "winner": self.winner,
            "cards": [[seat, card] for seat, card in self.cards],
            "points": self.points,
        }
        for key, value in self.extra.items():
            out[key] = _plain(value)
        return out


@dataclass(frozen=True, slots=True)
class ViolationCall(Call):
    """``seat`` broke ``rule`` in trick ``trick`` (0 = before the first trick).

    ``proof`` is the card that proved a deferred obligation (a card the seat played later).
    """

    call: ClassVar[str] = "violation"
    seat: str
    rule: str
    trick: int
    detail: str
    card: str | None = None
    proof: str | None = None
    expected: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WithdrawnCall(Call):
    """An earlier ``violation`` of ``seat`` (``rule``, ``trick``) no longer stands: the
    declaration that proved it turned out false (``reason="false_declaration"``), or the play it
    came with was taken back (``reason="undo"``).  The table was told of it, so it is told
    it is withdrawn."""

    call: ClassVar[str] = "withdrawn"
    seat: str
    rule: str
    trick: int
    detail: str
    reason: str


@dataclass(frozen=True, slots=True)
class DealEndCall(Call):
    """Card points per team, the deal's winner (``None`` = tie/void), game-specific extras."""

    call: ClassVar[str] = "deal_end"
    points: Mapping[str, int]
    winner: str | None = field(default=None, metadata={"keep_none": True})
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MatchEndCall(Call):
    """The match is over: ``winner`` (``None`` = drawn) and the final ``score``."""

    call: ClassVar[str] = "match_end"
    winner: str | None = field(metadata={"keep_none": True})
    score: Mapping[str, int]
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UndoCall(Call):
    """``seat``'s play of ``card`` (or declaration of ``cards``) was retracted, with
    everything derived from it."""

    call: ClassVar[str] = "undo"
    seat: str
    card: str | None = None
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class DealerCall(Call):
    """The highest-card draw chose ``seat`` as dealer."""

    call: ClassVar[str] = "dealer"
    seat: str
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RedrawCall(Call):
    """The highest-card draw tied: ``seats`` draw again."""

    call: ClassVar[str] = "redraw"
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ErrorCall(Call):
    """A rejected input line (``referee replay`` only); the line was skipped."""

    call: ClassVar[str] = "error"
    line: int
    detail: str


@dataclass(frozen=True, slots=True)
class GameCall(Call):
    """A game-specific call (``partner``, ``declaration``, ``contract``...): ``name`` + fields."""

    name: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"call": self.name}
        out.update({k: _plain(v) for k, v in self.extra.items()})
        return out


def game_call(name: str, **fields_: Any) -> GameCall:
    """``game_call("partner", seat="N")`` -> ``{"call": "partner", "seat": "N"}``."""
    return GameCall(name, MappingProxyType(fields_))
