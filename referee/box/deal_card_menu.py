"""The face-up card a deal needs, asked on the display: briscola's ``trump_card`` (the
briscola under the stock) and belotta's ``turned`` card.

The rules core cannot judge a trick without the trump, so the box never sends such a deal
blind: the "next deal" button (or a deal event that lacks the card) opens this menu. When the
camera reads a card in the stock zone, the menu starts on it and one OK confirms it;
otherwise (or after a hold of left) the operator picks the suit, then the rank. Pure state.

>>> menu = DealCardMenu({"event": "deal", "game": "briscola-4"}, guess="coppe_3")
>>> menu.press("select")["trump_card"]
'coppe_3'
"""

from __future__ import annotations

from typing import Any

from referee.box.i18n import ENGLISH_SUIT_NAMES, FRENCH_SUIT_SYMBOL, card_long
from referee.box.menu import CANCELLED, FRENCH_SUIT_WORDS
from referee.box.screens import MenuScreen
from referee.cards import FRENCH_32, ITALIAN_40, Deck, parse_card
from referee.errors import BadCardError

#: game -> (the deal event's key, the deck its card comes from)
DEAL_CARD: dict[str, tuple[str, Deck]] = {
    "briscola-2": ("trump_card", ITALIAN_40),
    "briscola-4": ("trump_card", ITALIAN_40),
    "belotta": ("turned", FRENCH_32),
}


def missing_deal_card(event: dict[str, Any]) -> str | None:
    """The key a ``deal`` event of its game needs and lacks (``trump_card``/``turned``)."""
    need = DEAL_CARD.get(str(event.get("game")))
    if event.get("event") != "deal" or need is None or event.get(need[0]):
        return None
    return need[0]


class DealCardMenu:
    """Two steps, suit then card; :meth:`press` returns the completed deal event when done."""

    def __init__(self, base: dict[str, Any], guess: str | None = None) -> None:
        key, deck = DEAL_CARD[str(base.get("game"))]
        self._start(base, key, deck, guess)

    def _start(self, base: dict[str, Any], key: str, deck: Deck, guess: str | None) -> None:
        self.base, self.key = dict(base), key
        self.suits = tuple(dict.fromkeys(c.suit for c in deck))
        self.ranks = tuple(dict.fromkeys(c.rank for c in deck))
        self.suit, self.rank, self.at = 0, 0, 0
        card = _card_of(deck, guess)
        if card is not None:  # the camera's reading: start on it, one OK confirms
            self.suit, self.rank, self.at = self.suits.index(card.suit), self.ranks.index(card.rank), 1

    @property
    def code(self) -> str:
        suit, rank = self.suits[self.suit], self.ranks[self.rank]
        return f"{suit}_{rank}" if len(suit) > 1 else f"{rank}{suit}"

    def press(self, action: str) -> dict[str, Any] | str | None:
        """``prev``/``next`` change the suit or rank, ``select`` goes on / finishes, ``back``
        returns to the suit, ``cancel`` gives up (no deal is sent)."""
        if action in ("prev", "next"):
            step = 1 if action == "next" else -1
            if self.at == 0:
                self.suit = (self.suit + step) % len(self.suits)
            else:
                self.rank = (self.rank + step) % len(self.ranks)
        elif action == "select":
            if self.at == 0:
                self.at = 1
            else:
                return {**self.base, self.key: self.code}
        elif action == "back":
            if self.at == 0:
                return CANCELLED
            self.at = 0
        elif action == "cancel":
            return CANCELLED
        return None

    def screen(self, lang: str) -> MenuScreen:
        label = "field_deal_card" if self.key == "trump_card" else "field_turned"
        value = self._suit_word(lang) if self.at == 0 else card_long(lang, self.code)
        return MenuScreen(title=str(self.base.get("game")), label_key=label, value=value,
                          step=f"{self.at + 1}/2", header_key="deal_card")

    def _suit_word(self, lang: str) -> str:
        suit = self.suits[self.suit]
        if suit in FRENCH_SUIT_SYMBOL:
            words = FRENCH_SUIT_WORDS.get(lang, FRENCH_SUIT_WORDS["it"])
            return f"{FRENCH_SUIT_SYMBOL[suit]} {words[suit]}"
        return ENGLISH_SUIT_NAMES[suit] if lang == "en" else suit


def _card_of(deck: Deck, code: str | None) -> Any:
    if not code:
        return None
    try:
        card = parse_card(code)
    except BadCardError:
        return None
    return card if card in deck else None


class PlayedCardMenu(DealCardMenu):
    """A play the camera may have missed: which card did ``seat`` play?  The same two steps;
    the result is the operator's answer ``{"event": "confirm", "seat", "card"}``, and
    :data:`CANCELLED` (hold OK, or hold left on the suit) means the seat did not play."""

    def __init__(self, seat: str, deck: Deck, guess: str | None = None) -> None:
        self._start({"event": "confirm", "seat": seat}, "card", deck, guess)

    def screen(self, lang: str) -> MenuScreen:
        value = self._suit_word(lang) if self.at == 0 else card_long(lang, self.code)
        return MenuScreen(title=str(self.base["seat"]), label_key="field_played", value=value,
                          step=f"{self.at + 1}/2", header_key="played_card", seat=str(self.base["seat"]))
