"""Everything a table enters besides the cards, with the three buttons alone (hold OK).

The first screen chooses what to enter (left/right, OK): the contract, a declaration or meld
(belotta, binocolo), the declarer's discard (binocolo), a forfait (chiamata), a "via" (belotta),
or the game and
its rule options. Each gives the same event a log or the phone console would (see
``docs/games.md``), which the box applies through its one path: the rules core judges it, a
rejection shows the core's reason and records nothing. A card is chosen as its suit, then its
rank: a whole hand of cards is a few presses each. Pure state, no I/O.

>>> menu = EntryMenu("binocolo", ("N", "W", "S", "E"), declarer="E")
>>> for action in ("next", "select"):  # the discard
...     _ = menu.press(action)
>>> menu.screen("en").label
'E: no cards'
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.box.i18n import ENGLISH_SUIT_NAMES, FRENCH_SUIT_SYMBOL, card_short, option_name, tr
from referee.box.menu import CANCELLED, FRENCH_SUIT_WORDS, ContractMenu, has_contract
from referee.box.screens import MenuScreen
from referee.cards import Deck
from referee.rules import get_game

#: the games the box referees, in the order the game menu offers them
GAME_NAMES = ("briscola-2", "briscola-4", "briscola-chiamata", "belotta", "binocolo")

Result = dict[str, Any] | str | None
#: what the entry menu gives when "Registra mazzo" / "Enrol deck" is chosen (the box opens
#: :class:`~referee.box.enrol_menu.EnrolMenu`)
ENROL_DECK = "enrol_deck"


@dataclass(frozen=True)
class GameChoice:
    """The game (and rule options) the operator chose for the next match."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)


def actions_for(game: str) -> tuple[str, ...]:
    """What the entry menu offers for ``game``, in order (each an i18n key ``entry_<action>``)."""
    actions: list[str] = []
    if has_contract(game):
        actions.append("contract")
    if game == "belotta":  # a seat passing on the turned card (checks the speaking order, 1a)
        actions.append("via")
    if game == "binocolo":
        actions.append("discard")
    if game in ("belotta", "binocolo"):
        actions.append("declare")
    if game == "briscola-chiamata":
        actions.append("forfait")
    actions.append("game")
    return tuple(actions)


class EntryMenu:
    """The list of entries, then the chosen one's own menu; :meth:`press` returns its event
    (or :class:`GameChoice`), :data:`CANCELLED`, or ``None`` while it goes on."""

    def __init__(self, game: str, seats: tuple[str, ...], declarer: str | None = None,
                 options: Mapping[str, Any] | None = None, enrol: bool = False) -> None:
        self.game, self.seats, self.declarer = game, seats, declarer
        self.options = dict(options or {})
        # enrolling the club's deck needs the camera: offered last, where there is one
        self.actions = actions_for(game) + (("enrol",) if enrol else ())
        self.at = 0
        self.sub: ContractMenu | CardsMenu | SeatMenu | GameMenu | None = None

    @property
    def action(self) -> str:
        return self.actions[self.at]

    def press(self, action: str) -> Any:
        if self.sub is not None:
            result = self.sub.press(action)
            if result == CANCELLED:  # backed out of the entry: the list again
                self.sub = None
                return None
            return result
        if action in ("prev", "next"):
            self.at = (self.at + (1 if action == "next" else -1)) % len(self.actions)
        elif action == "select" and self.action == "enrol":
            return ENROL_DECK
        elif action == "select":
            self.sub = self._open(self.action)
        elif action in ("back", "cancel"):
            return CANCELLED
        return None

    def _open(self, action: str) -> ContractMenu | CardsMenu | SeatMenu | GameMenu:
        deck = get_game(self.game).deck
        if action == "contract":
            return ContractMenu(self.game, self.seats)
        if action == "discard":
            return CardsMenu("discard", self.seats, deck, seat=self.declarer,
                             count=3 if len(self.seats) == 3 else 4)
        if action == "declare":
            return CardsMenu("declare", self.seats, deck)
        if action in ("forfait", "via"):
            return SeatMenu(action, self.seats)
        return GameMenu(self.game, self.options)

    def screen(self, lang: str) -> MenuScreen:
        if self.sub is not None:
            return self.sub.screen(lang)
        return MenuScreen(title=self.game, label_key="field_entry", value=tr(lang, f"entry_{self.action}"),
                          step=f"{self.at + 1}/{len(self.actions)}", header_key="entry")


