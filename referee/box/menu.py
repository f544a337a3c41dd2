"""The contract entry menu: the referee cannot hear bids, so the table enters them with buttons.

Belotta: who calls and the trump. Chiamata: who calls, the called card, the points. Binocolo:
who bids, the bid, the trump. Left/right change the value, OK goes to the next field; OK on
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

from referee.box.i18n import FRENCH_SUIT_SYMBOL, card_short
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
    seat = Field("seat", "field_seat", seats)
    trump = Field("trump", "field_trump", ("C", "D", "H", "S"))
    if game == "belotta":
        return [seat, trump]
    if game == "briscola-chiamata":
        return [
            seat,
            Field("called", "field_called", ITALIAN_40.codes),
            Field("points", "field_points", tuple(range(61, 121))),
        ]
    if game == "binocolo":
        minimum = 25 if len(seats) == 3 else 15
        return [seat, Field("bid", "field_bid", tuple(range(minimum, 51))), trump]
    raise ValueError(f"{game!r} has no contract to enter")


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
                return {"event": "contract", **{f.key: f.value for f in self.fields}}
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
        )

    @staticmethod
    def _show(field: Field, lang: str) -> str:
        if field.key == "trump":
            words = FRENCH_SUIT_WORDS.get(lang, FRENCH_SUIT_WORDS["it"])
            return f"{FRENCH_SUIT_SYMBOL[field.value]} {words[field.value]}"
        if field.key == "called":
            return card_short(field.value)
        return str(field.value)
