"""Card codes and decks: the one vocabulary shared by rules, vision, logs and the CLI.

Italian cards are ``<suit>_<rank>`` with suit ``bastoni|coppe|denari|spade`` and rank
``1..10`` (8 fante, 9 cavallo, 10 re), e.g. ``coppe_1``.  French cards are ``<rank><suit>``
with rank ``A,2..10,J,Q,K`` and suit ``C|D|H|S``, e.g. ``10H``, ``QS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache

from referee.errors import BadCardError

ITALIAN_SUITS: tuple[str, ...] = ("bastoni", "coppe", "denari", "spade")
ITALIAN_RANKS: tuple[str, ...] = tuple(str(r) for r in range(1, 11))
FRENCH_SUITS: tuple[str, ...] = ("C", "D", "H", "S")
FRENCH_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

ITALIAN_RANK_NAMES = {"1": "asso", "8": "fante", "9": "cavallo", "10": "re"}
FRENCH_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card face. ``Card.parse('coppe_3')`` and ``Card.parse('10H')`` round-trip via ``code``."""

    suit: str
    rank: str

    def __post_init__(self) -> None:
        if not (
            (self.suit in ITALIAN_SUITS and self.rank in ITALIAN_RANKS)
            or (self.suit in FRENCH_SUITS and self.rank in FRENCH_RANKS)
        ):
            raise BadCardError(f"no such card: suit={self.suit!r} rank={self.rank!r}")

    @property
    def italian(self) -> bool:
        return self.suit in ITALIAN_SUITS

    @property
    def code(self) -> str:
        return f"{self.suit}_{self.rank}" if self.italian else f"{self.rank}{self.suit}"

    @staticmethod
    def parse(code: str) -> Card:
        return parse_card(code)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


@cache
def parse_card(code: str) -> Card:
    """Parse a card code; raises :class:`BadCardError` naming the code when it is not one."""
    if not isinstance(code, str):
        raise BadCardError(f"card code must be a string, got {code!r}")
    if "_" in code:
        suit, _, rank = code.partition("_")
        if suit in ITALIAN_SUITS and rank in ITALIAN_RANKS:
            return Card(suit, rank)
    elif len(code) >= 2:
        rank, suit = code[:-1], code[-1]
        if suit in FRENCH_SUITS and rank in FRENCH_RANKS:
            return Card(suit, rank)
    raise BadCardError(f"not a card code: {code!r} (expected e.g. 'coppe_3' or '10H')")


@dataclass(frozen=True, slots=True)
class Deck:
    """A named deck: which faces exist and how many copies of each (binocolo has two)."""

    name: str
    faces: tuple[Card, ...]
    copies: int = 1
    # Built once: membership is asked on every play, and hashing 40 faces per ask was the
    # rules engine's top cost.
    _face_set: frozenset[Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_face_set", frozenset(self.faces))

    def __contains__(self, card: object) -> bool:
        return card in self._face_set

    def __iter__(self) -> Iterator[Card]:
        for card in self.faces:
            for _ in range(self.copies):
                yield card

    def __len__(self) -> int:
        return len(self.faces) * self.copies

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(card.code for card in self.faces)


def _deck(name: str, suits: Iterable[str], ranks: Iterable[str], copies: int = 1) -> Deck:
    ranks = tuple(ranks)
    return Deck(name, tuple(Card(s, r) for s in suits for r in ranks), copies)


ITALIAN_40 = _deck("italian-40", ITALIAN_SUITS, ITALIAN_RANKS)
FRENCH_52 = _deck("french-52", FRENCH_SUITS, FRENCH_RANKS)
FRENCH_32 = _deck("french-32", FRENCH_SUITS, ("7", "8", "9", "10", "J", "Q", "K", "A"))
BINOCOLO_48 = _deck("binocolo-48", FRENCH_SUITS, ("9", "10", "J", "Q", "K", "A"), copies=2)

DECKS: dict[str, Deck] = {d.name: d for d in (ITALIAN_40, FRENCH_52, FRENCH_32, BINOCOLO_48)}

#: Recogniser label sets: the card faces plus ``back`` (face-down card or not a card).
BACK = "back"
RECOGNISER_LABELS: dict[str, tuple[str, ...]] = {
    "italian": (*ITALIAN_40.codes, BACK),
    "french": (*FRENCH_52.codes, BACK),
}


def deck_family(name: str) -> str:
    """``'italian'`` or ``'french'`` for a recogniser deck name; raises naming the bad value."""
    if name not in RECOGNISER_LABELS:
        raise BadCardError(f"unknown deck {name!r}: expected one of {sorted(RECOGNISER_LABELS)}")
    return name