class SeatMenu:
    """An event that names only a seat (chiamata's forfait, belotta's via)."""

    def __init__(self, kind: str, seats: tuple[str, ...]) -> None:
        self.kind, self.seats, self.index = kind, seats, 0

    def press(self, action: str) -> Result:
        if action in ("prev", "next"):
            self.index = (self.index + (1 if action == "next" else -1)) % len(self.seats)
        elif action == "select":
            return {"event": self.kind, "seat": self.seats[self.index]}
        elif action in ("back", "cancel"):
            return CANCELLED
        return None

    def screen(self, lang: str) -> MenuScreen:
        return MenuScreen(title=self.kind, label_key="field_seat_of", value=self.seats[self.index], step="1/1",
                          header_key=f"entry_{self.kind}", seats=True)


class CardsMenu:
    """A seat, then its cards one by one (suit, then rank; "done" among the suits ends): a
    declaration or meld (``declare``) or the declarer's discard (``discard``, ``count`` cards:
    once they are chosen the suit steps onto "done", so one OK sends them).

    Back on a suit takes the last card chosen off again; with none chosen, back to the seat."""

    DONE = "done"

    def __init__(self, kind: str, seats: tuple[str, ...], deck: Deck, seat: str | None = None,
                 count: int | None = None) -> None:
        self.kind, self.seats, self.count = kind, seats, count
        self.suits = (*dict.fromkeys(c.suit for c in deck), self.DONE)
        self.ranks = tuple(dict.fromkeys(c.rank for c in deck))
        self.seat = seats.index(seat) if seat in seats else 0
        self.step = "suit" if seat in seats else "seat"
        self.suit = self.rank = 0
        self.cards: list[str] = []

    def _code(self, suit: str, rank: str) -> str:
        return f"{suit}_{rank}" if len(suit) > 1 else f"{rank}{suit}"

    def press(self, action: str) -> Result:
        if action == "cancel":
            return CANCELLED
        if action in ("prev", "next"):
            step = 1 if action == "next" else -1
            if self.step == "seat":
                self.seat = (self.seat + step) % len(self.seats)
            elif self.step == "suit":
                self.suit = (self.suit + step) % len(self.suits)
            else:
                self.rank = (self.rank + step) % len(self.ranks)
        elif action == "select":
            return self._select()
        elif action == "back":
            if self.step == "rank":
                self.step = "suit"
            elif self.step == "suit" and self.cards:
                self.cards.pop()
            elif self.step == "suit":
                self.step = "seat"
            else:
                return CANCELLED
        return None

    def _select(self) -> Result:
        if self.step == "seat":
            self.step = "suit"
        elif self.step == "suit" and self.suits[self.suit] == self.DONE:
            return {"event": self.kind, "seat": self.seats[self.seat], "cards": list(self.cards)}
        elif self.step == "suit":
            self.step, self.rank = "rank", 0
        else:
            # a card chosen twice stays twice (binocolo's deck holds two of each): the rules
            # core judges what the hand can hold
            self.cards.append(self._code(self.suits[self.suit], self.ranks[self.rank]))
            self.step = "suit"
            if self.count is not None and len(self.cards) >= self.count:
                self.suit = self.suits.index(self.DONE)
        return None

    def screen(self, lang: str) -> MenuScreen:
        seat = self.seats[self.seat]
        header = f"entry_{self.kind}"
        if self.step == "seat":
            return MenuScreen(title=self.kind, label_key="field_seat_of", value=seat, step="1/3",
                              header_key=header, seats=True)
        chosen = " ".join(card_short(c) for c in self.cards) or tr(lang, "no_cards")
        label = f"{seat}: {chosen}"
        if self.step == "suit":
            suit = self.suits[self.suit]
            value = tr(lang, "done_n", n=len(self.cards)) if suit == self.DONE else _suit_word(lang, suit)
            return MenuScreen(title=self.kind, label_key="", value=value, step="2/3", header_key=header,
                              label=label)
        code = self._code(self.suits[self.suit], self.ranks[self.rank])
        return MenuScreen(title=self.kind, label_key="", value=card_short(code), step="3/3", header_key=header,
                          label=label)


