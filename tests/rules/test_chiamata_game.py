"""Briscola chiamata through the engine: one named scenario per rule of the document.

Rule ids (the document is not numbered) are listed in ``referee/rules/games/chiamata.py`` and
``docs/rules-tests.md``.  Most scenarios use SWEEP: hands where A holds eight spades and leads
them one by one, so with spades as trumps A takes every trick (120 points).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from referee.rules import EventError, OptionError, PhaseError, Referee
from referee.rules.playout import play_deal

SEATS = ["A", "B", "C", "D", "E"]

#: A's eight trumps (spades) win every trick he leads; spade_4 (B) and spade_2 (C) are below.
SWEEP: dict[str, list[str]] = {
    "A": ["spade_1", "spade_3", "spade_10", "spade_9", "spade_8", "spade_7", "spade_6", "spade_5"],
    "B": ["spade_4", "coppe_1", "coppe_3", "coppe_10", "coppe_9", "coppe_8", "coppe_7", "coppe_6"],
    "C": [
        "spade_2",
        "coppe_5",
        "coppe_4",
        "coppe_2",
        "denari_1",
        "denari_3",
        "denari_10",
        "denari_9",
    ],
    "D": [
        "denari_8",
        "denari_7",
        "denari_6",
        "denari_5",
        "denari_4",
        "denari_2",
        "bastoni_1",
        "bastoni_3",
    ],
    "E": [
        "bastoni_10",
        "bastoni_9",
        "bastoni_8",
        "bastoni_7",
        "bastoni_6",
        "bastoni_5",
        "bastoni_4",
        "bastoni_2",
    ],
}


def deal(dealer: str = "E", **options: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "event": "deal",
        "game": "briscola-chiamata",
        "seats": SEATS,
        "dealer": dealer,
    }
    if options:
        event["options"] = options
    return event


def contract(seat: str, called: str, points: int = 61, **extra: Any) -> dict[str, Any]:
    return {"event": "contract", "seat": seat, "called": called, "points": points, **extra}


def play(seat: str, card: str) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card}


def calls(ref: Referee, *events: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for event in events:
        out += [c.to_dict() for c in ref.apply(event)]
    return out


def of(kind: str, dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in dicts if d["call"] == kind]


def play_out(ref: Referee, hands: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Each seat plays its hand in list order whenever it is its turn, to the deal's end."""
    left = {seat: list(cards) for seat, cards in hands.items()}
    out: list[dict[str, Any]] = []
    while ref.turn is not None:
        seat = ref.turn
        out += calls(ref, play(seat, left[seat].pop(0)))
    return out


def started(*events: dict[str, Any], **options: Any) -> Referee:
    ref = Referee()
    calls(ref, deal(**options), *events)
    return ref


def sweep(called: str, points: int = 61, caller: str = "A", **extra: Any) -> list[dict[str, Any]]:
    ref = started(contract(caller, called, points, **extra))
    return play_out(ref, SWEEP)


# ------------------------------------------------------------------------------ 1 preliminaries
def test_rule_1a_five_players_only() -> None:
    with pytest.raises(EventError, match="5 players"):
        Referee().apply({**deal(), "seats": ["A", "B", "C", "D"], "dealer": "D"})


def test_rule_1a_eight_tricks_of_five_cards_then_deal_end() -> None:
    out = sweep("spade_4")
    tricks = of("trick", out)
    assert len(tricks) == 8 and all(len(t["cards"]) == 5 for t in tricks)
    assert out[-1]["call"] == "deal_end"
    assert sum(t["points"] for t in tricks) == 120


def test_rule_1a_no_face_up_card() -> None:
    with pytest.raises(EventError, match="trump_card"):
        Referee().apply({**deal(), "trump_card": "coppe_1"})


def test_rule_1a_a_french_card_is_a_bad_card() -> None:
    ref = started(contract("A", "spade_4"))
    out = calls(ref, play("A", "AS"))
    assert of("violation", out)[0]["rule"] == "bad_card"
    assert ref.turn == "A"  # not recorded


# ------------------------------------------------------------------------------ 2 aim
def test_rule_2a_callers_need_the_contract_points_when_above_61() -> None:
    end = sweep("spade_4", points=120)[-1]
    assert end["winner"] == "A+B" and end["target"] == 120
    lost = sweep("spade_2", points=90, caller="D")[-1]  # D+C take nothing
    assert lost["points"] == {"C+D": 0, "A+B+E": 120} and lost["winner"] == "A+B+E"


