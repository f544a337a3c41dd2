"""Briscola chiamata: contract checks and deal/match scoring as pure functions (rules 2a-7d)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.cards import ITALIAN_40, Card, parse_card
from referee.rules.games.chiamata import (
    ChiamataOptions,
    Contract,
    ContractError,
    check_contract,
    contract_multiplier,
    deal_score,
    hand_points,
    leaders,
    sides,
)

SEATS = ("A", "B", "C", "D", "E")
RULES = ChiamataOptions()


def contract(called: str = "coppe_1", points: int = 61, in_mano: bool = False) -> Contract:
    return Contract("A", parse_card(called), points, in_mano)


def test_rule_2a_callers_win_with_61() -> None:
    assert deal_score(SEATS, contract(), "C", 61, RULES).callers_win
    assert not deal_score(SEATS, contract(), "C", 60, RULES).callers_win


def test_rule_2a_contract_points_above_61_are_the_target() -> None:
    c = contract("coppe_2", points=70)
    assert not deal_score(SEATS, c, "C", 69, RULES).callers_win
    assert deal_score(SEATS, c, "C", 70, RULES).callers_win


def test_rule_3a_two_callers_against_three() -> None:
    callers, defenders = sides(SEATS, "D", "B")
    assert callers == ("B", "D")
    assert defenders == ("A", "C", "E")
    score = deal_score(SEATS, Contract("D", parse_card("spade_1")), "B", 80, RULES)
    assert score.points == {"B+D": 80, "A+C+E": 40}
    assert score.winner == "B+D"


def test_rule_3c_card_auction_raises_points_only_on_the_two() -> None:
    card_rules = ChiamataOptions(auction="card")
    check_contract(contract("coppe_2", 75), SEATS, card_rules)
    with pytest.raises(ContractError, match="coppe_1"):
        check_contract(contract("coppe_1", 75), SEATS, card_rules)
    check_contract(contract("coppe_1", 75), SEATS, RULES)  # auction on points: any card


def test_rule_3d_points_outside_61_to_120_are_rejected() -> None:
    for bad in (60, 121):
        with pytest.raises(ContractError, match="points"):
            check_contract(contract(points=bad), SEATS, RULES)


def test_contract_from_an_unknown_seat_is_rejected() -> None:
    with pytest.raises(ContractError, match="'Z'"):
        check_contract(Contract("Z", parse_card("coppe_1")), SEATS, RULES)


def test_contract_calling_a_french_card_is_rejected() -> None:
    with pytest.raises(ContractError, match="AS"):
        check_contract(Contract("A", parse_card("AS")), SEATS, RULES)


def test_rule_3e_called_suit_is_trump() -> None:
    assert contract("denari_3").trump == "denari"


def test_rule_5a_credits_when_callers_win() -> None:
    score = deal_score(SEATS, contract(), "C", 70, RULES)
    assert score.credits == {"A": 2, "B": -1, "C": 1, "D": -1, "E": -1}


def test_rule_5a_credits_when_callers_lose() -> None:
    score = deal_score(SEATS, contract(), "C", 50, RULES)
    assert score.credits == {"A": -2, "B": 1, "C": -1, "D": 1, "E": 1}
    assert score.winner == "B+D+E"


def test_rule_5b_credits_sum_to_zero_in_the_documents_example() -> None:
    assert sum(deal_score(SEATS, contract(), "B", 90, RULES).credits.values()) == 0


def test_rule_7b_doppia_when_the_two_is_called_with_71_to_80() -> None:
    for pts in (71, 80):
        score = deal_score(SEATS, contract("coppe_2", pts), "C", 100, RULES)
        assert score.credits == {"A": 4, "B": -2, "C": 2, "D": -2, "E": -2}
    assert contract_multiplier(contract("coppe_2", 70), RULES) == 1


def test_rule_7b_tripla_when_the_two_is_called_above_80() -> None:
    score = deal_score(SEATS, contract("coppe_2", 81), "C", 100, RULES)
    assert score.credits == {"A": 6, "B": -3, "C": 3, "D": -3, "E": -3}


def test_rule_7b_doppia_only_when_won_by_default() -> None:
    lost = deal_score(SEATS, contract("coppe_2", 75), "C", 74, RULES)
    assert lost.credits["A"] == -2
    on_loss = ChiamataOptions(multiplier_on_loss=True)
    assert deal_score(SEATS, contract("coppe_2", 75), "C", 74, on_loss).credits["A"] == -4


def test_rule_7b_doppia_needs_the_two_by_default() -> None:
    assert contract_multiplier(contract("coppe_1", 75), RULES) == 1
    any_card = ChiamataOptions(multiplier_needs_two=False)
    assert contract_multiplier(contract("coppe_1", 75), any_card) == 2


def test_rule_7c_cappotto_doubles_the_documents_example() -> None:
    # "Il chiamante che chiamando 75 vince totalizzando 120 punti prende +8 e il socio +4."
    score = deal_score(SEATS, contract("coppe_2", 75), "C", 120, RULES)
    assert score.cappotto
    assert score.credits == {"A": 8, "B": -4, "C": 4, "D": -4, "E": -4}


def test_rule_7c_cappotto_by_the_defenders_doubles_too() -> None:
    score = deal_score(SEATS, contract(), "C", 0, RULES)
    assert score.cappotto
    assert score.credits == {"A": -4, "B": 2, "C": -2, "D": 2, "E": 2}


def test_rule_7d_in_mano_caller_alone_with_double_credits() -> None:
    score = deal_score(SEATS, contract(in_mano=True), "A", 61, RULES)
    assert score.callers == ("A",)
    assert score.credits == {"A": 4, "B": -1, "C": -1, "D": -1, "E": -1}
    lost = deal_score(SEATS, contract(in_mano=True), "A", 60, RULES)
    assert lost.credits == {"A": -4, "B": 1, "C": 1, "D": 1, "E": 1}


def test_rule_7d_calling_a_card_one_holds_is_in_mano() -> None:
    score = deal_score(SEATS, contract(), "A", 70, RULES)
    assert score.callers == ("A",)
    assert score.credits["A"] == 4


def test_rule_6a_hand_points() -> None:
    blank = [parse_card(c) for c in ("coppe_2", "coppe_4", "spade_5", "spade_6", "denari_7")]
    assert hand_points(blank) == 0
    assert hand_points([*blank, parse_card("bastoni_8"), parse_card("bastoni_1")]) == 13
    assert hand_points(list(ITALIAN_40)) == 120


def test_leaders_names_every_tied_seat() -> None:
    assert leaders({"A": 3, "B": -1, "C": 3}) == ("A", "C")
    assert leaders({"A": 0}) == ("A",)


def test_penalty_outcome_overrides_points_without_cappotto() -> None:
    score = deal_score(SEATS, contract(), "C", 120, RULES, callers_win=False)
    assert not score.callers_win and not score.cappotto
    assert score.credits["A"] == -2


@given(
    caller=st.sampled_from(SEATS),
    partner=st.sampled_from(SEATS),
    called=st.sampled_from(ITALIAN_40.faces),
    target=st.integers(61, 120),
    made=st.integers(0, 120),
    in_mano=st.booleans(),
    needs_two=st.booleans(),
    on_loss=st.booleans(),
)
def test_rule_5b_credits_always_sum_to_zero(
    caller: str,
    partner: str,
    called: Card,
    target: int,
    made: int,
    in_mano: bool,
    needs_two: bool,
    on_loss: bool,
) -> None:
    rules = ChiamataOptions(multiplier_needs_two=needs_two, multiplier_on_loss=on_loss)
    c = Contract(caller, called, target, in_mano)
    score = deal_score(SEATS, c, partner, made, rules)
    assert sum(score.credits.values()) == 0
    assert sum(score.points.values()) == 120
    assert set(score.credits) == set(SEATS)
    assert (score.credits[caller] > 0) == score.callers_win
