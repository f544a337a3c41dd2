"""Binocolo's pure rules, one named scenario per paragraph of binocolo-48-carte.txt."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.cards import BINOCOLO_48, parse_card
from referee.rules.games.binocolo_melds import (
    BINOCOLO,
    COPPIA,
    NOVE,
    QUATTRO_ASSI,
    QUATTRO_DONNE,
    QUATTRO_JACK,
    QUATTRO_RE,
    SCALA,
    Meld,
    MeldBook,
    MeldError,
    classify,
    copies_needed,
    honest_melds,
)
from referee.rules.games.binocolo_rules import (
    MUST_OVERTRUMP,
    MUST_TRUMP,
    REVOKE,
    TrickRecord,
    card_points,
    match_winner,
    min_bid,
    obligations,
    score_deal,
    trick_winner,
)


def cards(codes: str) -> list:  # type: ignore[type-arg]
    return [parse_card(c) for c in codes.split()]


def rules_of(previous: str, card: str, trump: str = "S", overtrump: str = "trump_led") -> dict[str, set[str]]:
    found = obligations(cards(previous), parse_card(card), trump, "A10KQJ9", overtrump)
    return {rule: {c.code for c in held} for rule, held in found}


# Rule 1: 48 cards, 9 to Ace, all doubled.
def test_rule_1_deck_is_9_to_ace_twice() -> None:
    assert len(BINOCOLO_48) == 48
    assert Counter(BINOCOLO_48) == Counter({c: 2 for c in BINOCOLO_48.faces})
    assert {c.rank for c in BINOCOLO_48} == {"9", "10", "J", "Q", "K", "A"}


# Rule 2: 3 or 4 players; rule 4.4 minimum bids.
def test_rule_2_and_4_4_minimum_bid_by_players() -> None:
    assert min_bid(4) == 15
    assert min_bid(3) == 25
    assert min_bid(4, override=20) == 20


# Rule 3: K, 10, A worth 1; 9, J, Q nothing; 24 in the deck.
def test_rule_3_card_points_total_24() -> None:
    assert [card_points(c) for c in cards("KH 10H AH 9H JH QH")] == [1, 1, 1, 0, 0, 0]
    assert sum(card_points(c) for c in BINOCOLO_48) == 24


def test_rule_3_1_nove_of_trump_is_one_point() -> None:
    meld = classify("N", cards("9S"), "S")
    assert (meld.kind, meld.points) == (NOVE, 1)
    with pytest.raises(MeldError, match="9H"):
        classify("N", cards("9H"), "S")


def test_rule_3_2_coppia_two_points_four_in_trumps() -> None:
    assert (classify("N", cards("QH KH"), "S").kind, classify("N", cards("QH KH"), "S").points) == (COPPIA, 2)
    assert classify("N", cards("KS QS"), "S").points == 4
    with pytest.raises(MeldError):
        classify("N", cards("QH KS"), "S")


@pytest.mark.parametrize(
    ("rank", "kind", "points"),
    [("J", QUATTRO_JACK, 4), ("Q", QUATTRO_DONNE, 6), ("K", QUATTRO_RE, 8), ("A", QUATTRO_ASSI, 10)],
)
def test_rule_3_3_to_3_6_four_of_a_kind_of_different_suits(rank: str, kind: str, points: int) -> None:
    meld = classify("E", cards(f"{rank}C {rank}D {rank}H {rank}S"), "H")
    assert (meld.kind, meld.points) == (kind, points)
    with pytest.raises(MeldError):
        classify("E", cards(f"{rank}C {rank}C {rank}H {rank}S"), "H")


def test_rule_3_3_four_nines_or_tens_are_no_meld() -> None:
    for rank in ("9", "10"):
        with pytest.raises(MeldError):
            classify("E", cards(f"{rank}C {rank}D {rank}H {rank}S"), "H")


def test_rule_3_7_binocolo_jack_of_diamonds_queen_of_spades() -> None:
    meld = classify("W", cards("QS JD"), "C")
    assert (meld.kind, meld.points) == (BINOCOLO, 4)
    with pytest.raises(MeldError):
        classify("W", cards("QD JS"), "C")


def test_rule_3_8_scala_16_with_nine_15_without() -> None:
    assert classify("N", cards("9C 10C JC QC KC AC"), "S").points == 16
    meld = classify("N", cards("AC KC QC JC 10C"), "S")
    assert (meld.kind, meld.points) == (SCALA, 15)
    with pytest.raises(MeldError):
        classify("N", cards("AC KC QC JC 9C"), "S")
    with pytest.raises(MeldError, match="trumps"):
        classify("N", cards("AC KC QC JC 10C"), "S", scala_any_suit=False)
    assert classify("N", cards("AS KS QS JS 10S"), "S", scala_any_suit=False).points == 15


def test_rule_3_melds_share_cards_only_across_kinds() -> None:
    coppia = classify("N", cards("QS KS"), "S")
    binocolo = classify("N", cards("QS JD"), "S")
    assert copies_needed([coppia, binocolo])[parse_card("QS")] == 1
    assert copies_needed([coppia, binocolo], reuse_across_kinds=False)[parse_card("QS")] == 2
    assert copies_needed([coppia, coppia])[parse_card("QS")] == 2


def test_rule_1_meld_book_rejects_a_third_copy() -> None:
    book = MeldBook()
    book.add(classify("N", cards("QS JD"), "S"), Counter())
    book.add(classify("N", cards("QS JD"), "S"), Counter())  # double binocolo: both copies
    with pytest.raises(MeldError, match="QS"):
        book.add(classify("E", cards("QS KS"), "S"), Counter())
    with pytest.raises(MeldError, match="9S"):
        MeldBook().add(classify("N", cards("9S"), "S"), Counter(cards("9S 9S")))


def test_melds_are_honest_only_if_their_cards_were_played() -> None:
    melds = [classify("N", cards("QS KS"), "S"), classify("N", cards("QS KS"), "S")]
    honest, false = honest_melds(melds, Counter(cards("QS KS QS")))
    assert honest == melds[:1] and false == melds[1:]


# Rule 4.4: highest card wins; trump takes all; identical cards: the first played.
def test_rule_4_4_highest_of_suit_led_wins() -> None:
    assert trick_winner(cards("KH AH 10H 9H"), "S", "A10KQJ9") == 1
    assert trick_winner(cards("KH 10H AC QH"), "S", "A10KQJ9") == 1
    assert trick_winner(cards("KH 10H AC QH"), "S", "AKQJ109") == 0


def test_rule_4_4_void_player_trumps_and_takes_all() -> None:
    assert trick_winner(cards("AH 9S AH KS"), "S", "A10KQJ9") == 3
    assert trick_winner(cards("AH 9S 10H 9C"), "S", "A10KQJ9") == 1


def test_rule_4_4_first_of_two_identical_cards_wins() -> None:
    assert trick_winner(cards("9H AH AH 10H"), "S", "A10KQJ9") == 1
    assert trick_winner(cards("AH KS KS QS"), "S", "A10KQJ9") == 1


def test_rule_4_4_must_follow_suit() -> None:
    assert rules_of("KH", "QH") == {}
    assert rules_of("KH", "QC") == {
        REVOKE: {"9H", "10H", "JH", "QH", "KH", "AH"},
        MUST_TRUMP: {"9S", "10S", "JS", "QS", "KS", "AS"},
    }


def test_rule_4_4_void_must_trump_but_need_not_overtrump_by_default() -> None:
    assert set(rules_of("KH", "9S")) == {REVOKE}
    assert set(rules_of("KH 10S", "9S")) == {REVOKE}
    assert rules_of("KH 10S", "9S", overtrump="any_trump")[MUST_OVERTRUMP] == {"AS"}


def test_rule_4_4_trump_led_must_overtrump_if_able() -> None:
    assert rules_of("KS", "AS") == {}
    assert rules_of("KS", "QS") == {MUST_OVERTRUMP: {"10S", "AS"}}
    assert rules_of("KS AS", "AS") == {}  # nothing beats the first ace: no obligation left
    assert rules_of("KS", "KS") == {MUST_OVERTRUMP: {"10S", "AS"}}  # an equal card does not beat
    assert rules_of("KS", "QH") == {REVOKE: {"9S", "10S", "JS", "QS", "KS", "AS"}}


def test_rule_4_4_leader_has_no_obligation() -> None:
    assert rules_of("", "9H") == {}


def _deal(winners: list[str], discard: str = "AS 10S KS 9C") -> list[TrickRecord]:
    """Eleven tricks of four cards dealing out the 44 cards left after ``discard``."""
    deck = Counter(BINOCOLO_48)
    deck.subtract(Counter(cards(discard)))
    rest = sorted(deck.elements())
    seats = ("N", "E", "S", "W")
    return [
        TrickRecord(w, tuple(zip(seats, rest[4 * i : 4 * i + 4], strict=True)))
        for i, w in enumerate(winners)
    ]


def test_rule_4_2_and_4_4_declarer_made_bid_adds_points_made() -> None:
    tricks = _deal(["N"] * 10 + ["E"])
    melds = [Meld("N", COPPIA, 4, tuple(cards("QS KS")))]
    score = score_deal(("N", "E", "S", "W"), "N", 15, tricks, cards("AS 10S KS 9C"), melds)
    assert score.card_points == 25
    assert score.made
    assert score.seats["N"].melds == 0  # N never played a Q of spades: a false meld
    assert score.false_melds == tuple(melds)


def test_rule_4_4_other_players_melds_count_only_with_a_trick() -> None:
    tricks = _deal(["N"] * 11)
    # E played the first card of each trick: find two cards of a meld among them.
    e_cards = Counter(c for t in tricks for s, c in t.plays if s == "E")
    meld = Meld("E", NOVE, 1, (parse_card("9S"),))
    assert e_cards[parse_card("9S")] >= 1
    score = score_deal(("N", "E", "S", "W"), "N", 15, tricks, cards("AS 10S KS 9C"), [meld])
    assert score.seats["E"].melds == 0 and score.seats["E"].delta == 0
    tricks2 = _deal(["N"] * 10 + ["E"])
    score2 = score_deal(("N", "E", "S", "W"), "N", 15, tricks2, cards("AS 10S KS 9C"), [meld])
    assert score2.seats["E"].melds == 1


def test_rule_4_2_bestia_subtracts_the_bid() -> None:
    tricks = _deal(["E"] * 11, discard="9C 9C 9D 9D")
    score = score_deal(("N", "E", "S", "W"), "N", 20, tricks, cards("9C 9C 9D 9D"), [])
    assert not score.made
    assert score.seats["N"].delta == -20
    assert score.seats["E"].delta == 25
    short = score_deal(("N", "E", "S", "W"), "N", 20, tricks, cards("9C 9C 9D 9D"), [], bestia="shortfall")
    assert short.seats["N"].delta == -20  # made 0: shortfall equals the bid here
    tricks3 = _deal(["N"] * 5 + ["E"] * 6, discard="9C 9C 9D 9D")
    short3 = score_deal(("N", "E", "S", "W"), "N", 25, tricks3, cards("9C 9C 9D 9D"), [], bestia="shortfall")
    made = short3.seats["N"].total
    assert 0 < made < 25 and short3.seats["N"].delta == made - 25


def test_rule_4_4_discard_counts_for_the_declarer() -> None:
    tricks = _deal(["E"] * 11, discard="AS 10S KS AC")
    score = score_deal(("N", "E", "S", "W"), "N", 15, tricks, cards("AS 10S KS AC"), [])
    assert score.seats["N"].cards == 4


def test_rule_3_last_trick_is_worth_one() -> None:
    tricks = _deal(["E"] * 10 + ["W"], discard="9C 9C 9D 9D")
    score = score_deal(("N", "E", "S", "W"), "N", 15, tricks, cards("9C 9C 9D 9D"), [])
    last = sum(card_points(c) for _, c in tricks[-1].plays)
    assert score.seats["W"].cards == last + 1


def test_rule_4_2_declarer_scores_bid_option() -> None:
    tricks = _deal(["N"] * 11)
    score = score_deal(("N", "E", "S", "W"), "N", 15, tricks, cards("AS 10S KS 9C"), [], declarer_scores="bid")
    assert score.seats["N"].delta == 15 and score.seats["N"].total == 25


def test_rule_4_3_first_to_100_wins_tie_plays_on() -> None:
    assert match_winner({"N": 99, "E": 50}, 100) is None
    assert match_winner({"N": 104, "E": 101}, 100) == "N"
    assert match_winner({"N": 104, "E": 104, "S": 3}, 100) is None
