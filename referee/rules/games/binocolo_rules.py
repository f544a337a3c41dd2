"""Binocolo's pure rules (binocolo-48-carte.txt): card order and points, trick winner,
play obligations, the bid, deal scoring and the race to 100.

Plain functions over cards and small dataclasses, with no engine state, so each rule can be
tested on its own; :mod:`referee.rules.games.binocolo` wires them into the engine's ``Game``.
Numbers in comments (``rule 4.4``) are the document's paragraphs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from referee.cards import Card
from referee.rules.games.binocolo_melds import Meld, honest_melds

#: Card orders, weakest first.  The document never states one: "A10KQJ9" (ace, ten, king, queen,
#: jack, nine: the Pinochle order its point cards K/10/A and its family suggest) is the default;
#: "AKQJ109" is the natural order, as option ``card_order``.
CARD_ORDERS: dict[str, tuple[str, ...]] = {
    "A10KQJ9": ("9", "J", "Q", "K", "10", "A"),
    "AKQJ109": ("9", "10", "J", "Q", "K", "A"),
}
#: Rule 3: "the cards from K to Ace are worth 1 point" (K, 10, A); 9, J and Q nothing.
POINT_RANKS = frozenset({"K", "10", "A"})
LAST_TRICK_POINTS = 1
#: Rule 4.1: cards in the widow for 4 and for 3 players.
WIDOW_SIZE = {4: 4, 3: 3}
#: Rule 4.4: the lowest bid with 4 and with 3 players.
MIN_BID = {4: 15, 3: 25}

REVOKE = "revoke"
MUST_TRUMP = "must_trump"
MUST_OVERTRUMP = "must_overtrump"


def card_points(card: Card) -> int:
    """Rule 3: K, 10 and A are worth 1 point, 9, J and Q nothing (24 in the deck)."""
    return 1 if card.rank in POINT_RANKS else 0


#: order name -> rank -> strength (0 = weakest)
STRENGTHS: dict[str, dict[str, int]] = {
    name: {rank: i for i, rank in enumerate(ranks)} for name, ranks in CARD_ORDERS.items()
}


def strength(card: Card, order: str) -> int:
    return STRENGTHS[order][card.rank]


def _beats(challenger: Card, best: Card, trump: str, order: str) -> bool:
    """Does ``challenger`` (played later) take the trick from ``best``?

    Strictly higher only: between two identical cards the first played wins.
    """
    if challenger.suit == best.suit:
        return strength(challenger, order) > strength(best, order)
    return challenger.suit == trump


def trick_winner(cards: Sequence[Card], trump: str, order: str) -> int:
    """Index of the winning card: highest trump, else highest of the suit led (rule 4.4)."""
    best = 0
    for i in range(1, len(cards)):
        if _beats(cards[i], cards[best], trump, order):
            best = i
    return best


@cache
def suit_cards(suit: str) -> frozenset[Card]:
    return frozenset(Card(suit, r) for r in CARD_ORDERS["A10KQJ9"])


@cache
def higher_trumps(than: Card, trump: str, order: str) -> frozenset[Card]:
    return frozenset(c for c in suit_cards(trump) if strength(c, order) > strength(than, order))


def obligations(
    previous: Sequence[Card], card: Card, trump: str, order: str, overtrump: str
) -> list[tuple[str, frozenset[Card]]]:
    """The play obligations ``card`` may have broken, as ``(rule, cards)``: the play broke
    ``rule`` iff the player held any of ``cards`` (rule 4.4, the paragraph on playing).

    - must follow suit (``revoke``);
    - void in the suit led, must play a trump (``must_trump``);
    - trump led: must answer with a *higher* trump if able (``must_overtrump``).  The document
      says "if trump is played, everyone must answer with a higher trump": option ``overtrump``
      ``"trump_led"`` (default, trumps led) or ``"any_trump"`` (also a void player must beat a
      trump already played to a plain-suit trick).
    Listed most basic first: a play that broke several is named after the first one proven.
    """
    if not previous:
        return []
    led = previous[0].suit
    trumps_so_far = [c for c in previous if c.suit == trump]
    found: list[tuple[str, frozenset[Card]]] = []
    if card.suit != led:
        found.append((REVOKE, suit_cards(led)))
        if card.suit != trump and led != trump:
            found.append((MUST_TRUMP, suit_cards(trump)))
    overtrump_due = led == trump or overtrump == "any_trump"
    if card.suit == trump and overtrump_due and trumps_so_far:
        best = max(trumps_so_far, key=lambda c: strength(c, order))
        stronger = higher_trumps(best, trump, order)
        if strength(card, order) <= strength(best, order) and stronger:
            found.append((MUST_OVERTRUMP, stronger))
    return found


def min_bid(players: int, override: int | None = None) -> int:
    """Rule 4.4: at least 15 with four players, 25 with three (option ``min_bid`` overrides)."""
    return MIN_BID[players] if override is None else override


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's share of a deal: card points (with the last trick and, for the declarer, the
    discard), the melds that count, and the change to the seat's game score."""

    cards: int
    melds: int
    tricks: int
    delta: int

    @property
    def total(self) -> int:
        return self.cards + self.melds


