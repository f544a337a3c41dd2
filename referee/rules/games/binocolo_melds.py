"""Binocolo melds ("accusi", rule 3 of binocolo-48-carte.txt): what a set of cards is worth.

The referee is told a meld as a ``declare`` event listing its cards; it never trusts a kind or a
value from the players.  :func:`classify` works out the one meld the cards form (or raises
:class:`MeldError` naming the cards), :class:`MeldBook` checks a new meld against every card the
table already knows of (two copies of each face exist), and :func:`honest_melds` settles at the
end of the deal which melds the seat really held (every card of a meld must have been played by
that seat).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.cards import FRENCH_SUITS, Card
from referee.rules.errors import EventError

#: Each face exists twice in the 48-card deck (rule 1).
COPIES = 2

#: Meld kind -> points (rule 3). Coppia and scala have two values; see :func:`classify`.
NOVE = "nove"  # 3.1 the 9 of the trump suit
COPPIA = "coppia"  # 3.2 Q and K of one suit
QUATTRO_JACK = "quattro_jack"  # 3.3
QUATTRO_DONNE = "quattro_donne"  # 3.4
QUATTRO_RE = "quattro_re"  # 3.5
QUATTRO_ASSI = "quattro_assi"  # 3.6
BINOCOLO = "binocolo"  # 3.7 J of diamonds and Q of spades
SCALA = "scala"  # 3.8 10..A of one suit (15), with the 9 too (16)

_FOUR_OF_A_KIND: dict[str, tuple[str, int]] = {
    "J": (QUATTRO_JACK, 4),
    "Q": (QUATTRO_DONNE, 6),
    "K": (QUATTRO_RE, 8),
    "A": (QUATTRO_ASSI, 10),
}
_SCALA_RANKS = frozenset({"10", "J", "Q", "K", "A"})
_BINOCOLO_CARDS = (Card("D", "J"), Card("S", "Q"))


class MeldError(EventError):
    """Cards that do not form a meld, or a meld the known cards make impossible: the referee
    rejects the ``declare`` event (an ``error`` call in ``referee replay``)."""


@dataclass(frozen=True, slots=True)
class Meld:
    """One declared meld: ``Meld('N', 'coppia', 4, (Card.parse('QS'), Card.parse('KS')))``."""

    seat: str
    kind: str
    points: int
    cards: tuple[Card, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "points": self.points,
            "cards": [c.code for c in self.cards],
        }


def _codes(cards: Iterable[Card]) -> str:
    return ", ".join(c.code for c in cards)


def classify(seat: str, cards: Sequence[Card], trump: str, *, scala_any_suit: bool = True) -> Meld:
    """The one meld ``cards`` form with ``trump`` as the trump suit, else :class:`MeldError`.

    ``scala_any_suit``: the document says a scala is "all the cards from 9 to Ace of the same
    suit" without asking for trumps (Pinochle only melds a run in trumps); option ``scala``.
    """
    cards = tuple(sorted(cards))
    suits = {c.suit for c in cards}
    ranks = [c.rank for c in cards]
    if any(c.suit not in FRENCH_SUITS for c in cards):
        raise MeldError(f"not binocolo cards: {_codes(cards)}")
    if len(cards) == 1 and ranks == ["9"] and cards[0].suit == trump:
        return Meld(seat, NOVE, 1, cards)
    if len(cards) == 2 and len(suits) == 1 and sorted(ranks) == ["K", "Q"]:
        return Meld(seat, COPPIA, 4 if trump in suits else 2, cards)
    if len(cards) == 2 and set(cards) == set(_BINOCOLO_CARDS):
        return Meld(seat, BINOCOLO, 4, cards)
    if len(cards) == 4 and len(set(ranks)) == 1 and len(suits) == 4 and ranks[0] in _FOUR_OF_A_KIND:
        kind, points = _FOUR_OF_A_KIND[ranks[0]]
        return Meld(seat, kind, points, cards)
    if len(suits) == 1 and len(set(ranks)) == len(ranks) and set(ranks) >= _SCALA_RANKS:
        if not scala_any_suit and trump not in suits:
            raise MeldError(
                f"{_codes(cards)}: a scala must be in trumps ({trump}), option scala='trump'"
            )
        if len(cards) in (5, 6):
            return Meld(seat, SCALA, 10 + len(cards), cards)  # 15 without the 9, 16 with it
    raise MeldError(f"{_codes(cards)} is no meld (trump {trump})")


def copies_needed(melds: Iterable[Meld], *, reuse_across_kinds: bool = True) -> Counter[Card]:
    """How many copies of each face a seat must hold to have shown ``melds``.

    ``reuse_across_kinds``: the document is silent on whether one card may serve two melds;
    the Pinochle habit (the family binocolo belongs to) lets a card serve melds of different
    kinds (the Q of spades in a coppia and in the binocolo) but never two of the same kind.
    Option ``meld_reuse``: ``"across_kinds"`` (default) or ``"never"``.
    """
    per_kind: dict[str, Counter[Card]] = {}
    for meld in melds:
        key = meld.kind if reuse_across_kinds else "*"
        per_kind.setdefault(key, Counter()).update(meld.cards)
    needed: Counter[Card] = Counter()
    for counts in per_kind.values():
        needed |= counts  # union keeps the max count per card
    return needed


@dataclass(slots=True)
class MeldBook:
    """Every meld of one deal, checked against the two copies of each face as it arrives."""

    reuse_across_kinds: bool = True
    #: every meld in declaration order (the i-th ``declare`` event of the deal), void ones too
    melds: list[Meld] = field(default_factory=list)
    #: seat -> copies of each face its live melds need (:func:`copies_needed`), kept up to date
    needs: dict[str, Counter[Card]] = field(default_factory=dict)
    #: indices into :attr:`melds` of melds later plays proved false: they need and prove nothing
    void: list[int] = field(default_factory=list)

    def seat_melds(self, seat: str) -> list[Meld]:
        """``seat``'s live (not void) melds."""
        return [m for i, m in enumerate(self.melds) if m.seat == seat and i not in self.void]

    def live(self) -> list[Meld]:
        return [m for i, m in enumerate(self.melds) if i not in self.void]

    def check(self, meld: Meld, known: Counter[Card], hand: int | None = None) -> Counter[Card]:
        """Raise :class:`MeldError` if ``meld`` cannot be held given every card already known;
        else return what the seat's melds need with it.

        ``known``: faces already accounted for outside the melds (the declarer's discard);
        ``hand``: how many cards the seat holds (its melds cannot need more).
        """
        mine = copies_needed([*self.seat_melds(meld.seat), meld], reuse_across_kinds=self.reuse_across_kinds)
        table = Counter(known)
        for seat, need in self.needs.items():
            if seat != meld.seat:
                table.update(need)
        for card in meld.cards:
            if mine[card] + table[card] > COPIES:
                raise MeldError(
                    f"{meld.seat} cannot hold {mine[card]} of {card.code}: "
                    f"{table[card]} of the {COPIES} copies are already shown elsewhere"
                )
        if hand is not None and sum(mine.values()) > hand:
            raise MeldError(
                f"{meld.seat}'s melds would need {sum(mine.values())} cards in a hand of {hand}"
            )
        return mine

    def add(self, meld: Meld, known: Counter[Card], hand: int | None = None) -> None:
        self.needs[meld.seat] = self.check(meld, known, hand)
        self.melds.append(meld)

    def add_void(self, meld: Meld) -> None:
        """A meld the engine voided (rule 3: later plays proved its seat never held it)."""
        self.void.append(len(self.melds))
        self.melds.append(meld)

    def first_false(self, seat: str, capacity: Counter[Card]) -> int | None:
        """The index of ``seat``'s first live meld that ``capacity`` (copies of each face the
        seat can still hold) cannot cover, in declaration order (:func:`honest_melds`)."""
        mine = [(i, m) for i, m in enumerate(self.melds) if m.seat == seat and i not in self.void]
        _, false = honest_melds([m for _, m in mine], capacity, reuse_across_kinds=self.reuse_across_kinds)
        return next((i for i, m in mine if any(m is f for f in false)), None)