def _suit_word(lang: str, suit: str) -> str:
    if suit in FRENCH_SUIT_SYMBOL:
        words = FRENCH_SUIT_WORDS.get(lang, FRENCH_SUIT_WORDS["it"])
        return f"{FRENCH_SUIT_SYMBOL[suit]} {words[suit]}"
    return ENGLISH_SUIT_NAMES[suit] if lang == "en" else suit


#: numeric options offered on the game menu: the document's value comes first, then these
#: (others, e.g. chiamata's doppia/tripla thresholds, keep the config's value)
NUMBER_CHOICES: dict[str, tuple[Any, ...]] = {
    "rounds_to_win": (1, 2, 3),
    "move_timer_s": (None, 15.0, 20.0, 30.0, 45.0),
    "deals": (5, 10),
    "target": (101, 151, 201, 301, 100, 150, 200),
    "min_bid": (None, 15, 20, 25),
}


class GameMenu:
    """The game, then each of its rule options that takes a few values (yes/no, one of a
    list, a few usual numbers: :data:`NUMBER_CHOICES`), each starting on its configured value.
    OK on the last option gives the :class:`GameChoice` (options that differ from the
    document's)."""

    def __init__(self, game: str, options: Mapping[str, Any]) -> None:
        self.game_index = GAME_NAMES.index(game) if game in GAME_NAMES else 0
        self.configured = {game: dict(options)}
        self.at = 0  # 0: the game; i: option i-1
        self.values: dict[str, Any] = {}
        self.choices: list[tuple[str, tuple[Any, ...]]] = []

    @property
    def game(self) -> str:
        return GAME_NAMES[self.game_index]

    def _options(self) -> None:
        """The chosen game's few-valued options, each starting on its configured value."""
        options_type = get_game(self.game).options_type
        hints = typing.get_type_hints(options_type)
        defaults = {f.name: f.default for f in dataclasses.fields(options_type)}
        configured = self.configured.get(self.game, {})
        self.choices, self.values = [], {}
        for name, hint in hints.items():
            if name not in defaults:
                continue
            if hint is bool:
                values: tuple[Any, ...] = (False, True)
            elif typing.get_origin(hint) is Literal:
                values = typing.get_args(hint)
            elif name in NUMBER_CHOICES:
                values = tuple(dict.fromkeys((defaults[name], *NUMBER_CHOICES[name])))
            else:
                if name in configured:  # a number set in the config is kept
                    self.values[name] = configured[name]
                continue
            self.choices.append((name, values))
            self.values[name] = configured.get(name, defaults[name])
        self.defaults = defaults

    def press(self, action: str) -> Any:
        if action == "cancel":
            return CANCELLED
        if action in ("prev", "next"):
            step = 1 if action == "next" else -1
            if self.at == 0:
                self.game_index = (self.game_index + step) % len(GAME_NAMES)
            else:
                name, values = self.choices[self.at - 1]
                i = values.index(self.values[name]) if self.values[name] in values else 0
                self.values[name] = values[(i + step) % len(values)]
        elif action == "select":
            if self.at == 0:
                self._options()
            if self.at < len(self.choices):
                self.at += 1
            else:
                chosen = {k: v for k, v in self.values.items() if v != self.defaults.get(k)}
                return GameChoice(self.game, chosen)
        elif action == "back":
            if self.at == 0:
                return CANCELLED
            self.at -= 1
        return None

    def screen(self, lang: str) -> MenuScreen:
        total = 1 + len(self.choices) if self.at else 1
        if self.at == 0:
            return MenuScreen(title="game", label_key="field_game", value=self.game, step=f"1/{total}",
                              header_key="entry_game")
        name, _ = self.choices[self.at - 1]
        value = self.values[name]
        if isinstance(value, bool):
            shown = tr(lang, "yes" if value else "no")
        elif value is None:
            shown = tr(lang, "none")
        else:
            shown = f"{value:g}" if isinstance(value, float) else str(value)
        return MenuScreen(title=self.game, label_key="", value=shown, step=f"{self.at + 1}/{total}",
                          header_key="entry_game", label=option_name(lang, name))