# ------------------------------------------------------------------------------ 3 auction
def test_rule_3a_caller_and_partner_against_three() -> None:
    end = sweep("spade_4")[-1]
    assert end["points"] == {"A+B": 120, "C+D+E": 0}
    assert (end["caller"], end["partner"]) == ("A", "B")


def test_rule_3b_no_play_before_the_contract() -> None:
    ref = started()
    assert ref.turn is None
    with pytest.raises(PhaseError, match="contract"):
        ref.apply(play("A", "spade_1"))
    out = calls(ref, contract("C", "coppe_1"))
    assert out == [
        {
            "call": "contract",
            "seat": "C",
            "called": "coppe_1",
            "points": 61,
            "trump": "coppe",
            "in_mano": False,
            "multiplier": 1,
        },
        {"call": "turn", "seat": "A"},
    ]


def test_rule_3b_only_one_contract_per_deal() -> None:
    ref = started(contract("C", "coppe_1"))
    with pytest.raises(PhaseError, match="already given"):
        ref.apply(contract("D", "coppe_3"))


def test_rule_3b_contract_keys_are_checked_and_named() -> None:
    ref = started()
    bad = [
        ({"event": "contract", "seat": "A"}, "'called'"),
        (contract("A", "AS"), "'called'"),
        ({**contract("A", "coppe_1"), "points": "70"}, "'points'"),
        (contract("A", "coppe_1", in_mano="yes"), "'in_mano'"),
        (contract("Z", "coppe_1"), "'seat'"),
    ]
    for event, key in bad:
        with pytest.raises(EventError, match=key):
            ref.apply(event)
    assert ref.deal is not None and ref.deal.phase == "contract"  # nothing changed


def test_rule_3c_card_auction_raises_the_target_only_on_the_two() -> None:
    ref = started(auction="card")
    with pytest.raises(EventError, match="rule 3c"):
        ref.apply(contract("A", "coppe_1", 70))
    out = calls(ref, contract("A", "coppe_2", 70))
    assert out[0]["points"] == 70


def test_rule_3d_points_auction_any_card_61_to_120() -> None:
    ref = started()
    for points in (60, 121):
        with pytest.raises(EventError, match="'points'"):
            ref.apply(contract("A", "coppe_1", points))
    assert calls(ref, contract("A", "coppe_1", 95))[0]["points"] == 95


def test_rule_3e_called_suit_is_trump() -> None:
    ref = started(contract("C", "denari_3"))
    out = calls(ref, play("A", "coppe_1"), play("B", "denari_2"))
    out += calls(ref, play("C", "coppe_3"), play("D", "coppe_10"), play("E", "spade_1"))
    assert of("trick", out)[0]["winner"] == "B"  # the 2 of denari beats the asso of coppe


def test_rule_3e_partner_is_secret_until_the_called_card_is_played() -> None:
    ref = started(contract("A", "spade_4"))
    assert ref.game is not None and ref.deal is not None
    assert ref.game.teams(ref.deal) is None
    out = calls(ref, play("A", "spade_1"))
    assert not of("partner", out)
    out = calls(ref, play("B", "spade_4"))
    assert of("partner", out) == [
        {"call": "partner", "seat": "B", "card": "spade_4", "caller": "A", "alone": False}
    ]
    assert ref.game.teams(ref.deal) == (("A", "B"), ("C", "D", "E"))


def test_rule_3e_undo_of_the_called_card_hides_the_partner_again() -> None:
    ref = started(contract("A", "spade_4"), play("A", "spade_1"), play("B", "spade_4"))
    assert calls(ref, {"event": "undo"})[0] == {"call": "undo", "seat": "B", "card": "spade_4"}
    assert ref.game is not None and ref.deal is not None
    assert ref.game.teams(ref.deal) is None
    assert of("partner", calls(ref, play("B", "spade_4")))[0]["seat"] == "B"


# ------------------------------------------------------------------------------ 4 play
def test_rule_4a_asso_of_briscola_beats_everything() -> None:
    ref = started(contract("C", "spade_2"))
    out = calls(
        ref,
        play("A", "spade_3"),
        play("B", "spade_1"),
        play("C", "spade_10"),
        play("D", "coppe_1"),
        play("E", "spade_9"),
    )
    assert of("trick", out)[0]["winner"] == "B"
    assert of("trick", out)[0]["points"] == 10 + 11 + 4 + 11 + 3


