"""Trick-taking logic shared by every game: the trick, card strength, obligations.

Card orders are dicts ``rank -> strength`` (higher wins).  An :class:`Obligation` is the
referee's way of checking follow/trump/overtrump rules without seeing hands: "this play broke
``rule`` iff the player held any of ``cards`` at that moment" (the card just played excluded).
Games compute obligation sets with the helpers below; the engine proves them later, when the
player plays (or shows) one of those cards.  ``legal_plays`` turns the same sets into a legality
test for a known hand, so random playouts and the referee can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from referee.cards import Card, Deck

#: Briscola (and chiamata) order, weakest first: 2 4 5 6 7 fante cavallo re 3 asso
BRISCOLA_ORDER: tuple[str, ...] = ("2", "4", "5", "6", "7", "8", "9", "10", "3", "1")
BRISCOLA_STRENGTH: Mapping[str, int] = {r: i for i, r in enumerate(BRISCOLA_ORDER)}
#: Briscola card points: asso 11, tre 10, re 4, cavallo 3, fante 2 (120 in the deck)
BRISCOLA_POINTS: Mapping[str, int] = {"1": 11, "3": 10, "10": 4, "9": 3, "8": 2}
#: French cards, ace high (used for the dealer draw with French decks)
FRENCH_ACE_HIGH: Mapping[str, int] = {
    r: i for i, r in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
}


@dataclass(slots=True)
class Trick:
    """One trick: ``number`` (1-based), who ``leader`` was expected to lead, and the plays
    ``(seat, card)`` in the order the cards hit the table."""

    number: int
    leader: str
    plays: list[tuple[str, Card]] = field(default_factory=list)

    @property
    def led_suit(self) -> str | None:
        """Suit of the first card on the table (``None`` while empty)."""
        return self.plays[0][1].suit if self.plays else None

    @property
    def cards(self) -> list[Card]:
        return [card for _, card in self.plays]

    @property
    def seats(self) -> list[str]:
        return [seat for seat, _ in self.plays]

    def codes(self) -> tuple[tuple[str, str], ...]:
        return tuple((seat, card.code) for seat, card in self.plays)


@dataclass(frozen=True, slots=True)
class Obligation:
    """The play broke ``rule`` iff the player held any of ``cards`` (``detail`` says what was due)."""

    rule: str
    cards: frozenset[Card]
    detail: str = ""


def winner_index(cards: Sequence[Card], trump: str | None, strength: Mapping[str, int]) -> int:
    """Index of the winning card: highest trump, else highest of the led suit.

    Ties (binocolo's two identical cards) go to the card played first, as strict ``>`` keeps it.
    """
    led = cards[0].suit
    best = 0
    for i in range(1, len(cards)):
        card, top = cards[i], cards[best]
        if card.suit == top.suit:
            if strength[card.rank] > strength[top.rank]:
                best = i
        elif card.suit == trump or (card.suit == led and top.suit != trump and top.suit != led):
            best = i
    return best


# Caches are keyed by deck name: hashing a Deck hashes its whole tuple of faces.
_SUIT_CARDS: dict[tuple[str, str], frozenset[Card]] = {}
_STRONGER: dict[tuple[str, Card, int], frozenset[Card]] = {}
_ORDERS: dict[int, Mapping[str, int]] = {}


def suit_cards(deck: Deck, suit: str) -> frozenset[Card]:
    """All faces of ``suit`` in ``deck``."""
    key = (deck.name, suit)
    found = _SUIT_CARDS.get(key)
    if found is None:
        found = _SUIT_CARDS[key] = frozenset(c for c in deck.faces if c.suit == suit)
    return found


def stronger_cards(deck: Deck, than: Card, strength: Mapping[str, int]) -> frozenset[Card]:
    """Faces of ``than``'s suit in ``deck`` that beat ``than``."""
    # keyed by the order's identity (orders are module constants in the games); the order is
    # kept alive in _ORDERS so its id can never be reused by another mapping
    key = (deck.name, than, id(strength))
    found = _STRONGER.get(key)
    if found is None:
        _ORDERS[id(strength)] = strength
        found = _STRONGER[key] = frozenset(
            c for c in deck.faces if c.suit == than.suit and strength[c.rank] > strength[than.rank]
        )
    return found


def best_of_suit(cards: Iterable[Card], suit: str, strength: Mapping[str, int]) -> Card | None:
    """Strongest card of ``suit`` among ``cards`` (first of equals), or ``None``."""
    best: Card | None = None
    for c in cards:
        if c.suit == suit and (best is None or strength[c.rank] > strength[best.rank]):
            best = c
    return best


def follow_suit(deck: Deck, trick: Trick, card: Card) -> list[Obligation]:
    """Not following the led suit is a ``revoke`` iff the player held that suit."""
    led = trick.led_suit
    if led is None or card.suit == led:
        return []
    return [Obligation("revoke", suit_cards(deck, led), f"did not follow {led}")]


def trump_when_void(deck: Deck, trick: Trick, card: Card, trump: str | None) -> list[Obligation]:
    """Neither following nor trumping is ``must_trump`` iff the player held a trump.

    Paired with :func:`follow_suit`: if the player held the led suit the play was a revoke
    anyway, so "held a trump" alone proves *some* violation.
    """
    led = trick.led_suit
    if led is None or trump is None or card.suit in (led, trump):
        return []
    return [Obligation("must_trump", suit_cards(deck, trump), f"did not trump on {led}")]


def overtrump(
    deck: Deck, trick: Trick, card: Card, trump: str | None, strength: Mapping[str, int]
) -> list[Obligation]:
    """Playing a trump that does not beat the best trump on the table is ``must_overtrump``
    iff the player held a higher trump (use only when the game's document obliges it)."""
    if trump is None or card.suit != trump or not trick.plays:
        return []
    top = best_of_suit(trick.cards, trump, strength)
    if top is None or strength[card.rank] > strength[top.rank]:
        return []
    return [
        Obligation(
            "must_overtrump", stronger_cards(deck, top, strength), f"did not beat {top.code}"
        )
    ]


def breaks(obligations: Iterable[Obligation], hand_rest: Iterable[Card]) -> Obligation | None:
    """The first obligation that ``hand_rest`` (the hand without the played card) proves broken."""
    rest = set(hand_rest)
    for ob in obligations:
        if not ob.cards.isdisjoint(rest):
            return ob
    return None


def without_one(hand: Sequence[Card], card: Card) -> list[Card]:
    """``hand`` minus one copy of ``card`` (binocolo hands can hold two)."""
    rest = list(hand)
    rest.remove(card)
    return rest
