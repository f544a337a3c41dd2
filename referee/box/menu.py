"""The contract entry menu: the referee cannot hear bids, so the table enters them with buttons.

Belotta: who calls and the trump. Chiamata: who calls, the called card (suit, then rank), the
points (tens, then units), "in mano". Binocolo: who bids, the bid (tens, then units), the trump. Left/right change the value, OK goes to the next field; OK on
the last field gives the ``contract`` event for the rules core. Pure state, no I/O.

>>> menu = ContractMenu("belotta", ("N", "W", "S", "E"))
>>> for action in ("next", "select", "next", "next", "select"):
...     event = menu.press(action)
>>> event
{'event': 'contract', 'seat': 'W', 'trump': 'H'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.box.i18n import ENGLISH_SUIT_NAMES, FRENCH_SUIT_SYMBOL, card_short, tr
from referee.box.screens import MenuScreen
from referee.cards import ITALIAN_40

FRENCH_SUIT_WORDS = {
    "it": {"C": "fiori", "D": "quadri", "H": "cuori", "S": "picche"},
    "en": {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"},
}
CANCELLED = "cancelled"


@dataclass
class Field:
    key: str  # the contract event's key
    label_key: str  # i18n key of its label
    values: tuple[Any, ...]
    index: int = 0

    @property
    def value(self) -> Any:
        return self.values[self.index]


def _fields(game: str, seats: tuple[str, ...]) -> list[Field]:
    """The fields of ``game``'s contract. Three buttons make a list of 40 cards or 60 point
    values slow, so a card is its suit then its rank and a number its tens then its units."""
    seat = Field("seat", "field_seat", seats)
    trump = Field("trump", "field_trump", ("C", "D", "H", "S"))
    if game == "belotta":
        return [seat, trump]
    if game == "briscola-chiamata":
        suits = tuple(dict.fromkeys(c.suit for c in ITALIAN_40))
        ranks = tuple(dict.fromkeys(c.rank for c in ITALIAN_40))
        return [
            seat,
            Field("called_suit", "field_called_suit", suits),
            Field("called_rank", "field_called_rank", ranks),
            Field("points_tens", "field_points_tens", tuple(range(6, 13))),  # 61..120 (rule 3d)
            Field("points_units", "field_points_units", tuple(range(10)), index=1),
            Field("in_mano", "field_in_mano", (False, True)),
        ]
    if game == "binocolo":
        minimum = 25 if len(seats) == 3 else 15
        tens, units = divmod(minimum, 10)
        return [seat, Field("bid_tens", "field_bid_tens", tuple(range(1, 6)), index=tens - 1),
                Field("bid_units", "field_bid_units", tuple(range(10)), index=units), trump]
    raise ValueError(f"{game!r} has no contract to enter")


def _event(fields: list[Field]) -> dict[str, Any]:
    """The ``contract`` event the fields spell (the rules core judges it: a bid below the
    minimum, points above 120 are refused with its reason)."""
    v = {f.key: f.value for f in fields}
    event: dict[str, Any] = {"event": "contract", "seat": v["seat"]}
    if "called_suit" in v:
        event["called"] = f"{v['called_suit']}_{v['called_rank']}"
        event["points"] = v["points_tens"] * 10 + v["points_units"]
        if v["in_mano"]:
            event["in_mano"] = True
    if "bid_tens" in v:
        event["bid"] = v["bid_tens"] * 10 + v["bid_units"]
    if "trump" in v:
        event["trump"] = v["trump"]
    return event


def has_contract(game: str) -> bool:
    return game in ("belotta", "briscola-chiamata", "binocolo")


class ContractMenu:
    """One pass through the fields; :meth:`press` returns the event when done."""

    def __init__(self, game: str, seats: tuple[str, ...]) -> None:
        self.game = game
        self.fields = _fields(game, seats)
        self.at = 0

    def press(self, action: str) -> dict[str, Any] | str | None:
        """Apply ``prev``/``next``/``select``/``back``/``cancel``: the event, CANCELLED or None."""
        field = self.fields[self.at]
        if action in ("prev", "next"):
            step = 1 if action == "next" else -1
            field.index = (field.index + step) % len(field.values)
        elif action == "select":
            if self.at + 1 < len(self.fields):
                self.at += 1
            else:
                return _event(self.fields)
        elif action == "back":
            if self.at == 0:
                return CANCELLED
            self.at -= 1
        elif action == "cancel":
            return CANCELLED
        return None

    def screen(self, lang: str) -> MenuScreen:
        field = self.fields[self.at]
        return MenuScreen(
            title=self.game,
            label_key=field.label_key,
            value=self._show(field, lang),
            step=f"{self.at + 1}/{len(self.fields)}",
            seats=field.key == "seat",
        )

    def _show(self, field: Field, lang: str) -> str:
        if field.key == "trump":
            words = FRENCH_SUIT_WORDS.get(lang, FRENCH_SUIT_WORDS["it"])
            return f"{FRENCH_SUIT_SYMBOL[field.value]} {words[field.value]}"
        if field.key == "called_suit":
            return ENGLISH_SUIT_NAMES[field.value] if lang == "en" else str(field.value)
        if field.key == "called_rank":
            suit = next(f.value for f in self.fields if f.key == "called_suit")
            return card_short(f"{suit}_{field.value}")
        if field.key in ("points_units", "bid_units"):
            tens = next(f.value for f in self.fields if f.key in ("points_tens", "bid_tens"))
            return str(tens * 10 + field.value)
        if field.key in ("points_tens", "bid_tens"):
            units = next(f.value for f in self.fields if f.key in ("points_units", "bid_units"))
            return f"{field.value}_ ({field.value * 10 + units})"
        if field.key == "in_mano":
            return tr(lang, "yes" if field.value else "no")
        return str(field.value)