@dataclass(frozen=True, slots=True)
class DealScore:
    declarer: str
    bid: int
    made: bool  # the declarer reached the bid
    seats: dict[str, SeatScore]
    counted_melds: tuple[Meld, ...]
    false_melds: tuple[Meld, ...]

    @property
    def card_points(self) -> int:
        return sum(s.cards for s in self.seats.values())


@dataclass(frozen=True, slots=True)
class TrickRecord:
    winner: str
    plays: tuple[tuple[str, Card], ...]


def score_deal(
    seats: Sequence[str],
    declarer: str,
    bid: int,
    tricks: Sequence[TrickRecord],
    discard: Sequence[Card],
    melds: Sequence[Meld],
    *,
    bestia: str = "bid",
    declarer_scores: str = "made",
    reuse_across_kinds: bool = True,
) -> DealScore:
    """Score a finished deal (rules 3, 4.2, 4.4).

    Each seat makes the points of the cards it took, +1 for the last trick; the declarer also
    the discard.  A seat's melds count only if they were really held (all their cards played by
    that seat) and, for the other players, only if the seat took at least one trick.  The
    declarer who reaches the bid adds the points made (``declarer_scores="made"``, the document:
    "the points are added") or the bid (``"bid"``); one who does not is in "bestia" and loses
    the bid (``bestia="bid"``: "as many points as declared and not made") or only the points
    missing (``bestia="shortfall"``).  The other players always add what they made.
    """
    cards = dict.fromkeys(seats, 0)
    taken = dict.fromkeys(seats, 0)
    played: dict[str, Counter[Card]] = {s: Counter() for s in seats}
    for trick in tricks:
        taken[trick.winner] += 1
        cards[trick.winner] += sum(card_points(c) for _, c in trick.plays)
        for seat, card in trick.plays:
            played[seat][card] += 1
    if tricks:
        cards[tricks[-1].winner] += LAST_TRICK_POINTS
    cards[declarer] += sum(card_points(c) for c in discard)
    counted: list[Meld] = []
    false: list[Meld] = []
    meld_points = dict.fromkeys(seats, 0)
    for seat in seats:
        honest, lies = honest_melds(
            [m for m in melds if m.seat == seat],
            played[seat],
            reuse_across_kinds=reuse_across_kinds,
        )
        false.extend(lies)
        if seat == declarer or taken[seat] > 0:
            counted.extend(honest)
            meld_points[seat] = sum(m.points for m in honest)
    total = {s: cards[s] + meld_points[s] for s in seats}
    made = total[declarer] >= bid
    delta = dict(total)
    if made and declarer_scores == "bid":
        delta[declarer] = bid
    elif not made:
        delta[declarer] = -bid if bestia == "bid" else total[declarer] - bid
    scores = {s: SeatScore(cards[s], meld_points[s], taken[s], delta[s]) for s in seats}
    return DealScore(declarer, bid, made, scores, tuple(counted), tuple(false))


def match_winner(scores: Mapping[str, int], target: int) -> str | None:
    """Rule 4.3: the first to reach ``target`` (100) wins.  The document does not say who wins
    when several reach it in the same deal: the highest score; a tie at the top plays on."""
    reached = {s: v for s, v in scores.items() if v >= target}
    if not reached:
        return None
    top = max(reached.values())
    leaders = [s for s, v in reached.items() if v == top]
    return leaders[0] if len(leaders) == 1 else None