def honest_melds(
    melds: Iterable[Meld], played: Counter[Card], *, reuse_across_kinds: bool = True
) -> tuple[list[Meld], list[Meld]]:
    """Split one seat's melds into (honest, false) once all the seat's cards have been played.

    Greedy in declaration order: a meld is honest when the seat played enough copies of each of
    its cards to cover it and the melds of the same kind declared before it.
    """
    honest: list[Meld] = []
    false: list[Meld] = []
    for meld in melds:
        trial = copies_needed([*honest, meld], reuse_across_kinds=reuse_across_kinds)
        if all(trial[c] <= played[c] for c in meld.cards):
            honest.append(meld)
        else:
            false.append(meld)
    return honest, false


def _take(avail: Counter[Card], cards: Sequence[Card]) -> bool:
    """Remove ``cards`` from ``avail`` if all are there; report whether they were."""
    need = Counter(cards)
    if any(avail[c] < n for c, n in need.items()):
        return False
    avail.subtract(need)
    return True


def find_melds(
    hand: Sequence[Card], trump: str, *, scala_any_suit: bool = True, reuse_across_kinds: bool = True
) -> list[tuple[Card, ...]]:
    """The melds a hand can show, greedily, biggest kinds first (for random playouts).

    Each is a card tuple :func:`classify` accepts; together they respect ``reuse_across_kinds``.
    """
    shared: Counter[Card] = Counter(hand)
    found: list[tuple[Card, ...]] = []

    def pool() -> Counter[Card]:
        return Counter(hand) if reuse_across_kinds else shared

    avail = pool()
    for suit in FRENCH_SUITS:
        if not scala_any_suit and suit != trump:
            continue
        run = [Card(suit, r) for r in ("10", "J", "Q", "K", "A")]
        while _take(avail, run):
            nine = Card(suit, "9")
            found.append((nine, *run) if _take(avail, [nine]) else tuple(run))
    for rank in ("A", "K", "Q", "J"):
        avail = pool()
        four = [Card(s, rank) for s in FRENCH_SUITS]
        while _take(avail, four):
            found.append(tuple(four))
    avail = pool()
    for suit in FRENCH_SUITS:
        pair = [Card(suit, "Q"), Card(suit, "K")]
        while _take(avail, pair):
            found.append(tuple(pair))
    for kind_cards in (list(_BINOCOLO_CARDS), [Card(trump, "9")]):
        avail = pool()
        while _take(avail, kind_cards):
            found.append(tuple(kind_cards))
    return found
