"""Belotta deal and match scoring (rules 2g, 4a-4f).

Teams are indices 0 and 1 here; the game module names them.  All figures are "raw" points
(162 a deal) until :func:`round_score` turns them into the tens that are written down (4d).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.rules.games.belotta_cards import (
    CAPPOTTO_LAST_TRICK_BONUS,
    CARD_POINTS_TOTAL,
    LAST_TRICK_BONUS,
)

MADE, BAGNO, TIE, CAPPOTTO = "made", "bagno", "tie", "cappotto"
FULL_SCORE = CARD_POINTS_TOTAL + LAST_TRICK_BONUS  # 162
CAPPOTTO_SCORE = CARD_POINTS_TOTAL + CAPPOTTO_LAST_TRICK_BONUS  # 252
#: Rule 4f: a team must "make at least 5/10 of a point" from play (5 raw points) to win.
MIN_PLAY_POINTS_TO_WIN = 5


def round_score(raw: int) -> int:
    """Rule 4d: tens, half up (85 -> 9, 84 -> 8)."""
    return (raw + 5) // 10


@dataclass(frozen=True, slots=True)
class DealScore:
    """One deal's result.  ``play`` is what each team made from the tricks (after bagno or
    cappotto), ``declarations`` the declaration points it keeps, ``raw`` their sum plus any
    pot won, ``rounded`` what is written down (4d)."""

    outcome: str  # made | bagno | tie | cappotto
    winner: int | None  # team index; None on a tie (4b)
    card_points: tuple[int, int]  # points taken in tricks incl. the last-trick bonus
    play: tuple[int, int]
    declarations: tuple[int, int]
    raw: tuple[int, int]
    rounded: tuple[int, int]
    pot_out: int  # raw points left in play for the next deal (4b)


def score_deal(
    trick_teams: Sequence[int],
    trick_points: Sequence[int],
    caller: int,
    declarations: Sequence[int],
    belotta: Sequence[int],
    pot_in: int = 0,
    *,
    bagno_belotta_stays: bool = True,
) -> DealScore:
    """Score a finished deal.

    ``trick_teams[i]`` took trick ``i`` worth ``trick_points[i]`` card points; ``declarations``
    are each team's valid declaration points *including* belotta, ``belotta`` the belotta part.
    4a: the caller's team must make more than half of everything (cards, last trick and
    declarations) or go "bagno": the defenders take 162 and the declarations.  By default the
    caller keeps its belotta, which rule 3h calls "always valid" (``bagno_belotta_stays``).
    4b: on an exact half the defenders score theirs and the caller's points stay in play.
    2g/4c: the caller's team taking every trick scores 252 plus its declarations, the
    defenders keep theirs.
    """
    defender = 1 - caller
    cards = [0, 0]
    for team, points in zip(trick_teams, trick_points, strict=True):
        cards[team] += points
    cappotto = all(t == caller for t in trick_teams)
    cards[trick_teams[-1]] += CAPPOTTO_LAST_TRICK_BONUS if cappotto else LAST_TRICK_BONUS
    decl = list(declarations)
    caller_total = cards[caller] + decl[caller]
    everything = sum(cards) + sum(decl)
    play, kept = list(cards), list(decl)
    winner: int | None
    if cappotto:
        outcome, winner = CAPPOTTO, caller
    elif 2 * caller_total > everything:
        outcome, winner = MADE, caller
    elif 2 * caller_total == everything:
        outcome, winner = TIE, None
        play[caller], kept[caller] = 0, 0
    else:
        outcome, winner = BAGNO, defender
        stays = belotta[caller] if bagno_belotta_stays else 0
        play = [0, 0]
        play[defender] = FULL_SCORE
        kept[defender] = sum(decl) - stays
        kept[caller] = stays
    raw = [play[0] + kept[0], play[1] + kept[1]]
    pot_out = pot_in + caller_total if winner is None else 0
    if winner is not None:
        raw[winner] += pot_in
    return DealScore(
        outcome,
        winner,
        (cards[0], cards[1]),
        (play[0], play[1]),
        (kept[0], kept[1]),
        (raw[0], raw[1]),
        (round_score(raw[0]), round_score(raw[1])),
        pot_out,
    )


@dataclass(slots=True)
class MatchScore:
    """Running match score: the written-down tens, the unrounded points (4e) and the pot (4b)."""

    rounded: list[int] = field(default_factory=lambda: [0, 0])
    raw: list[int] = field(default_factory=lambda: [0, 0])
    pot: int = 0
    deals: int = 0


def add_deal(match: MatchScore, deal: DealScore, target: int = 151) -> int | None:
    """Add a deal to the match; return the winning team when the match is decided.

    4e: the first team to reach ``target`` (151: "more than 150") wins; both at once, the
    higher unrounded score.  4f: a team that gets there without making at least 5 points
    from the play in this deal (e.g. only its declarations, having suffered cappotto) must
    wait for a deal in which it does.
    """
    for team in (0, 1):
        match.rounded[team] += deal.rounded[team]
        match.raw[team] += deal.raw[team]
    match.pot = deal.pot_out
    match.deals += 1
    eligible = [
        t for t in (0, 1) if match.rounded[t] >= target and deal.play[t] >= MIN_PLAY_POINTS_TO_WIN
    ]
    if len(eligible) == 1:
        return eligible[0]
    if len(eligible) == 2 and match.raw[0] != match.raw[1]:
        return 0 if match.raw[0] > match.raw[1] else 1
    return None
