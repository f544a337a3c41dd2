"""Undo across the deal boundary: an operator who notices a wrong call right after a deal
ended (even once the next deal was entered, or the match ended and a new one began) can
still retract the last play of that deal, and undo retracts a wrongly entered declaration."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.cards import parse_card
from referee.rules.errors import PhaseError
from referee.rules.games.belotta import BelottaDeal
from referee.rules.playout import play_deal
from referee.rules.referee import Referee

SEATS = ("A", "B")


def send(ref: Referee, event: dict[str, Any]) -> list[dict[str, Any]]:
    return [c.to_dict() for c in ref.apply(event)]


def two_deals(rounds_to_win: int = 2) -> tuple[Referee, list[dict[str, Any]]]:
    """A briscola-2 match with deal 1 played out (seed chosen so the match goes on)."""
    ref = Referee()
    rng = random.Random(3)
    events = play_deal(ref, "briscola-2", rng, SEATS, options={"rounds_to_win": rounds_to_win})
    return ref, events


def next_deal(ref: Referee) -> dict[str, Any]:
    return {"event": "deal", "game": "briscola-2", "seats": list(SEATS),
            "dealer": ref.next_dealer, "trump_card": "coppe_1"}


def test_scenario_wrong_last_play_noticed_after_the_next_deal_was_entered() -> None:
    ref, events = two_deals()
    assert ref.result is not None and ref.match is not None and ref.match.deals == 1
    score_after_1 = dict(ref.match.score)
    send(ref, next_deal(ref))
    assert ref.deal is not None and ref.deal.number == 2
    out = send(ref, {"event": "undo"})  # before: PhaseError "no card played yet in deal 2"
    last = events[-1]
    assert out == [{"call": "undo", "seat": last["seat"], "card": last["card"]},
                   {"call": "turn", "seat": last["seat"]}]
    # back in deal 1 before its last card: no result, no deal counted, deal 2 dropped
    assert ref.deal.number == 1 and ref.result is None and ref.match.deals == 0
    assert ref.turn == last["seat"] and ref.deal.seen[parse_card(last["card"])] == 0
    # the operator lays the right card (here: the same one) and the deal ends as before
    send(ref, last)
    assert ref.match.deals == 1 and dict(ref.match.score) == score_after_1
    send(ref, next_deal(ref))
    assert ref.deal.number == 2 and ref.turn is not None


def test_scenario_undo_walks_back_through_the_ended_deal() -> None:
    ref, events = two_deals()
    send(ref, next_deal(ref))
    plays = [e for e in events if e["event"] == "play"]
    for expected in reversed(plays[-3:]):
        assert send(ref, {"event": "undo"})[0]["card"] == expected["card"]
    assert ref.deal is not None and ref.deal.number == 1
    assert len(ref.deal.tricks) == (len(plays) - 3) // 2


def test_scenario_undo_after_match_end_and_a_new_match_deal() -> None:
    ref, events = two_deals(rounds_to_win=1)
    assert ref.outcome is not None
    send(ref, next_deal(ref))  # a new match: deal 1 again
    assert ref.outcome is None and ref.deal is not None and ref.deal.number == 1
    out = send(ref, {"event": "undo"})
    assert out[0] == {"call": "undo", "seat": events[-1]["seat"], "card": events[-1]["card"]}
    assert ref.outcome is None and ref.result is None and ref.match is not None
    assert ref.match.deals == 0 and ref.deal.trick is not None and len(ref.deal.trick.plays) == 1
    send(ref, events[-1])
    assert ref.outcome is not None  # the old match ends again, as recorded


def test_undo_in_a_deal_with_plays_stays_in_that_deal() -> None:
    ref, _ = two_deals()
    send(ref, next_deal(ref))
    leader = ref.turn
    assert leader is not None
    send(ref, {"event": "play", "seat": leader, "card": "coppe_2"})
    assert send(ref, {"event": "undo"})[0] == {"call": "undo", "seat": leader, "card": "coppe_2"}
    assert ref.deal is not None and ref.deal.number == 2 and ref.turn == leader


def test_undo_with_nothing_ever_played_is_still_an_error() -> None:
    ref = Referee()
    send(ref, {"event": "deal", "game": "briscola-2", "seats": list(SEATS), "dealer": "B",
               "trump_card": "coppe_1"})
    with pytest.raises(PhaseError, match="no card played yet in deal 1"):
        ref.apply({"event": "undo"})


def test_scenario_operator_undoes_a_wrongly_entered_belotta_declaration() -> None:
    ref = Referee()
    send(ref, {"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"],
               "dealer": "E", "turned": "7H"})
    send(ref, {"event": "contract", "seat": "N", "trump": "H"})
    send(ref, {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]})
    assert ref.deal is not None and parse_card("AS") in ref.deal.known["W"]
    out = send(ref, {"event": "undo"})
    assert out == [{"call": "undo", "seat": "W", "cards": ["AS", "KS", "QS"]},
                   {"call": "turn", "seat": ref.turn}]
    assert ref.deal.known["W"] == [] and ref.deal.data_as(BelottaDeal).declarations == []
    # the cards are free again: another seat may play them, no duplicate_card
    assert ref.turn == "N"
    assert send(ref, {"event": "play", "seat": "N", "card": "AS"}) == [{"call": "turn", "seat": "W"}]