def test_rule_4b_any_trump_beats_other_suits() -> None:
    ref = started(contract("C", "spade_1"))
    out = calls(
        ref,
        play("A", "coppe_1"),
        play("B", "coppe_3"),
        play("C", "spade_2"),
        play("D", "coppe_10"),
        play("E", "denari_1"),
    )
    assert of("trick", out)[0]["winner"] == "C"


def test_rule_4c_led_suit_commands_without_trumps() -> None:
    ref = started(contract("C", "spade_1"))
    out = calls(
        ref,
        play("A", "coppe_4"),
        play("B", "denari_1"),
        play("C", "coppe_5"),
        play("D", "bastoni_1"),
        play("E", "coppe_2"),
    )
    assert of("trick", out)[0]["winner"] == "C"  # only a higher coppe takes


def test_rule_4d_the_seat_after_the_dealer_leads() -> None:
    ref = Referee()
    calls(ref, deal(dealer="B"))
    assert calls(ref, contract("A", "coppe_1"))[-1] == {"call": "turn", "seat": "C"}


def test_rule_4e_trick_winner_leads_the_next_trick() -> None:
    ref = started(contract("C", "spade_1"))
    out = calls(
        ref,
        play("A", "coppe_4"),
        play("B", "coppe_1"),
        play("C", "coppe_5"),
        play("D", "bastoni_1"),
        play("E", "coppe_2"),
    )
    assert out[-1] == {"call": "turn", "seat": "B"}
    assert ref.turn == "B"


def test_rule_4f_after_eight_tricks_the_points_are_counted() -> None:
    out = sweep("spade_4")
    assert [c["call"] for c in out[-2:]] == ["trick", "deal_end"]
    assert of("trick", out)[-1]["number"] == 8
    assert sum(out[-1]["points"].values()) == 120


# ------------------------------------------------------------------------------ 5 credits
def test_rule_5a_credits_caller_2_partner_1_others_1() -> None:
    ref = started(contract("A", "spade_4"))
    end = play_out(ref, SWEEP)[-1]
    # cappotto doubles (7c): the plain stake is half of it
    assert end["credits"] == {"A": 4, "B": 2, "C": -2, "D": -2, "E": -2}
    assert end["cappotto"] is True and end["multiplier"] == 2


def test_rule_5a_credits_of_an_ordinary_deal_follow_the_points() -> None:
    ref = Referee()
    play_deal(ref, "briscola-chiamata", random.Random(11), SEATS, dealer="E")
    result = ref.result
    assert result is not None
    extra = result.extra
    callers = "+".join(s for s in SEATS if s in (extra["caller"], extra["partner"]))
    won = result.points[callers] >= extra["target"]
    assert result.winner == (callers if won else next(t for t in result.points if t != callers))
    stake = extra["multiplier"]
    sign = 1 if won else -1
    for seat, credit in extra["credits"].items():
        if seat == extra["caller"]:
            expected = sign * stake * (4 if extra["in_mano"] else 2)
        elif seat == extra["partner"]:
            expected = sign * stake
        else:
            expected = -sign * stake
        assert credit == expected


def test_rule_5b_credits_of_a_deal_sum_to_zero() -> None:
    for called, caller in (("spade_4", "A"), ("spade_2", "D"), ("spade_5", "A")):
        assert sum(sweep(called, caller=caller)[-1]["credits"].values()) == 0


# ------------------------------------------------------------------------------ 6 points
def test_rule_6a_card_points() -> None:
    ref = started(contract("C", "spade_2"))
    out = calls(
        ref,
        play("A", "coppe_1"),
        play("B", "coppe_3"),
        play("C", "coppe_10"),
        play("D", "coppe_9"),
        play("E", "coppe_8"),
    )
    assert of("trick", out)[0]["points"] == 11 + 10 + 4 + 3 + 2
    out = calls(
        ref,
        play("A", "coppe_7"),
        play("B", "coppe_6"),
        play("C", "coppe_5"),
        play("D", "coppe_4"),
        play("E", "coppe_2"),
    )
    assert of("trick", out)[0]["points"] == 0


