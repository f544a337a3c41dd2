"""Binocolo through the engine: one named scenario per paragraph of binocolo-48-carte.txt."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from referee.rules.errors import EventError, OptionError, PhaseError
from referee.rules.games.binocolo import Binocolo, BinocoloDeal, BinocoloOptions
from referee.rules.playout import random_deal_events
from referee.rules.referee import Referee

SEATS = ["N", "W", "S", "E"]  # play order
NINES = ["9C", "9C", "9D", "9D"]  # a pointless discard


def send(ref: Referee, event: dict[str, Any]) -> list[dict[str, Any]]:
    return [c.to_dict() for c in ref.apply(event)]


def new_ref(
    seats: Sequence[str] = SEATS,
    contract: tuple[str, int, str] | None = ("N", 15, "S"),
    discard: Sequence[str] | None = NINES,
    options: Mapping[str, Any] | None = None,
) -> Referee:
    ref = Referee()
    deal: dict[str, Any] = {"event": "deal", "game": "binocolo", "seats": list(seats), "dealer": seats[-1]}
    if options:
        deal["options"] = dict(options)
    ref.apply(deal)
    if contract:
        seat, bid, trump = contract
        ref.apply({"event": "contract", "seat": seat, "bid": bid, "trump": trump})
        if discard is not None:
            ref.apply({"event": "discard", "seat": seat, "cards": list(discard)})
    return ref


def play(ref: Referee, *plays: str) -> list[dict[str, Any]]:
    """``play(ref, "N:AH", "W:9H")``: the calls of all the plays, in order."""
    out: list[dict[str, Any]] = []
    for p in plays:
        seat, card = p.split(":")
        out += send(ref, {"event": "play", "seat": seat, "card": card})
    return out


def declare(ref: Referee, seat: str, cards: str) -> list[dict[str, Any]]:
    return send(ref, {"event": "declare", "seat": seat, "cards": cards.split()})


def violations(calls: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [(c["seat"], c["rule"], c["trick"]) for c in calls if c["call"] == "violation"]


def replay(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ref = Referee()
    return [c.to_dict() for e in events for c in ref.apply(e)]


# ---------------------------------------------------------------- rule 1: the cards
def test_rule_1_two_copies_play_a_third_is_duplicate_card() -> None:
    ref = new_ref()
    calls = play(ref, "N:AH", "W:AH")
    assert not violations(calls)
    calls = play(ref, "S:AH")
    assert violations(calls) == [("S", "duplicate_card", 1)]
    assert ref.turn == "S" and len(ref.deal.trick.plays) == 2  # type: ignore[union-attr]


def test_rule_1_discarded_copies_count_towards_the_two() -> None:
    ref = new_ref()  # N discarded both 9 of clubs
    assert violations(play(ref, "N:9C")) == [("N", "duplicate_card", 1)]


def test_rule_1_cards_outside_the_48_are_bad_cards() -> None:
    ref = new_ref()
    for code in ("8H", "2S", "coppe_1"):
        assert violations(play(ref, f"N:{code}")) == [("N", "bad_card", 1)]
    with pytest.raises(EventError, match="8H"):
        send(ref, {"event": "declare", "seat": "W", "cards": ["8H"]})


# ---------------------------------------------------------------- rule 2: 3 or 4 players
@pytest.mark.parametrize("seats", [["N", "S"], ["A", "B", "C", "D", "E"]])
def test_rule_2_three_or_four_players_only(seats: list[str]) -> None:
    with pytest.raises(EventError, match="3 or 4"):
        Referee().apply({"event": "deal", "game": "binocolo", "seats": seats})


def test_rule_2_and_4_1_three_players_fifteen_tricks_widow_of_three() -> None:
    events = random_deal_events("binocolo", 3, ["N", "W", "E"])
    calls = replay(events)
    assert len([c for c in calls if c["call"] == "trick"]) == 15
    discard = next(e for e in events if e["event"] == "discard")
    assert len(discard["cards"]) == 3
    ref = new_ref(["N", "W", "E"], contract=None)
    with pytest.raises(EventError, match="at least 25 with 3 players"):
        ref.apply({"event": "contract", "seat": "N", "bid": 24, "trump": "S"})
    send(ref, {"event": "contract", "seat": "N", "bid": 25, "trump": "S"})
    with pytest.raises(EventError, match=r"widow holds \(3\)"):
        ref.apply({"event": "discard", "seat": "N", "cards": NINES})


# ---------------------------------------------------------------- rule 3: points
def test_rule_3_king_ten_ace_one_point_each_in_the_trick_call() -> None:
    ref = new_ref()
    calls = play(ref, "N:KH", "W:10H", "S:AH", "E:QH")
    trick = next(c for c in calls if c["call"] == "trick")
    assert (trick["winner"], trick["points"]) == ("S", 3)
    calls = play(ref, "S:9H", "E:JH", "N:QH", "W:9H")
    assert next(c for c in calls if c["call"] == "trick")["points"] == 0


@pytest.mark.parametrize("seed", range(6))
def test_rule_3_25_points_a_deal_24_from_cards_plus_last_trick(seed: int) -> None:
    calls = replay(random_deal_events("binocolo", seed))
    tricks = [c for c in calls if c["call"] == "trick"]
    end = calls[-1]
    assert end["call"] == "deal_end"
    assert sum(end["card_points"].values()) == 25
    last = tricks[-1]
    card_points = sum(1 for _, code in last["cards"] if code[:-1] in ("K", "10", "A"))
    assert last["points"] == card_points + 1


@pytest.mark.parametrize(
    ("cards", "kind", "points"),
    [
        ("9S", "nove", 1),
        ("QH KH", "coppia", 2),
        ("KS QS", "coppia", 4),
        ("JC JD JH JS", "quattro_jack", 4),
        ("QC QD QH QS", "quattro_donne", 6),
        ("KC KD KH KS", "quattro_re", 8),
        ("AC AD AH AS", "quattro_assi", 10),
        ("JD QS", "binocolo", 4),
        ("9H 10H JH QH KH AH", "scala", 16),
        ("10H JH QH KH AH", "scala", 15),
    ],
)
def test_rule_3_1_to_3_8_melds_are_valued_by_the_referee(cards: str, kind: str, points: int) -> None:
    ref = new_ref()
    calls = declare(ref, "W", cards)
    assert calls == [
        {"call": "declaration", "seat": "W", "kind": kind, "points": points, "cards": sorted_codes(cards)}
    ]


def sorted_codes(cards: str) -> list[str]:
    from referee.cards import parse_card

    return [c.code for c in sorted(parse_card(x) for x in cards.split())]


@pytest.mark.parametrize("cards", ["9H", "QH KS", "JS QD", "JC JD JH", "9C 9D 9H 9S", "JH QH KH AH"])
def test_rule_3_cards_that_are_no_meld_are_rejected(cards: str) -> None:
    ref = new_ref()
    with pytest.raises(EventError, match="no meld"):
        declare(ref, "W", cards)
    assert ref.deal is not None and ref.deal.data_as(BinocoloDeal).melds.melds == []


def test_rule_3_a_meld_needing_a_third_copy_is_rejected() -> None:
    ref = new_ref()
    declare(ref, "W", "JD QS")
    declare(ref, "W", "JD QS")
    with pytest.raises(EventError, match="QS"):
        declare(ref, "E", "QS KS")
    with pytest.raises(EventError, match="9C"):
        declare(ref, "N", "9C 10C JC QC KC AC")  # N discarded both 9 of clubs


def test_rule_4_1_melds_cannot_need_more_cards_than_a_hand() -> None:
    ref = new_ref()
    declare(ref, "W", "9H 10H JH QH KH AH")
    with pytest.raises(EventError, match="12 cards in a hand of 11"):
        declare(ref, "W", "9S 10S JS QS KS AS")
    declare(ref, "W", "KH QH")  # the same cards serve a coppia too: still 6 cards
    three = new_ref(["N", "W", "E"], contract=("N", 25, "S"), discard=["9C", "9C", "9D"])
    declare(three, "W", "9H 10H JH QH KH AH")
    declare(three, "W", "10S JS QS KS AS")  # 11 of 15 cards


def test_rule_3_a_false_meld_is_reported_when_plays_prove_it() -> None:
    ref = new_ref()
    declare(ref, "W", "KH QH")
    calls = play(ref, "N:KH", "W:9H", "S:QH", "E:KH")  # both kings of hearts are elsewhere
    assert violations(calls) == [("W", "false_meld", 1)]
    false = next(c for c in calls if c.get("rule") == "false_meld")
    assert (false["proof"], false["kind"]) == ("KH", "coppia")


# ---------------------------------------------------------------- rule 4: the deal
def test_rule_4_1_eleven_tricks_with_four_players() -> None:
    calls = replay(random_deal_events("binocolo", 11))
    assert len([c for c in calls if c["call"] == "trick"]) == 11


def test_rule_4_2_no_card_before_the_contract_and_the_discard() -> None:
    ref = new_ref(contract=None)
    assert ref.turn is None
    with pytest.raises(PhaseError, match="contract"):
        send(ref, {"event": "play", "seat": "N", "card": "AH"})
    assert send(ref, {"event": "contract", "seat": "E", "bid": 18, "trump": "D"}) == [
        {"call": "contract", "seat": "E", "bid": 18, "trump": "D"}
    ]
    with pytest.raises(PhaseError, match="discarded"):
        send(ref, {"event": "play", "seat": "E", "card": "AH"})
    with pytest.raises(PhaseError, match="already given"):
        send(ref, {"event": "contract", "seat": "N", "bid": 19, "trump": "D"})


@pytest.mark.parametrize(
    ("bid", "trump", "match"),
    [(14, "S", "at least 15"), ("20", "S", "'bid'"), (True, "S", "'bid'"), (20, "X", "'trump'"), (20, None, "'trump'")],
)
def test_rule_4_4_bid_of_at_least_15_and_a_trump_suit(bid: object, trump: object, match: str) -> None:
    ref = new_ref(contract=None)
    with pytest.raises(EventError, match=match):
        ref.apply({"event": "contract", "seat": "N", "bid": bid, "trump": trump})
    assert ref.deal is not None and ref.deal.data_as(BinocoloDeal).declarer is None


def test_rule_4_4_min_bid_option() -> None:
    ref = new_ref(contract=None, options={"min_bid": 10})
    send(ref, {"event": "contract", "seat": "N", "bid": 10, "trump": "S"})
    with pytest.raises(OptionError, match="min_bid"):
        new_ref(options={"min_bid": 0})


def test_rule_4_4_only_the_declarer_discards_as_many_as_the_widow() -> None:
    ref = new_ref(discard=None)
    with pytest.raises(EventError, match="only the declarer N"):
        send(ref, {"event": "discard", "seat": "W", "cards": NINES})
    with pytest.raises(EventError, match=r"widow holds \(4\)"):
        send(ref, {"event": "discard", "seat": "N", "cards": NINES[:3]})
    with pytest.raises(PhaseError, match="melds"):
        declare(ref, "N", "KS QS")
    assert send(ref, {"event": "discard", "seat": "N", "cards": NINES}) == [{"call": "turn", "seat": "N"}]
    with pytest.raises(PhaseError, match="already discarded"):
        send(ref, {"event": "discard", "seat": "N", "cards": NINES})


def test_rule_4_4_discard_before_the_contract_is_out_of_phase() -> None:
    ref = new_ref(contract=None)
    with pytest.raises(PhaseError, match="after the contract"):
        send(ref, {"event": "discard", "seat": "N", "cards": NINES})


def test_rule_4_4_melds_are_shown_before_the_first_card() -> None:
    ref = new_ref()
    declare(ref, "N", "KS QS")
    play(ref, "N:AH")
    with pytest.raises(PhaseError, match="before the first card"):
        declare(ref, "W", "KC QC")


def test_rule_4_4_declarer_leads_then_the_last_trick_winner() -> None:
    ref = new_ref(contract=("S", 15, "C"))
    assert ref.turn == "S"
    calls = play(ref, "S:KH", "E:AH", "N:9H", "W:QH")
    assert next(c for c in calls if c["call"] == "trick")["winner"] == "E"
    assert calls[-1] == {"call": "turn", "seat": "E"}


def test_rule_4_4_highest_card_of_the_suit_led_wins() -> None:
    ref = new_ref()
    calls = play(ref, "N:KH", "W:10H", "S:QH", "E:AC")
    assert next(c for c in calls if c["call"] == "trick")["winner"] == "W"


def test_rule_4_4_void_player_trumps_and_takes_all() -> None:
    ref = new_ref()
    calls = play(ref, "N:AH", "W:9S", "S:10H", "E:AH")
    assert next(c for c in calls if c["call"] == "trick")["winner"] == "W"


def test_rule_4_4_between_identical_cards_the_first_played_wins() -> None:
    ref = new_ref()
    calls = play(ref, "N:KH", "W:AH", "S:QH", "E:AH")
    assert next(c for c in calls if c["call"] == "trick")["winner"] == "W"


def test_card_order_option_natural() -> None:
    ref = new_ref(options={"card_order": "AKQJ109"})
    calls = play(ref, "N:10H", "W:KH", "S:JH", "E:9H")
    assert next(c for c in calls if c["call"] == "trick")["winner"] == "W"
    ref = new_ref()
    calls = play(ref, "N:10H", "W:KH", "S:JH", "E:9H")
    assert next(c for c in calls if c["call"] == "trick")["winner"] == "N"


def test_rule_4_4_revoke_proven_by_a_later_card_of_the_suit() -> None:
    ref = new_ref()
    calls = play(ref, "N:AH", "W:9S", "S:9H", "E:JH")  # W claims no hearts and trumps
    assert not violations(calls)
    calls = play(ref, "W:KS", "S:AS", "E:QS", "N:JS", "S:AD", "E:AD", "N:KD", "W:KH")
    [v] = [c for c in calls if c["call"] == "violation"]
    assert (v["seat"], v["rule"], v["trick"], v["card"], v["proof"]) == ("W", "revoke", 1, "9S", "KH")


def test_rule_4_4_melded_cards_prove_a_revoke_at_once() -> None:
    ref = new_ref()
    declare(ref, "W", "KH QH")
    calls = play(ref, "N:AH", "W:JC")  # W melded hearts, so cannot be void in hearts
    assert [(v["rule"], v["trick"], v["proof"]) for v in calls if v["call"] == "violation"] == [
        ("revoke", 1, "KH")
    ]
    calls = play(ref, "S:9H", "E:JH", "N:9H", "W:KH")
    assert not violations(calls)  # reported once, not again when the king is played


def test_rule_4_4_void_must_trump_proven_by_a_later_trump() -> None:
    ref = new_ref()
    play(ref, "N:AH", "W:JC", "S:9H", "E:JH")  # W neither follows nor trumps
    calls = play(ref, "N:QD", "W:JS")
    assert violations(calls) == [("W", "must_trump", 1)]


def test_rule_4_4_trump_led_must_overtrump_if_able() -> None:
    ref = new_ref()
    play(ref, "N:KS", "W:QS", "S:AS", "E:9S")  # W stays under the king of trumps
    calls = play(ref, "S:AH", "E:9H", "N:JH", "W:10S")  # and shows a ten of trumps
    assert violations(calls) == [("W", "must_overtrump", 1)]


def test_rule_4_4_no_obligation_to_overtrump_on_a_plain_suit_by_default() -> None:
    ref = new_ref()
    play(ref, "N:AH", "W:KS", "S:9S", "E:JH")  # S void in hearts trumps under W
    assert not violations(play(ref, "W:JD", "S:AS"))
    ref = new_ref(options={"overtrump": "any_trump"})
    play(ref, "N:AH", "W:KS", "S:9S", "E:JH")
    assert violations(play(ref, "W:JD", "S:AS")) == [("S", "must_overtrump", 1)]


def test_out_of_turn_card_stays_as_that_seats_play() -> None:
    ref = new_ref()
    calls = play(ref, "N:AH", "S:9H")
    assert violations(calls) == [("S", "out_of_turn", 1)]
    assert ref.deal.trick.plays[1][0] == "S"  # type: ignore[union-attr]


def test_unknown_option_is_named() -> None:
    with pytest.raises(OptionError, match="'bestia'"):
        new_ref(options={"bestia": "double"})
    assert BinocoloOptions().card_order == "A10KQJ9"
    assert Binocolo().options.target == 100


# ---------------------------------------------------------------- scoring and the match
def find_deal(want: str) -> list[dict[str, Any]]:
    """A random legal deal where the declarer made the bid (``"made"``) or not (``"bestia"``)."""
    for seed in range(200):
        events = random_deal_events("binocolo", seed)
        end = replay(events)[-1]
        if end["bestia"] == (want == "bestia"):
            return events
    raise AssertionError(f"no {want} deal in 200 seeds")


def test_rule_4_2_bestia_the_declarer_loses_the_bid() -> None:
    end = replay(find_deal("bestia"))[-1]
    declarer = end["declarer"]
    assert end["made"] < end["bid"]
    assert end["delta"][declarer] == -end["bid"]
    assert end["winner"] == "+".join(s for s in SEATS if s != declarer)
    for seat in SEATS:
        if seat != declarer:
            assert end["delta"][seat] == end["points"][seat]


def test_rule_4_2_bestia_shortfall_option() -> None:
    events = find_deal("bestia")
    events[0] = {**events[0], "options": {"bestia": "shortfall"}}
    end = replay(events)[-1]
    assert end["delta"][end["declarer"]] == end["made"] - end["bid"]


def test_rule_4_4_declarer_who_makes_the_bid_adds_the_points_made() -> None:
    end = replay(find_deal("made"))[-1]
    declarer = end["declarer"]
    assert end["made"] >= end["bid"] and end["winner"] == declarer
    assert end["delta"][declarer] == end["made"] == end["card_points"][declarer] + end["meld_points"][declarer]


def test_rule_4_4_other_players_melds_count_only_with_a_trick() -> None:
    for seed in range(400):
        end = replay(random_deal_events("binocolo", seed))[-1]
        idle = [s for s in SEATS if s != end["declarer"] and end["tricks"][s] == 0]
        melded = [m for m in end["melds"] if m["seat"] in idle]
        if melded:
            assert not any(m["counted"] for m in melded)
            assert all(end["meld_points"][s] == 0 for s in idle)
            return
    raise AssertionError("no deal where a player with melds took no trick")


def test_rule_4_3_first_to_100_wins_the_match() -> None:
    from referee.rules.playout import random_match_events

    calls = replay(random_match_events("binocolo", 5))
    end = calls[-1]
    assert end["call"] == "match_end"
    others = [v for s, v in end["score"].items() if s != end["winner"]]
    assert end["score"][end["winner"]] >= 100 and end["score"][end["winner"]] > max(others)
    totals = dict.fromkeys(SEATS, 0)
    for c in calls:
        if c["call"] == "deal_end":
            for seat, d in c["delta"].items():
                totals[seat] += d
    assert totals == end["score"]


def test_rule_4_3_target_option() -> None:
    from referee.rules.playout import random_match_events

    short = replay(random_match_events("binocolo", 5, options={"target": 30}))
    full = replay(random_match_events("binocolo", 5))
    assert short[-1]["call"] == "match_end"
    assert [c["call"] for c in short].count("deal_end") < [c["call"] for c in full].count("deal_end")


def test_out_of_turn_lose_game_option_ends_the_deal() -> None:
    ref = new_ref(options={"out_of_turn": "lose_game"})
    calls = play(ref, "N:AH", "S:9H")
    end = next(c for c in calls if c["call"] == "deal_end")
    assert end["forfeit"] == {"seat": "S", "rule": "out_of_turn"}
    assert end["winner"] == "N" and end["delta"] == {"N": 15, "W": 0, "S": 0, "E": 0}
