"""Typed events, parsed once from the JSON Lines dicts of ``referee replay``.

``parse_event({"event": "play", "seat": "W", "card": "coppe_3"})`` returns
``PlayEvent(seat='W', card='coppe_3')``; a missing or wrong-typed key raises
:class:`~referee.rules.errors.EventError` naming the key.  Card codes are kept as strings here:
whether a code is a card of the game's deck is a rule question (``bad_card``), not a parse error.

Event kinds the core does not know (a game's own, e.g. chiamata's ``forfait``) parse to
:class:`GameEvent`; the game decides whether it accepts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from referee.rules.errors import EventError

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class DealEvent:
    """A new deal: ``seats`` in play order, optional ``dealer``, face-up ``trump_card`` or
    belotta's ``turned`` card, and game ``options`` (only the first deal of a match needs them).
    ``raw`` is the whole dict, for game-specific keys."""

    game: str
    seats: tuple[str, ...]
    dealer: str | None = None
    trump_card: str | None = None
    turned: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    kind = "deal"


@dataclass(frozen=True, slots=True)
class PlayEvent:
    """``seat`` laid ``card`` face up (a card code string, checked by the referee)."""

    seat: str
    card: str

    kind = "play"


@dataclass(frozen=True, slots=True)
class ContractEvent:
    """A contract/bid/trump choice; its keys are game-specific and read by the game from ``raw``."""

    seat: str
    raw: Mapping[str, Any] = field(default_factory=dict)

    kind = "contract"


@dataclass(frozen=True, slots=True)
class DeclareEvent:
    """``seat`` declares (belotta) or melds (binocolo) ``cards``; the game works out the kind."""

    seat: str
    cards: tuple[str, ...]
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    kind = "declare"


@dataclass(frozen=True, slots=True)
class DiscardEvent:
    """``seat`` (binocolo's declarer) discards ``cards`` face down after taking the widow."""

    seat: str
    cards: tuple[str, ...]
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    kind = "discard"


@dataclass(frozen=True, slots=True)
class DrawEvent:
    """Each seat drew ``cards[seat]`` to choose the dealer (highest card deals)."""

    cards: Mapping[str, str]
    game: str | None = None

    kind = "draw"


@dataclass(frozen=True, slots=True)
class UndoEvent:
    """Retract the last play of the current deal (a misread corrected by the operator)."""

    kind = "undo"


@dataclass(frozen=True, slots=True)
class GameEvent:
    """An event kind only some games know (e.g. ``forfait``); ``raw`` is the whole dict."""

    name: str
    seat: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return self.name


Event = (
    DealEvent
    | PlayEvent
    | ContractEvent
    | DeclareEvent
    | DiscardEvent
    | DrawEvent
    | UndoEvent
    | GameEvent
)

EVENT_TYPES = (
    DealEvent,
    PlayEvent,
    ContractEvent,
    DeclareEvent,
    DiscardEvent,
    DrawEvent,
    UndoEvent,
    GameEvent,
)

#: event kinds the core itself defines (others become :class:`GameEvent`)
CORE_EVENTS = frozenset({"deal", "play", "contract", "declare", "discard", "draw", "undo"})


def _str(d: Mapping[str, Any], key: str, *, required: bool = True) -> str | None:
    value = d.get(key)
    if value is None:
        if required:
            raise EventError(f"{d.get('event')!r} event needs key {key!r}")
        return None
    if not isinstance(value, str) or not value:
        raise EventError(f"key {key!r} must be a non-empty string, got {value!r}")
    return value


def _req(d: Mapping[str, Any], key: str) -> str:
    value = _str(d, key)
    assert value is not None
    return value


def _cards(d: Mapping[str, Any], key: str = "cards") -> tuple[str, ...]:
    value = d.get(key)
    if not isinstance(value, list | tuple) or not all(isinstance(c, str) for c in value):
        raise EventError(f"key {key!r} must be a list of card codes, got {value!r}")
    return tuple(value)


def _deal(d: Mapping[str, Any]) -> DealEvent:
    seats = d.get("seats")
    if (
        not isinstance(seats, list | tuple)
        or not seats
        or not all(isinstance(s, str) and s for s in seats)
    ):
        raise EventError(f"key 'seats' must be a list of seat names, got {seats!r}")
    if len(set(seats)) != len(seats):
        raise EventError(f"key 'seats' names a seat twice: {seats!r}")
    options = d.get("options", {})
    if not isinstance(options, Mapping):
        raise EventError(f"key 'options' must be an object, got {options!r}")
    dealer = _str(d, "dealer", required=False)
    if dealer is not None and dealer not in seats:
        raise EventError(f"key 'dealer': {dealer!r} is not one of the seats {list(seats)!r}")
    return DealEvent(
        game=_req(d, "game"),
        seats=tuple(seats),
        dealer=dealer,
        trump_card=_str(d, "trump_card", required=False),
        turned=_str(d, "turned", required=False),
        options=MappingProxyType(dict(options)),
        raw=d,
    )


def _draw(d: Mapping[str, Any]) -> DrawEvent:
    cards = d.get("cards")
    if (
        not isinstance(cards, Mapping)
        or not cards
        or not all(isinstance(s, str) and isinstance(c, str) for s, c in cards.items())
    ):
        raise EventError(f"key 'cards' must map seat -> card code, got {cards!r}")
    return DrawEvent(cards=MappingProxyType(dict(cards)), game=_str(d, "game", required=False))


def parse_event(d: Mapping[str, Any]) -> Event:
    """Parse one event dict; raises :class:`EventError` naming the bad key or value."""
    if type(d) is dict and d.get("event") == "play":  # the hot path: one per card laid
        seat, card = d.get("seat"), d.get("card")
        if type(seat) is str and type(card) is str and seat and card:
            return PlayEvent(seat=seat, card=card)
    if not isinstance(d, Mapping):
        raise EventError(f"an event must be a JSON object, got {type(d).__name__}")
    kind = d.get("event")
    if not isinstance(kind, str) or not kind:
        raise EventError(f"key 'event' must name the event kind, got {kind!r}")
    if kind == "play":
        return PlayEvent(seat=_req(d, "seat"), card=_req(d, "card"))
    if kind == "deal":
        return _deal(d)
    if kind == "contract":
        return ContractEvent(seat=_req(d, "seat"), raw=d)
    if kind == "declare":
        return DeclareEvent(seat=_req(d, "seat"), cards=_cards(d), raw=d)
    if kind == "discard":
        return DiscardEvent(seat=_req(d, "seat"), cards=_cards(d), raw=d)
    if kind == "draw":
        return _draw(d)
    if kind == "undo":
        return UndoEvent()
    return GameEvent(name=kind, seat=_str(d, "seat", required=False), raw=d)
