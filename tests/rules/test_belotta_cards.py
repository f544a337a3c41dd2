"""Belotta card orders, points, trick winners and obligations (tab. 1, rules 2b-2f)."""

from __future__ import annotations

from referee.cards import FRENCH_32, Card, parse_card
from referee.rules.games.belotta_cards import (
    MUST_OVERTRUMP,
    MUST_TRUMP,
    REVOKE,
    card_points,
    is_legal,
    legal_plays,
    obligations,
    trick_points,
    trick_winner,
)


def cards(codes: str) -> list[Card]:
    return [parse_card(c) for c in codes.split()]


def test_tab1_card_points_total_152_whatever_the_trump() -> None:
    for trump in "CDHS":
        assert trick_points(FRENCH_32.faces, trump) == 152


def test_tab1_trump_and_plain_values() -> None:
    assert [card_points(c, "H") for c in cards("JH 9H AH 10H KH QH 8H 7H")] == [
        20, 14, 11, 10, 4, 3, 0, 0,
    ]
    assert [card_points(c, "H") for c in cards("AS 10S KS QS JS 9S 8S 7S")] == [
        11, 10, 4, 3, 2, 0, 0, 0,
    ]


def test_tab1_trump_order_jack_nine_ace() -> None:
    assert trick_winner(cards("AH 9H JH 10H"), "H") == 2
    assert trick_winner(cards("AH 9H KH 10H"), "H") == 1


def test_tab1_plain_order_ace_ten_king() -> None:
    assert trick_winner(cards("KS 10S QS JS"), "H") == 1
    assert trick_winner(cards("9S JS 7S 8S"), "H") == 1


def test_rule_2b_trump_beats_any_suit_and_highest_trump_wins() -> None:
    assert trick_winner(cards("AS 7H KS 10S"), "H") == 1
    assert trick_winner(cards("AS 7H 8H 10S"), "H") == 2
    # an off-suit, non-trump card never wins, however high
    assert trick_winner(cards("7S AC AD 8S"), "H") == 3


def test_rule_2c_must_follow_suit() -> None:
    obs = obligations(cards("AS"), parse_card("7C"), "H")
    assert obs[0][0] == REVOKE and parse_card("KS") in obs[0][1]
    assert not is_legal(cards("7C KS"), cards("AS"), parse_card("7C"), "H")
    assert is_legal(cards("7C KS"), cards("AS"), parse_card("KS"), "H")


def test_rule_2c_void_must_trump_else_anything() -> None:
    assert legal_plays(cards("7C 8H"), cards("AS"), "H") == cards("8H")
    assert legal_plays(cards("7C 8D"), cards("AS"), "H") == cards("7C 8D")
    assert MUST_TRUMP in [rule for rule, _ in obligations(cards("AS"), parse_card("7C"), "H")]


def test_rule_2c_following_suit_need_not_go_higher() -> None:
    assert legal_plays(cards("7S AS"), cards("KS"), "H") == cards("7S AS")


def test_rule_2d_must_overtrump_a_previous_cut_if_able() -> None:
    # S leads spades, W cuts with 10H, N (void) holds JH: only the jack is legal (plus nothing)
    assert legal_plays(cards("JH 7C"), cards("AS 10H"), "H") == cards("JH")
    obs = dict(obligations(cards("AS 10H"), parse_card("7C"), "H"))
    assert obs[MUST_OVERTRUMP] == frozenset(cards("AH 9H JH"))


def test_rule_2d_never_obliged_to_undertrump() -> None:
    # holding only a lower trump, any card may go: the discard and the undertrump alike
    assert legal_plays(cards("7H 7C"), cards("AS 10H"), "H") == cards("7H 7C")
    assert is_legal(cards("7H 7C"), cards("AS 10H"), parse_card("7C"), "H")


def test_rule_2d_undertrump_variant_forces_any_trump() -> None:
    assert legal_plays(cards("7H 7C"), cards("AS 10H"), "H", must_undertrump=True) == cards("7H")


def test_rule_2d_lower_trump_while_holding_higher_is_illegal() -> None:
    assert not is_legal(cards("7H JH"), cards("AS 10H"), parse_card("7H"), "H")


def test_rule_2e_partner_winning_frees_the_void_player() -> None:
    # positions 0,2 are partners: the partner's ace holds the trick, no duty to cut
    assert legal_plays(cards("7C JH"), cards("AS 7S"), "H") == cards("7C JH")
    # the partner's trump holds the trick: no duty to go over it either
    assert legal_plays(cards("7C 8H JH"), cards("KS 10H 7S"), "H") == cards("7C 8H JH")


def test_rule_2e_opponent_winning_is_no_exception() -> None:
    # position 2 plays; position 1 (an opponent) holds the trick with the ace
    assert legal_plays(cards("7C JH"), cards("7S AS"), "H") == cards("JH")


def test_rule_2f_trump_led_must_go_higher_if_able() -> None:
    assert legal_plays(cards("7H JH AC"), cards("9H"), "H") == cards("JH")
    # even when the partner holds the trick (2e does not apply to a trump lead)
    assert legal_plays(cards("7H JH AC"), cards("9H 7D"), "H") == cards("JH")


def test_rule_2f_trump_led_follow_lower_if_unable_to_beat() -> None:
    assert legal_plays(cards("7H AC"), cards("JH"), "H") == cards("7H")
    assert legal_plays(cards("AC KD"), cards("JH"), "H") == cards("AC KD")


def test_first_card_of_a_trick_is_always_legal() -> None:
    assert obligations([], parse_card("7C"), "H") == []
    assert legal_plays(cards("7C JH"), [], "H") == cards("7C JH")
