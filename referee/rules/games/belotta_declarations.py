"""Belotta declarations ("accusi", rules 3a-3h, tab. 2): what a set of cards is worth and which count.

A declaration arrives as the cards shown; :func:`classify` works out its kind and value or
raises :class:`DeclarationError` saying why the cards are no declaration.  :func:`resolve`
applies the precedence between opponents (3b-3e): only the team holding the best declaration
scores its declarations; belotta-rebelotta (3h) is always valid and excludes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.cards import Card, parse_card
from referee.errors import RefereeError

#: Rule 3a: sequences run in the "scala quaranta" order A-K-Q-J-10-9-8-7 (weakest first here).
SEQUENCE_ORDER: tuple[str, ...] = ("7", "8", "9", "10", "J", "Q", "K", "A")
#: Rule 3e: carré of J beats 9, then A, K, Q, 10 (weakest first here); 7s and 8s are worth nothing.
CARRE_ORDER: tuple[str, ...] = ("10", "Q", "K", "A", "9", "J")
#: Tab. 2.
CARRE_POINTS: dict[str, int] = {"J": 200, "9": 150, "A": 100, "K": 100, "Q": 100, "10": 100}
SEQUENCE_KINDS: dict[int, tuple[str, int]] = {3: ("terza", 20), 4: ("cinquanta", 50)}
CENTO = ("cento", 100)  # five or more cards in sequence (3a)
BELOTTA_POINTS = 20

TERZA, CINQUANTA, CARRE, BELOTTA = "terza", "cinquanta", "carre", "belotta"


class DeclarationError(RefereeError, ValueError):
    """Cards that form no valid declaration (the message says why and names the cards)."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declaration: ``kind`` is terza, cinquanta, cento, carre or belotta."""

    kind: str
    cards: tuple[Card, ...]
    points: int
    suit: str | None  # None for a carré
    top: str  # highest rank of a sequence, the rank of a carré, "K" for belotta

    @property
    def codes(self) -> list[str]:
        return [c.code for c in self.cards]

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "cards": self.codes, "points": self.points}


def parse_cards(codes: Sequence[object]) -> tuple[Card, ...]:
    """Parse declared card codes; raises naming the first bad one."""
    cards: list[Card] = []
    for code in codes:
        if not isinstance(code, str):
            raise DeclarationError(f"declared card must be a code string, got {code!r}")
        cards.append(parse_card(code))
    return tuple(cards)


def classify(cards: Sequence[Card], trump: str) -> Declaration:
    """Rules 3a, 3g, 3h: the declaration ``cards`` make, or :class:`DeclarationError`."""
    shown = " ".join(c.code for c in cards)
    if len(set(cards)) != len(cards):
        raise DeclarationError(f"declaration repeats a card: {shown}")
    if any(c.rank not in SEQUENCE_ORDER for c in cards):
        raise DeclarationError(f"declaration holds a card outside the 32-card deck: {shown}")
    if set(cards) == {Card(trump, "K"), Card(trump, "Q")}:
        return Declaration(BELOTTA, _sorted(cards), BELOTTA_POINTS, trump, "K")
    ranks = {c.rank for c in cards}
    if len(cards) == 4 and len(ranks) == 1:
        rank = cards[0].rank
        if rank not in CARRE_POINTS:
            raise DeclarationError(f"a carré of {rank} is worth nothing (rule 3a): {shown}")
        return Declaration(CARRE, _sorted(cards), CARRE_POINTS[rank], None, rank)
    suits = {c.suit for c in cards}
    if len(cards) >= 3 and len(suits) == 1:
        idx = sorted(SEQUENCE_ORDER.index(c.rank) for c in cards)
        if idx == list(range(idx[0], idx[0] + len(idx))):
            kind, points = SEQUENCE_KINDS.get(len(cards), CENTO)
            return Declaration(kind, _sorted(cards), points, cards[0].suit, SEQUENCE_ORDER[idx[-1]])
        raise DeclarationError(f"not a run in the order A-K-Q-J-10-9-8-7 (rule 3a): {shown}")
    raise DeclarationError(
        f"not a declaration (run of 3+ in one suit, four of a kind, or K+Q of trump): {shown}"
    )


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: (c.suit, -SEQUENCE_ORDER.index(c.rank))))


def rank_key(decl: Declaration, trump: str, *, longer_cento_wins: bool = False) -> tuple[int, ...]:
    """Comparison key between opponents' declarations (higher wins; belotta takes no part).

    3d: any carré beats any sequence; 3e: carrés by J 9 A K Q 10.  3b: a longer class of
    sequence wins (terza < cinquanta < cento); 3b/3c: at equal class the higher top card,
    then (3c.2) the trump suit.  Sequences of six or more are all "cento" (3a), so by the
    document a cento of six does not beat a higher cento of five; ``longer_cento_wins``
    makes length count first (the French custom).
    """
    if decl.kind == CARRE:
        return (1, CARRE_ORDER.index(decl.top), 0, 0)
    length = len(decl.cards) if longer_cento_wins else min(len(decl.cards), 5)
    return (0, length, SEQUENCE_ORDER.index(decl.top), int(decl.suit == trump))


def check_disjoint(existing: Sequence[Declaration], new: Declaration) -> None:
    """A card may serve in one declaration only, except in belotta-rebelotta (3h)."""
    if new.kind == BELOTTA:
        if any(d.kind == BELOTTA for d in existing):
            raise DeclarationError("belotta already declared")
        return
    used = {c for d in existing if d.kind != BELOTTA for c in d.cards}
    clash = [c.code for c in new.cards if c in used]
    if clash:
        raise DeclarationError(f"card(s) already in another declaration: {' '.join(clash)}")


def best_team(
    declared: Sequence[tuple[int, Declaration]],
    team_of: Sequence[int],
    trump: str,
    *,
    longer_cento_wins: bool = False,
) -> int | None:
    """Which team's declarations count (3b-3e), or None when nobody declared anything but belotta.

    ``declared`` holds ``(position, declaration)`` with ``position`` the declarer's place in
    the first trick (0 = first to play); ``team_of[position]`` is their team.  Equal best
    sequences of opponents go to the player first in the first trick (3c.3).
    """
    best: tuple[tuple[int, ...], int] | None = None  # (key, -position): max wins
    for position, decl in declared:
        if decl.kind == BELOTTA:
            continue
        key = (rank_key(decl, trump, longer_cento_wins=longer_cento_wins), -position)
        if best is None or key > best:
            best = key
    return None if best is None else team_of[-best[1]]


def valid_points(
    declared: Sequence[tuple[int, Declaration]],
    team_of: Sequence[int],
    trump: str,
    *,
    longer_cento_wins: bool = False,
) -> tuple[list[bool], dict[int, int]]:
    """Which declarations count, and the points per team they bring (belotta always counts)."""
    winner = best_team(declared, team_of, trump, longer_cento_wins=longer_cento_wins)
    valid = [d.kind == BELOTTA or team_of[p] == winner for p, d in declared]
    points: dict[int, int] = {}
    for (position, decl), ok in zip(declared, valid, strict=True):
        if ok:
            team = team_of[position]
            points[team] = points.get(team, 0) + decl.points
    return valid, points
