"""Belotta declarations: kinds and values (3a, 3g, 3h, tab. 2) and precedence (3b-3e)."""

from __future__ import annotations

import itertools

import pytest

from referee.cards import Card, parse_card
from referee.rules.games.belotta_declarations import (
    Declaration,
    DeclarationError,
    best_team,
    check_disjoint,
    classify,
    parse_cards,
    valid_points,
)


def decl(codes: str, trump: str = "H") -> Declaration:
    return classify([parse_card(c) for c in codes.split()], trump)


@pytest.mark.parametrize(
    ("codes", "kind", "points"),
    [
        ("AS KS QS", "terza", 20),
        ("9C 10C JC", "terza", 20),
        ("QD JD 10D 9D", "cinquanta", 50),
        ("AS KS QS JS 10S", "cento", 100),
        ("KS QS JS 10S 9S 8S 7S", "cento", 100),
        ("JC JD JH JS", "carre", 200),
        ("9C 9D 9H 9S", "carre", 150),
        ("AC AD AH AS", "carre", 100),
        ("10C 10D 10H 10S", "carre", 100),
        ("KH QH", "belotta", 20),
    ],
)
def test_rule_3g_tab2_values(codes: str, kind: str, points: int) -> None:
    d = decl(codes)
    assert (d.kind, d.points) == (kind, points)


def test_rule_3a_sequences_follow_the_scala_quaranta_order() -> None:
    # J-10-9 and K-Q-J are runs in A-K-Q-J-10-9-8-7; 10-J-Q with the 9 skipped is not
    assert decl("JS 10S 9S").top == "J"
    with pytest.raises(DeclarationError, match="A-K-Q-J-10-9-8-7"):
        decl("AS KS JS")
    with pytest.raises(DeclarationError):
        decl("AS KS QD")


def test_rule_3a_carre_of_sevens_or_eights_is_worth_nothing() -> None:
    for rank in "78":
        with pytest.raises(DeclarationError, match="worth nothing"):
            decl(" ".join(rank + s for s in "CDHS"))


def test_rule_3h_belotta_is_king_and_queen_of_trump_only() -> None:
    assert decl("QH KH", "H").kind == "belotta"
    with pytest.raises(DeclarationError):
        decl("KS QS", "H")


def test_bad_declarations_name_the_cards() -> None:
    with pytest.raises(DeclarationError, match="AS AS"):
        decl("AS AS KS")
    with pytest.raises(DeclarationError, match="2S"):
        classify([Card("S", "2"), Card("S", "3"), Card("S", "4")], "H")
    with pytest.raises(DeclarationError):
        parse_cards([3])


def test_rule_3b_cinquanta_beats_terza_and_cento_beats_cinquanta() -> None:
    # positions 0/2 are team 0, 1/3 team 1
    teams = [0, 1, 0, 1]
    assert best_team([(0, decl("AS KS QS")), (1, decl("10C 9C 8C 7C"))], teams, "H") == 1
    assert best_team([(2, decl("KD QD JD 10D 9D")), (1, decl("AC KC QC JC"))], teams, "H") == 0


def test_rule_3b_equal_class_the_higher_run_wins() -> None:
    teams = [0, 1, 0, 1]
    assert best_team([(0, decl("QS JS 10S")), (3, decl("AC KC QC"))], teams, "H") == 1


def test_rule_3c_equal_top_the_trump_run_wins() -> None:
    teams = [0, 1, 0, 1]
    assert best_team([(0, decl("AS KS QS")), (1, decl("AH KH QH"))], teams, "H") == 1


def test_rule_3c_equal_plain_runs_go_to_the_first_in_hand() -> None:
    teams = [0, 1, 0, 1]
    assert best_team([(1, decl("AS KS QS")), (2, decl("AC KC QC"))], teams, "H") == 1
    assert best_team([(2, decl("AC KC QC")), (3, decl("AS KS QS"))], teams, "H") == 0


def test_rule_3d_any_carre_beats_any_run() -> None:
    teams = [0, 1, 0, 1]
    assert best_team([(0, decl("AS KS QS JS 10S")), (1, decl("10C 10D 10H 10S"))], teams, "H") == 1


def test_rule_3e_carre_order_j_9_a_k_q_10() -> None:
    order = ["J", "9", "A", "K", "Q", "10"]
    teams = [0, 1, 0, 1]
    for hi, lo in itertools.pairwise(order):
        high = decl(" ".join(hi + s for s in "CDHS"))
        low = decl(" ".join(lo + s for s in "CDHS"))
        assert best_team([(0, low), (1, high)], teams, "H") == 1
        assert best_team([(0, high), (1, low)], teams, "H") == 0


def test_longer_cento_option() -> None:
    teams = [0, 1, 0, 1]
    six = decl("KS QS JS 10S 9S 8S")
    five = decl("AC KC QC JC 10C")
    # the document: both are "cento", the higher run (ace) wins
    assert best_team([(0, six), (1, five)], teams, "H") == 1
    assert best_team([(0, six), (1, five)], teams, "H", longer_cento_wins=True) == 0


def test_rule_3h_belotta_always_valid_and_excludes_nothing() -> None:
    teams = [0, 1, 0, 1]
    declared = [(0, decl("KH QH")), (1, decl("AS KS QS")), (3, decl("JC JD JH JS"))]
    valid, points = valid_points(declared, teams, "H")
    assert valid == [True, True, True]
    assert points == {0: 20, 1: 220}
    # the losing side's runs go, its partner's too; the winning side keeps all of its own
    declared = [(0, decl("AS KS QS")), (2, decl("9C 10C JC")), (1, decl("AD KD QD JD"))]
    valid, points = valid_points(declared, teams, "H")
    assert valid == [False, False, True] and points == {1: 50}


def test_nobody_declared() -> None:
    assert best_team([], [0, 1, 0, 1], "H") is None
    assert best_team([(0, decl("KH QH"))], [0, 1, 0, 1], "H") is None


def test_a_card_serves_one_declaration_except_belotta() -> None:
    terza = decl("KH QH JH")
    check_disjoint([terza], decl("KH QH"))
    with pytest.raises(DeclarationError, match="KH"):
        check_disjoint([terza], decl("KC KD KH KS"))
    with pytest.raises(DeclarationError, match="belotta already"):
        check_disjoint([decl("KH QH")], decl("QH KH"))
