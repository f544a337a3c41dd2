"""Belotta deal and match scoring (rules 2g, 4a-4f)."""

from __future__ import annotations

import pytest

from referee.rules.games.belotta_scoring import (
    BAGNO,
    CAPPOTTO,
    MADE,
    TIE,
    DealScore,
    MatchScore,
    add_deal,
    round_score,
    score_deal,
)


def deal(
    caller_points: int,
    *,
    caller: int = 0,
    last: int | None = None,
    decl: tuple[int, int] = (0, 0),
    belotta: tuple[int, int] = (0, 0),
    pot: int = 0,
    **kw: bool,
) -> DealScore:
    """A deal where the caller's team took ``caller_points`` of the 152 card points in trick 1
    and the defenders the rest in trick 2; ``last`` takes the empty last trick (default caller)."""
    defender = 1 - caller
    teams = [caller, defender] + [caller if last is None else last] * 6
    points = [caller_points, 152 - caller_points] + [0] * 6
    return score_deal(teams, points, caller, decl, belotta, pot, **kw)


def test_rule_4a_162_per_deal_and_caller_makes_more_than_half() -> None:
    d = deal(80)  # 80 + 10 for the last trick = 90 against 72
    assert d.outcome == MADE and d.winner == 0
    assert d.card_points == (90, 72) and sum(d.card_points) == 162
    assert d.raw == (90, 72)


def test_rule_4a_bagno_defenders_take_162_and_the_declarations() -> None:
    d = deal(60, decl=(20, 50))  # 70 + 20 = 90 against 92 + 50 = 142: not more than half
    assert d.outcome == BAGNO and d.winner == 1
    assert d.raw == (0, 162 + 70)


def test_rule_4a_declarations_count_towards_the_half() -> None:
    d = deal(60, decl=(50, 0))  # 70 + 50 = 120 against 92
    assert d.outcome == MADE and d.raw == (120, 92)


def test_rule_3h_belotta_stays_with_the_caller_in_bagno() -> None:
    d = deal(40, decl=(20, 0), belotta=(20, 0))
    assert d.outcome == BAGNO and d.raw == (20, 162)
    d = deal(40, decl=(20, 0), belotta=(20, 0), bagno_belotta_stays=False)
    assert d.raw == (0, 182)


def test_rule_4b_tie_carries_the_81_to_the_next_deal() -> None:
    d = deal(71)  # 71 + 10 = 81 each
    assert d.outcome == TIE and d.winner is None
    assert d.raw == (0, 81) and d.pot_out == 81
    nxt = deal(100, caller=1, pot=d.pot_out)  # the next deal's winner takes the 81
    assert nxt.winner == 1 and nxt.raw == (52, 110 + 81) and nxt.pot_out == 0
    again = deal(71, pot=81)  # another tie: the pot grows
    assert again.pot_out == 162


def test_rule_4c_cappotto_252_plus_declarations_opponents_keep_theirs() -> None:
    d = score_deal([0] * 8, [19] * 8, 0, (20, 50), (0, 0))
    assert d.outcome == CAPPOTTO and d.winner == 0
    assert d.raw == (252 + 20, 50)


def test_rule_2g_cappotto_last_trick_worth_100() -> None:
    d = score_deal([0] * 8, [19] * 8, 0, (0, 0), (0, 0))
    assert d.card_points == (252, 0)


def test_defenders_taking_every_trick_is_a_bagno_not_a_cappotto() -> None:
    d = score_deal([1] * 8, [19] * 8, 0, (0, 0), (0, 0))
    assert d.outcome == BAGNO and d.raw == (0, 162)


@pytest.mark.parametrize(("raw", "written"), [(85, 9), (84, 8), (0, 0), (4, 0), (5, 1), (162, 16)])
def test_rule_4d_rounding_half_up_to_tens(raw: int, written: int) -> None:
    assert round_score(raw) == written


def test_rule_4d_deal_scores_are_written_rounded() -> None:
    assert deal(75).rounded == (9, 8)  # 85 and 77


def test_rule_4e_needs_151() -> None:
    match = MatchScore(rounded=[141, 100], raw=[1410, 1000])
    assert add_deal(match, deal(80)) is None  # 141 + 9 = 150: not past 150
    assert match.rounded == [150, 107]
    assert add_deal(match, deal(80)) == 0  # 159


def test_rule_4e_both_past_150_the_higher_unrounded_wins() -> None:
    match = MatchScore(rounded=[145, 145], raw=[1440, 1470])
    # 91 -> 9 and 71 -> 7: both pass 150, team 0 written higher (154 to 152) ...
    assert add_deal(match, deal(81)) == 1  # ... but unrounded 1531 against 1541
    assert match.rounded == [154, 152]


def test_rule_4e_both_past_150_level_unrounded_plays_on() -> None:
    match = MatchScore(rounded=[145, 145], raw=[1440, 1460])
    assert add_deal(match, deal(81)) is None


def test_rule_4f_past_150_only_by_declarations_under_cappotto_does_not_win() -> None:
    match = MatchScore(rounded=[145, 100], raw=[1450, 1000])
    # team 0 defends, keeps its carré (100) but the caller (team 1) takes every trick
    d = score_deal([1] * 8, [19] * 8, 1, (100, 0), (0, 0))
    assert d.outcome == CAPPOTTO and d.raw == (100, 252)
    assert add_deal(match, d) is None and match.rounded[0] == 155
    # it must wait for a deal in which it makes at least 5/10 of a point from play
    assert add_deal(match, deal(100, caller=1, last=1)) == 0
