"""Belotta through the engine: one named scenario per numbered rule of belotta-triora.txt."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from referee.cards import parse_card
from referee.rules.errors import EventError, OptionError, PhaseError
from referee.rules.games.belotta import Belotta, find_declarations
from referee.rules.games.belotta_cards import trick_points
from referee.rules.referee import Referee

SEATS = ["N", "W", "S", "E"]  # play order; N+S against W+E


def new_ref(
    turned: str = "7H",
    dealer: str = "E",
    contract: tuple[str, str] | None = ("N", "H"),
    options: Mapping[str, Any] | None = None,
) -> Referee:
    ref = Referee()
    deal: dict[str, Any] = {"event": "deal", "game": "belotta", "seats": SEATS, "dealer": dealer,
                            "turned": turned}
    if options:
        deal["options"] = dict(options)
    ref.apply(deal)
    if contract:
        ref.apply({"event": "contract", "seat": contract[0], "trump": contract[1]})
    return ref


def send(ref: Referee, event: dict[str, Any]) -> list[dict[str, Any]]:
    return [c.to_dict() for c in ref.apply(event)]


def play(ref: Referee, *plays: str) -> list[dict[str, Any]]:
    """``play(ref, "N:7S", "W:8C")``: the calls of all the plays, in order."""
    out: list[dict[str, Any]] = []
    for p in plays:
        seat, card = p.split(":")
        out += send(ref, {"event": "play", "seat": seat, "card": card})
    return out


def declare(ref: Referee, seat: str, cards: str) -> list[dict[str, Any]]:
    return send(ref, {"event": "declare", "seat": seat, "cards": cards.split()})


def violations(calls: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [(c["seat"], c["rule"], c["trick"]) for c in calls if c["call"] == "violation"]


def play_hands(
    ref: Referee, hands: dict[str, str], seed: int | None = None
) -> list[dict[str, Any]]:
    """Play the deal out from known hands: the first legal card, or a random one with ``seed``."""
    held = {s: [parse_card(c) for c in h.split()] for s, h in hands.items()}
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while ref.turn is not None:
        seat = ref.turn
        legal = ref.legal_plays(seat, held[seat])
        card = legal[0] if seed is None else rng.choice(legal)
        held[seat].remove(card)
        out += send(ref, {"event": "play", "seat": seat, "card": card.code})
    return out


def deal_end(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return next(c for c in calls if c["call"] == "deal_end")


# N holds every trump (hearts): with trump led every trick, N+S take all eight tricks.
CAPPOTTO_HANDS = {
    "N": "JH 9H AH 10H KH QH 8H 7H",
    "W": "JS 9S 8S 7S JC 9C 8C 7C",
    "S": "AS 10S KS QS AC 10C KC QC",
    "E": "AD 10D KD QD JD 9D 8D 7D",
}


# ---------------------------------------------------------------- 1) the deal and the trump
def test_rule_1a_no_play_before_mando() -> None:
    ref = new_ref(contract=None)
    assert ref.turn is None
    with pytest.raises(PhaseError, match="trump is not chosen"):
        play(ref, "N:7S")


def test_rule_1a_mando_on_the_turned_suit_in_the_first_round() -> None:
    ref = new_ref(turned="QS", contract=None)
    calls = send(ref, {"event": "contract", "seat": "S", "trump": "S"})
    assert calls[0] == {"call": "contract", "seat": "S", "trump": "S", "round": 1, "turned": "QS"}
    assert calls[-1] == {"call": "turn", "seat": "N"}


def test_rule_1a_via_goes_round_from_the_dealers_right() -> None:
    ref = new_ref(turned="QS", contract=None)
    send(ref, {"event": "via", "seat": "N"})
    with pytest.raises(PhaseError, match="W's turn"):
        send(ref, {"event": "via", "seat": "S"})
    with pytest.raises(EventError, match="first round is on the turned suit"):
        send(ref, {"event": "contract", "seat": "W", "trump": "H"})
    assert send(ref, {"event": "contract", "seat": "W", "trump": "S"})[0]["round"] == 1


def test_rule_1a_second_round_is_on_the_other_three_suits() -> None:
    ref = new_ref(turned="QS", contract=None)
    for seat in SEATS:
        send(ref, {"event": "via", "seat": seat})
    with pytest.raises(EventError, match="other three suits"):
        send(ref, {"event": "contract", "seat": "N", "trump": "S"})
    calls = send(ref, {"event": "contract", "seat": "N", "trump": "D"})
    assert calls[0]["round"] == 2 and ref.deal is not None and ref.deal.trump == "D"


def test_rule_1a_contract_names_a_suit() -> None:
    ref = new_ref(contract=None)
    with pytest.raises(EventError, match="key 'trump'"):
        send(ref, {"event": "contract", "seat": "N", "trump": "X"})
    with pytest.raises(EventError, match="key 'turned'"):
        Referee().apply({"event": "deal", "game": "belotta", "seats": SEATS, "dealer": "E"})


def test_rule_1b_all_via_twice_redeal_by_the_next_dealer() -> None:
    ref = new_ref(turned="QS", contract=None)
    calls: list[dict[str, Any]] = []
    for _ in range(2):
        for seat in SEATS:
            calls += send(ref, {"event": "via", "seat": seat})
    assert calls == [
        {"call": "redeal", "rule": "1b", "dealer": "N"},
        {"call": "deal_end", "points": {}, "winner": None, "redeal": "1b"},
    ]
    with pytest.raises(PhaseError):
        send(ref, {"event": "contract", "seat": "N", "trump": "D"})
    # the next dealer deals again from 1a: the seat on its right speaks and leads
    send(ref, {"event": "deal", "game": "belotta", "seats": SEATS, "dealer": "N", "turned": "8D"})
    assert send(ref, {"event": "contract", "seat": "W", "trump": "D"})[-1] == {
        "call": "turn", "seat": "W",
    }


def test_rule_1c_the_turned_card_goes_to_the_caller() -> None:
    ref = new_ref(turned="JH", contract=("W", "H"))
    calls = play(ref, "N:7S", "W:8S", "S:JH")
    assert violations(calls) == [("S", "duplicate_card", 1)]
    assert violations(play(ref, "S:9S", "E:10S")) == []


def test_rule_1c_the_turned_card_proves_the_callers_obligation() -> None:
    # W was given the turned 8S: not cutting an opponent's diamond is proven at once
    ref = new_ref(turned="8S", contract=("W", "S"))
    assert violations(play(ref, "N:AC", "W:8C", "S:9C", "E:10C")) == []
    calls = play(ref, "N:AD", "W:7H")
    assert violations(calls) == [("W", "must_trump", 2)]
    proof = next(c for c in calls if c["call"] == "violation")
    assert proof["proof"] == "8S" and proof["card"] == "7H"


def test_rule_1d_the_deal_passes_to_the_right() -> None:
    ref = new_ref(dealer="E", contract=("N", "H"))
    play_hands(ref, CAPPOTTO_HANDS)
    assert ref.next_dealer == "N"
    ref.apply({"event": "deal", "game": "belotta", "seats": SEATS, "turned": "7C"})
    assert ref.deal is not None and ref.deal.dealer == "N"
    assert send(ref, {"event": "contract", "seat": "S", "trump": "C"})[-1]["seat"] == "W"


def test_rule_1e_turned_jack_no_second_round() -> None:
    ref = new_ref(turned="JD", contract=None)
    with pytest.raises(EventError, match="rule 1e"):
        send(ref, {"event": "contract", "seat": "N", "trump": "H"})
    calls: list[dict[str, Any]] = []
    for seat in SEATS:
        calls += send(ref, {"event": "via", "seat": seat})
    assert calls[0] == {"call": "redeal", "rule": "1e", "dealer": "N"}
    assert ref.next_dealer == "N" and ref.match is not None and ref.match.score == {
        "N+S": 0, "W+E": 0,
    }
    # the next deal is by N; another dealer is reported (1b, 1d)
    calls = send(ref, {"event": "deal", "game": "belotta", "seats": SEATS, "dealer": "S",
                       "turned": "7C"})
    assert calls[0]["rule"] == "wrong_dealer" and calls[0]["expected"] == "N"


def test_rule_1f_first_dealer_draws_the_highest_card() -> None:
    ref = Referee()
    calls = send(ref, {"event": "draw", "game": "belotta",
                       "cards": {"N": "KS", "W": "AD", "S": "10C", "E": "QH"}})
    assert calls == [{"call": "dealer", "seat": "W"}]
    assert Belotta.dealer_draw


# ---------------------------------------------------------------- 2) play
def test_rule_2a_the_player_right_of_the_dealer_leads() -> None:
    assert new_ref(dealer="S").turn == "E"
    assert new_ref(dealer="E").turn == "N"


def test_rule_2b_trick_winner_leads_next() -> None:
    ref = new_ref()
    calls = play(ref, "N:AS", "W:8H", "S:10S", "E:KS")
    trick = next(c for c in calls if c["call"] == "trick")
    assert trick["winner"] == "W" and trick["points"] == 11 + 0 + 10 + 4
    assert calls[-1] == {"call": "turn", "seat": "W"}


def test_rule_2c_revoke_is_proven_by_a_later_card() -> None:
    ref = new_ref()
    assert violations(play(ref, "N:AS", "W:8C", "S:10S", "E:KS")) == []
    calls = play(ref, "N:7D", "W:8S")  # W held a spade in trick 1
    assert violations(calls) == [("W", "revoke", 1)]


def test_rule_2c_void_must_trump() -> None:
    ref = new_ref()
    assert violations(play(ref, "N:AS", "W:8C", "S:10S", "E:KS")) == []
    calls = play(ref, "N:7D", "W:8H")  # W held a trump and did not cut
    assert violations(calls) == [("W", "must_trump", 1)]


def test_rule_2d_must_overtrump_an_opponents_cut() -> None:
    ref = new_ref()
    assert violations(play(ref, "N:AS", "W:10H", "S:7C", "E:8C")) == []
    # S (void) discarded on W's cut while holding the JH
    assert violations(play(ref, "W:7D", "S:JH")) == [("S", "must_overtrump", 1)]


def test_rule_2d_never_obliged_to_undertrump() -> None:
    ref = new_ref()
    play(ref, "N:AS", "W:10H", "S:7C", "E:8C")
    # S held only a lower trump (8H): discarding was legal, and so is playing the 8H later
    assert violations(play(ref, "W:7D", "S:8H")) == []


def test_rule_2d_undertrump_variant() -> None:
    ref = new_ref(options={"must_undertrump": True})
    play(ref, "N:AS", "W:10H", "S:7C", "E:8C")
    assert violations(play(ref, "W:7D", "S:8H")) == [("S", "must_trump", 1)]


def test_rule_2e_partner_holding_the_trick_frees_from_cutting() -> None:
    ref = new_ref()
    play(ref, "N:AS", "W:7S", "S:7C", "E:8S")  # N holds the trick: S may discard
    assert violations(play(ref, "N:7D", "W:8D", "S:JH")) == []


def test_rule_2e_no_overtrump_duty_over_the_partners_cut() -> None:
    ref = new_ref()
    play(ref, "N:AS", "W:8H", "S:10S", "E:8C")  # W cut, E discards over the partner's trump
    assert violations(play(ref, "W:7D", "S:8D", "E:JH")) == []


def test_rule_2f_trump_led_everyone_must_go_higher() -> None:
    ref = new_ref()
    play(ref, "N:9H", "W:8H")
    # W held the JH: the 8H under the 9H was illegal
    calls = play(ref, "S:KH", "E:QH", "N:7D", "W:JH")
    assert ("W", "must_overtrump", 1) in violations(calls)


def test_rule_2f_trump_led_the_partner_exception_does_not_apply() -> None:
    ref = new_ref()
    play(ref, "N:JH", "W:8H", "S:9H")  # S under its partner's jack: nothing higher exists
    calls = play(ref, "E:7C", "N:7D", "W:8D", "S:10D", "E:KH")
    assert violations(calls) == [("E", "revoke", 1)]  # E held a trump on a trump lead


def test_rule_2g_cappotto_last_trick_100() -> None:
    ref = new_ref()
    calls = play_hands(ref, CAPPOTTO_HANDS)
    tricks = [c for c in calls if c["call"] == "trick"]
    assert all(t["winner"] == "N" for t in tricks)
    last = tricks[-1]
    assert last["points"] == 100 + trick_points([parse_card(c) for _, c in last["cards"]], "H")
    end = deal_end(calls)
    assert end["outcome"] == "cappotto" and end["points"] == {"N+S": 252, "W+E": 0}


def test_rule_2h_the_last_trick_can_be_shown() -> None:
    ref = new_ref()
    assert ref.last_trick is None
    play(ref, "N:AS", "W:8H", "S:10S", "E:KS")
    last = ref.last_trick
    assert last is not None and last.codes() == (("N", "AS"), ("W", "8H"), ("S", "10S"), ("E", "KS"))
    play(ref, "W:7D")
    assert ref.last_trick is last  # the trick in progress is not shown


# ---------------------------------------------------------------- 3) declarations
def test_rule_3a_declare_with_the_cards() -> None:
    ref = new_ref()
    calls = declare(ref, "N", "AS KS QS")
    assert calls == [{"call": "declaration", "seat": "N", "kind": "terza",
                      "cards": ["AS", "KS", "QS"], "points": 20}]
    with pytest.raises(EventError, match="A-K-Q-J-10-9-8-7"):
        declare(ref, "W", "AC KC JC")
    with pytest.raises(EventError, match="worth nothing"):
        declare(ref, "W", "7C 7D 7H 7S")


def test_rule_3a_no_declaration_before_the_trump() -> None:
    with pytest.raises(PhaseError, match="after the trump"):
        declare(new_ref(contract=None), "N", "AS KS QS")


def test_rule_3a_declared_cards_are_known_in_that_hand() -> None:
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    with pytest.raises(EventError, match="known to be in W's hand"):
        declare(ref, "N", "KS QS JS")
    # another seat laying one of them contradicts the declaration (not a duplicate any more:
    # see test_belotta_false_declaration.py)
    assert violations(play(ref, "N:AS")) == [("W", "false_declaration", 1)]


def test_rule_3a_declared_cards_prove_a_revoke_at_once() -> None:
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    calls = play(ref, "N:7S", "W:8C")
    assert violations(calls) == [("W", "revoke", 1)]
    ref2 = new_ref()
    play(ref2, "N:7S", "W:8C")
    assert violations(declare(ref2, "W", "AS KS QS")) == [("W", "revoke", 1)]


def test_rule_3a_a_card_already_played_elsewhere_cannot_be_declared() -> None:
    ref = new_ref()
    play(ref, "N:AS")
    with pytest.raises(EventError, match="played by N"):
        declare(ref, "W", "AS KS QS")
    declare(ref, "N", "AS KS QS")  # N's own played card is fine


def test_rule_3b_the_better_run_counts_alone() -> None:
    hands = dict(CAPPOTTO_HANDS)
    ref = new_ref()
    declare(ref, "S", "AS KS QS")
    declare(ref, "E", "AD KD QD JD")
    end = deal_end(play_hands(ref, hands))
    assert [d["valid"] for d in end["declarations"]] == [False, True]
    assert end["declaration_points"] == {"N+S": 0, "W+E": 50}


def test_rule_3c_equal_runs_the_trump_then_the_first_in_hand() -> None:
    ref = new_ref()
    declare(ref, "N", "AH KH QH")
    declare(ref, "E", "AD KD QD")
    end = deal_end(play_hands(ref, CAPPOTTO_HANDS))
    assert [d["valid"] for d in end["declarations"]] == [True, False]
    ref = new_ref()
    declare(ref, "E", "AD KD QD")
    declare(ref, "S", "AS KS QS")  # S plays before E in the first trick (N leads)
    end = deal_end(play_hands(ref, CAPPOTTO_HANDS))
    assert [d["valid"] for d in end["declarations"]] == [False, True]


def test_rule_3d_carre_beats_any_run() -> None:
    hands = {
        "N": "JH JS AH 10H KH QH 8H 7H",
        "W": "9S 9C 9D 9H 8S 7S 8C 7C",
        "S": "AS 10S KS QS AC 10C KC QC",
        "E": "AD 10D KD QD JD JC 8D 7D",
    }
    ref = new_ref()
    declare(ref, "N", "AH KH QH")
    declare(ref, "W", "9S 9C 9D 9H")
    end = deal_end(play_hands(ref, hands, seed=3))
    assert [d["valid"] for d in end["declarations"]] == [False, True]
    assert end["declaration_points"]["W+E"] == 150


def test_rule_3e_carre_of_jacks_beats_carre_of_nines() -> None:
    hands = {
        "N": "JH JS JD JC AH 10H KH QH",
        "W": "9S 9C 9D 9H 8S 7S 8C 7C",
        "S": "AS 10S KS QS AC 10C KC QC",
        "E": "AD 10D KD QD 8H 7H 8D 7D",
    }
    ref = new_ref(turned="QH")
    declare(ref, "W", "9S 9C 9D 9H")
    declare(ref, "N", "JH JS JD JC")
    end = deal_end(play_hands(ref, hands, seed=5))
    assert [d["valid"] for d in end["declarations"]] == [False, True]
    assert end["declaration_points"] == {"N+S": 200, "W+E": 0}


def test_rule_3f_declarations_are_shown_by_the_second_trick() -> None:
    ref = new_ref()
    play(ref, "N:AS", "W:8H", "S:10S", "E:KS")
    declare(ref, "S", "AC KC QC")  # during the second trick: still in time
    play(ref, "W:7D", "S:8D", "E:9D", "N:10D")
    with pytest.raises(PhaseError, match="rule 3f"):
        declare(ref, "E", "AD KD QD")


def test_rule_3g_tab2_values_reach_the_deal_score() -> None:
    ref = new_ref()
    declare(ref, "N", "JH 9H AH 10H KH QH 8H 7H")
    end = deal_end(play_hands(ref, CAPPOTTO_HANDS))
    assert end["declarations"][0]["kind"] == "cento"
    assert end["raw"] == {"N+S": 352, "W+E": 0}


def test_rule_3h_belotta_always_counts_and_with_runs() -> None:
    ref = new_ref()
    declare(ref, "N", "KH QH")
    declare(ref, "N", "AH KH QH")  # the same K and Q may also serve in a run
    declare(ref, "E", "AD KD QD JD")  # E's cinquanta beats N's terza, not the belotta
    end = deal_end(play_hands(ref, CAPPOTTO_HANDS))
    assert [d["valid"] for d in end["declarations"]] == [True, False, True]
    assert end["declaration_points"] == {"N+S": 20, "W+E": 50}


def test_rule_3h_belotta_is_said_by_the_trick_of_the_second_card() -> None:
    ref = new_ref()
    play(ref, "N:KH", "W:7S", "S:8S", "E:9S", "N:QH")
    declare(ref, "N", "KH QH")  # the second card's trick is still on the table
    ref = new_ref()
    play(ref, "N:KH", "W:7S", "S:8S", "E:9S", "N:QH", "W:10S", "S:JS", "E:AS")
    with pytest.raises(PhaseError, match="rule 3h"):
        declare(ref, "N", "KH QH")


def test_rule_3h_belotta_of_another_suit_is_no_declaration() -> None:
    with pytest.raises(EventError, match="not a declaration"):
        declare(new_ref(), "N", "KS QS")


# ---------------------------------------------------------------- 4) scoring
def test_rule_4a_162_and_the_caller_makes_more_than_half() -> None:
    ref = new_ref()
    end = deal_end(play_hands(ref, CAPPOTTO_HANDS, seed=1))
    assert sum(end["points"].values()) in (162, 252)


def test_rule_4a_bagno() -> None:
    # W+E hold the strength; N calls hearts on the turned 7H anyway
    hands = {
        "N": "7H 8S 7S 8C 7C 8D 7D 9C",
        "W": "JH 9H AH 10H KH QH 8H 9S",
        "S": "JS QS JC QC JD QD 9D 10C",
        "E": "AS 10S KS AC KC AD 10D KD",
    }
    end = deal_end(play_hands(new_ref(), hands, seed=2))
    assert end["outcome"] == "bagno" and end["winner"] == "W+E"
    assert end["raw"] == {"N+S": 0, "W+E": 162}


def test_rule_4b_a_tie_leaves_the_points_in_play() -> None:
    # find a random legal deal that ties, then check the pot goes to the next deal's winner
    from referee.rules.playout import play_deal

    for seed in range(3000):
        ref, rng = Referee(), random.Random(seed)
        play_deal(ref, "belotta", rng, SEATS, dealer="E")
        assert ref.result is not None
        if ref.result.extra["outcome"] == "tie":
            break
    else:
        pytest.fail("no tie in 3000 random deals")
    end = ref.result.extra
    caller_team = "N+S" if end["caller"] in "NS" else "W+E"
    assert ref.result.winner is None and end["raw"][caller_team] == 0
    assert end["pot"] * 2 == 162 + sum(d["points"] for d in end["declarations"] if d["valid"])
    assert ref.match is not None
    before = dict(ref.match.score)
    while True:  # the pot stays in play until a deal has a winner
        play_deal(ref, "belotta", rng, SEATS)
        if ref.result is not None and ref.result.winner is not None:
            break
        before = dict(ref.match.score)
    won = ref.result.winner
    nxt = ref.result.extra
    assert nxt["pot_in"] == end["pot"] and nxt["pot"] == 0
    card_and_declarations = nxt["raw"][won] - nxt["pot_in"]
    assert nxt["score"][won] == (card_and_declarations + end["pot"] + 5) // 10
    assert ref.match.score[won] == before[won] + nxt["score"][won]


def test_rule_4c_cappotto_252_plus_declarations() -> None:
    ref = new_ref()
    declare(ref, "N", "KH QH")
    end = deal_end(play_hands(ref, CAPPOTTO_HANDS))
    assert end["raw"] == {"N+S": 272, "W+E": 0}
    assert end["score"] == {"N+S": 27, "W+E": 0}


def test_rule_4d_the_deal_is_written_in_rounded_tens() -> None:
    end = deal_end(play_hands(new_ref(), CAPPOTTO_HANDS, seed=4))
    for team, raw in end["raw"].items():
        assert end["score"][team] == (raw + 5) // 10


def test_rule_4e_the_match_goes_to_151() -> None:
    from referee.rules.playout import random_match_events

    events = random_match_events("belotta", seed=7)
    ref = Referee()
    calls = [c.to_dict() for e in events for c in ref.apply(e)]
    final = [c for c in calls if c["call"] == "match_end"]
    assert len(final) == 1
    score = final[0]["score"]
    assert score[final[0]["winner"]] >= 151
    written = {"N+S": 0, "W+E": 0}
    for c in calls:
        if c["call"] == "deal_end":
            for team in written:
                written[team] += c["score"][team]
    assert score == written  # the deal_end figures (pots won included, 4b) add up


def test_rule_4e_4f_target_option() -> None:
    with pytest.raises(OptionError, match="target"):
        new_ref(options={"target": 0})


def test_find_declarations_for_playouts() -> None:
    hand = [parse_card(c) for c in ["JC", "JD", "JH", "JS", "AS", "KS", "QS", "7D"]]
    found = find_declarations(hand, "S")
    assert [len(f) for f in found] == [4, 3, 2]


def test_out_of_turn_is_reported_only_by_default() -> None:
    ref = new_ref()
    calls = play(ref, "W:8S")
    assert violations(calls) == [("W", "out_of_turn", 1)]
    assert ref.deal is not None and ref.deal.phase == "play"


def test_out_of_turn_lose_game_option_gives_the_deal_to_the_others() -> None:
    ref = new_ref(options={"out_of_turn": "lose_game"})
    calls = play(ref, "W:8S")
    end = deal_end(calls)
    assert end["winner"] == "N+S" and end["outcome"] == "forfeit"
    assert end["score"] == {"N+S": 16, "W+E": 0}
    assert ref.match is not None and ref.match.score == {"N+S": 16, "W+E": 0}


def test_rule_1a_the_first_via_comes_from_the_dealers_right() -> None:
    # regression: with no word recorded yet, a "via" from any seat used to be accepted
    ref = new_ref(turned="QS", contract=None)
    with pytest.raises(PhaseError, match="N's turn"):
        send(ref, {"event": "via", "seat": "S"})
    assert send(ref, {"event": "via", "seat": "N"}) == []
    with pytest.raises(PhaseError, match="W's turn"):
        send(ref, {"event": "via", "seat": "N"})