def test_rule_6b_card_power_order() -> None:
    order = ["1", "3", "10", "9", "8", "7", "6", "5", "4", "2"]  # the document's list
    for stronger, weaker in itertools.pairwise(order):
        ref = started(contract("C", "spade_1"))
        out = calls(
            ref,
            play("A", f"coppe_{weaker}"),
            play("B", f"coppe_{stronger}"),
            play("C", "denari_2"),
            play("D", "denari_4"),
            play("E", "denari_5"),
        )
        assert of("trick", out)[0]["winner"] == "B", (stronger, weaker)


# ------------------------------------------------------------------------------ 7 special cases
def test_rule_7a_forfait_voids_the_deal() -> None:
    ref = started()
    out = calls(ref, {"event": "forfait", "seat": "C"})
    assert out == [
        {"call": "forfait", "seat": "C", "dealer": "A"},
        {
            "call": "deal_end",
            "points": {},
            "winner": None,
            "void": "forfait",
            "seat": "C",
            "credits": {"A": 0, "B": 0, "C": 0, "D": 0, "E": 0},
        },
    ]
    assert ref.turn is None and ref.next_dealer == "A"


def test_rule_7a_forfait_only_before_the_contract() -> None:
    ref = started(contract("A", "spade_4"))
    with pytest.raises(PhaseError, match="rule 7a"):
        ref.apply({"event": "forfait", "seat": "C"})


def test_rule_7a_forfait_hand_shown_must_be_worth_zero() -> None:
    ref = started()
    blank = ["coppe_2", "coppe_4", "coppe_5", "coppe_6", "coppe_7", "spade_2", "spade_4", "spade_5"]
    with pytest.raises(EventError, match="worth 2"):
        ref.apply({"event": "forfait", "seat": "C", "cards": [*blank[:7], "spade_8"]})
    with pytest.raises(EventError, match="8 distinct"):
        ref.apply({"event": "forfait", "seat": "C", "cards": blank[:7]})
    assert of("deal_end", calls(ref, {"event": "forfait", "seat": "C", "cards": blank}))


def test_rule_7a_void_deal_does_not_count_in_the_match() -> None:
    ref = started(deals=1)
    calls(ref, {"event": "forfait", "seat": "C"})
    assert ref.outcome is None
    calls(ref, deal(dealer="A"), contract("B", "spade_4"))
    out = play_out(ref, SWEEP)
    assert out[-1]["call"] == "match_end"
    assert out[-1]["deals"] == 1


def test_option_forfait_dealer_same_redeals_by_the_same_dealer() -> None:
    ref = started(forfait_dealer="same")
    assert calls(ref, {"event": "forfait", "seat": "C"})[0]["dealer"] == "E"
    assert ref.next_dealer == "E"


def test_rule_7b_doppia_the_documents_example_with_cappotto() -> None:
    # "Il chiamante che chiamando 75 vince totalizzando 120 punti prende +8 e il suo socio +4"
    end = sweep("spade_2", 75)[-1]
    assert end["credits"] == {"A": 8, "B": -4, "C": 4, "D": -4, "E": -4}
    assert end["multiplier"] == 4


def test_rule_7b_tripla_above_80() -> None:
    end = sweep("spade_2", 81)[-1]
    assert end["credits"] == {"A": 12, "B": -6, "C": 6, "D": -6, "E": -6}


def test_rule_7b_contract_call_announces_the_stake() -> None:
    ref = started()
    assert calls(ref, contract("A", "coppe_2", 71))[0]["multiplier"] == 2


def test_rule_7c_cappotto_against_the_callers_doubles_their_loss() -> None:
    end = sweep("spade_2", caller="D")[-1]
    assert end["cappotto"] is True
    assert end["credits"] == {"A": 2, "B": 2, "C": -2, "D": -4, "E": 2}


def test_rule_7d_in_mano_caller_plays_alone_for_double_credits() -> None:
    out = sweep("spade_5", in_mano=True)
    assert of("contract", out) == []  # the contract call came before play_out
    partner = of("partner", out)
    assert partner == [
        {"call": "partner", "seat": "A", "card": "spade_5", "caller": "A", "alone": True}
    ]
    end = out[-1]
    assert end["points"] == {"A": 120, "B+C+D+E": 0}
    assert end["in_mano"] is True
    assert end["credits"] == {"A": 8, "B": -2, "C": -2, "D": -2, "E": -2}  # 2 x 2 x cappotto


