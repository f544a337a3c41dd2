"""Belotta card orders, card points, trick winners and play obligations (rules 2b-2f, tab. 1).

Pure functions over :class:`referee.cards.Card` (French 32-card deck, suits ``C D H S``).
A trick in progress is the list of cards played so far, in play order; the player about to
play sits at position ``len(trick)`` and their partner at ``len(trick) - 2`` (partners sit
opposite, so in a four-card trick positions 0/2 and 1/3 are partners).

Obligations are returned as ``(rule, cards)`` pairs meaning "this play broke ``rule`` if the
player held any of ``cards`` at that moment"; the engine proves a violation when one of those
cards turns up later from the same hand.  Legal plays for a known hand are derived from the
same obligations, so the proof mechanism and the random playout can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from referee.cards import FRENCH_32, Card

#: Tab. 1, weakest first.  Trump: J 9 A 10 K Q 8 7; plain suits: A 10 K Q J 9 8 7.
TRUMP_ORDER: tuple[str, ...] = ("7", "8", "Q", "K", "10", "A", "9", "J")
PLAIN_ORDER: tuple[str, ...] = ("7", "8", "9", "J", "Q", "K", "10", "A")
TRUMP_POINTS: dict[str, int] = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS: dict[str, int] = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}

#: Rule 4a: the cards are worth 152, the last trick 10 more (100 with cappotto, rule 2g).
CARD_POINTS_TOTAL = 152
LAST_TRICK_BONUS = 10
CAPPOTTO_LAST_TRICK_BONUS = 100

REVOKE = "revoke"
MUST_TRUMP = "must_trump"
MUST_OVERTRUMP = "must_overtrump"

Obligation = tuple[str, frozenset[Card]]


def card_points(card: Card, trump: str) -> int:
    """Tab. 1: what ``card`` is worth in a trick when ``trump`` is the atout suit."""
    return (TRUMP_POINTS if card.suit == trump else PLAIN_POINTS)[card.rank]


def trick_points(cards: Iterable[Card], trump: str) -> int:
    return sum(card_points(card, trump) for card in cards)


def strength(card: Card, trump: str, lead_suit: str) -> int:
    """How strongly ``card`` contends for the trick: 0 = cannot win (off-suit, not trump)."""
    if card.suit == trump:
        return 20 + TRUMP_ORDER.index(card.rank)
    if card.suit == lead_suit:
        return 10 + PLAIN_ORDER.index(card.rank)
    return 0


@cache
def _strengths(trump: str, lead_suit: str) -> dict[Card, int]:
    return {c: strength(c, trump, lead_suit) for c in FRENCH_32.faces}


def trick_winner(cards: Sequence[Card], trump: str) -> int:
    """Rule 2b: index of the winning card — the highest trump, else the highest of the suit led."""
    table = _strengths(trump, cards[0].suit)  # the referee asks this on every play: keep it cheap
    best, top = 0, table[cards[0]]
    for i in range(1, len(cards)):
        value = table[cards[i]]
        if value > top:
            best, top = i, value
    return best


@cache
def _suit_cards(suit: str) -> frozenset[Card]:
    return frozenset(c for c in FRENCH_32.faces if c.suit == suit)


@cache
def _trumps_above(trump: str, rank: str | None) -> frozenset[Card]:
    """Trumps strictly higher than ``rank`` in the trump order (all trumps when ``rank`` is None)."""
    floor = -1 if rank is None else TRUMP_ORDER.index(rank)
    return frozenset(c for c in _suit_cards(trump) if TRUMP_ORDER.index(c.rank) > floor)


def _highest_trump(trick: Sequence[Card], trump: str) -> str | None:
    ranks = [c.rank for c in trick if c.suit == trump]
    return max(ranks, key=TRUMP_ORDER.index) if ranks else None


def obligations(
    trick: Sequence[Card],
    card: Card,
    trump: str,
    *,
    must_undertrump: bool = False,
    partner_winning: bool | None = None,
) -> list[Obligation]:
    """What playing ``card`` on ``trick`` (cards so far, in play order) must not have hidden.

    Rules 2c-2f: follow the suit led (2c); void, trump (2c); if a trump is already down,
    trump only if able to go over it — never obliged to undertrump (2d; ``must_undertrump``
    is the French-rules variant that belote-cli plays); no trump/overtrump duty while the
    partner holds the trick, unless trump was led (2e); on a trump lead, go over the highest
    trump so far if able, else still follow with any trump (2f).  ``partner_winning``
    defaults to "the card two places back holds the trick".
    """
    if not trick:
        return []
    lead = trick[0].suit
    result: list[Obligation] = []
    if card.suit != lead:
        result.append((REVOKE, _suit_cards(lead)))
    top_trump = _highest_trump(trick, trump)
    if lead == trump:
        # 2f: the whole table must go over the previous trump, whoever holds the trick.
        assert top_trump is not None  # the lead itself is a trump
        if card.suit == trump and TRUMP_ORDER.index(card.rank) < TRUMP_ORDER.index(top_trump):
            result.append((MUST_OVERTRUMP, _trumps_above(trump, top_trump)))
        return result
    if card.suit == lead:
        return result
    if partner_winning is None:  # by position; the engine passes it by seat (out-of-turn plays)
        partner_winning = len(trick) >= 2 and trick_winner(trick, trump) == len(trick) - 2
    if partner_winning:  # 2e
        return result
    if card.suit == trump:
        if top_trump is not None and TRUMP_ORDER.index(card.rank) < TRUMP_ORDER.index(top_trump):
            result.append((MUST_OVERTRUMP, _trumps_above(trump, top_trump)))
    elif top_trump is None or must_undertrump:
        result.append((MUST_TRUMP, _suit_cards(trump)))  # 2c
    else:
        result.append((MUST_OVERTRUMP, _trumps_above(trump, top_trump)))  # 2d
    return result


def is_legal(
    hand: Iterable[Card],
    trick: Sequence[Card],
    card: Card,
    trump: str,
    *,
    must_undertrump: bool = False,
) -> bool:
    """Whether ``card`` (which must be in ``hand``) may be played on ``trick``."""
    held = frozenset(hand) - {card}
    return not any(
        held & cards
        for _, cards in obligations(trick, card, trump, must_undertrump=must_undertrump)
    )


def legal_plays(
    hand: Iterable[Card], trick: Sequence[Card], trump: str, *, must_undertrump: bool = False
) -> list[Card]:
    """The cards of ``hand`` that break no obligation; never empty for a non-empty hand."""
    cards = list(hand)
    return [c for c in cards if is_legal(cards, trick, c, trump, must_undertrump=must_undertrump)]