def test_rule_7d_in_mano_sides_are_known_from_the_contract() -> None:
    ref = started(contract("A", "spade_5", in_mano=True))
    assert ref.game is not None and ref.deal is not None
    assert ref.game.teams(ref.deal) == (("A",), ("B", "C", "D", "E"))


def test_rule_7d_calling_ones_own_card_is_in_mano() -> None:
    end = sweep("spade_5")[-1]
    assert end["in_mano"] is True and end["credits"]["A"] == 8


def test_rule_7d_in_mano_card_played_by_another_seat_is_reported() -> None:
    out = sweep("spade_4", in_mano=True)
    violations = of("violation", out)
    assert [(v["seat"], v["rule"], v["trick"]) for v in violations] == [
        ("A", "in_mano_card_elsewhere", 1)
    ]
    assert out[-1]["points"] == {"A+B": 120, "C+D+E": 0}  # the holder is the partner


# ------------------------------------------------------------------------------ irregularities
def test_out_of_turn_is_reported_only_by_default() -> None:
    ref = started(contract("A", "spade_4"))
    out = calls(ref, play("C", "spade_2"))
    assert of("violation", out)[0] == {
        "call": "violation",
        "seat": "C",
        "rule": "out_of_turn",
        "trick": 1,
        "detail": "C played spade_2 but it was A's turn",
        "card": "spade_2",
        "expected": "A",
    }
    assert ref.turn == "A"


def test_option_out_of_turn_lose_game_once_sides_are_known() -> None:
    ref = started(contract("A", "spade_4"), out_of_turn="lose_game")
    out = calls(ref, play("C", "spade_2"))  # sides unknown: reported only
    assert not of("deal_end", out)
    out = calls(ref, play("A", "spade_1"), play("B", "spade_4"))  # partner revealed
    out = calls(ref, play("E", "bastoni_10"))  # D's turn
    end = of("deal_end", out)[0]
    assert end["winner"] == "A+B" and end["forfeit"] == {"seat": "E", "rule": "out_of_turn"}
    assert end["credits"] == {"A": 2, "B": 1, "C": -1, "D": -1, "E": -1}


def test_duplicate_card_is_reported_and_not_recorded() -> None:
    ref = started(contract("A", "spade_4"), play("A", "spade_1"))
    out = calls(ref, play("B", "spade_1"))
    assert of("violation", out)[0]["rule"] == "duplicate_card"
    assert ref.turn == "B"


# ------------------------------------------------------------------------------ options, match
def test_options_are_checked_and_named() -> None:
    for options, key in (
        ({"deals": 0}, "deals"),
        ({"doppia_from": 90, "tripla_from": 80}, "doppia_from"),
        ({"auction": "dutch"}, "auction"),
        ({"bonus": 1}, "bonus"),
    ):
        with pytest.raises(OptionError, match=key):
            Referee().apply(deal(**options))


def test_option_multiplier_on_loss_doubles_the_callers_loss() -> None:
    assert sweep("spade_2", 75, caller="D")[-1]["credits"]["D"] == -4  # cappotto only
    ref = started(contract("D", "spade_2", 75), multiplier_on_loss=True)
    assert play_out(ref, SWEEP)[-1]["credits"]["D"] == -8  # doppia x cappotto


def test_option_multiplier_needs_two_false_applies_to_any_card() -> None:
    ref = started(contract("A", "spade_4", 75), multiplier_needs_two=False)
    assert play_out(ref, SWEEP)[-1]["credits"]["A"] == 8


def test_match_adds_credits_per_seat_and_ends_after_the_set_deals() -> None:
    ref = Referee()
    rng = random.Random(5)
    totals = dict.fromkeys(SEATS, 0)
    for number in range(3):
        play_deal(
            ref, "briscola-chiamata", rng, SEATS, options={"deals": 3} if number == 0 else None
        )
        assert ref.result is not None
        for seat, n in ref.result.extra["credits"].items():
            totals[seat] += n
    outcome = ref.outcome
    assert outcome is not None
    assert dict(outcome.score) == totals and sum(totals.values()) == 0
    best = max(totals.values())
    top = [s for s in SEATS if totals[s] == best]
    assert outcome.winner == (top[0] if len(top) == 1 else None)
    assert outcome.extra["leaders"] == top
