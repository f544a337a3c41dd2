"""Belotta rule 3f: an accuso counts only with its cards shown on the table.  A declaration
that later plays contradict (another seat lays one of its cards, or the declarer's own plays
leave no room in an 8-card hand for the cards it still "holds") was never really shown: it is
void (a ``false_declaration`` violation, no points), its cards are free again, and what it
alone proved (a revoke, a duplicate card) is unproven.  An operator's undo also clears it."""

from __future__ import annotations

import json
from typing import Any

from test_belotta_game import deal_end, declare, new_ref, play, play_hands, send, violations

from referee.cards import parse_card
from referee.replay import replay_lines
from referee.rules.games.belotta import BelottaDeal
from referee.rules.referee import Referee

# N holds every trump and leads them all: the other seats play their cards in this order.
HANDS = {
    "N": "JH 9H AH 10H KH QH 8H 7H",
    "W": "9S 8S 7S JC 9C 8C 7C JS",
    "S": "AS 10S AC 10C KC QC KS QS",
    "E": "AD 10D KD QD JD 9D 8D 7D",
}


def test_scenario_another_seat_lays_a_falsely_declared_card() -> None:
    ref = new_ref()
    declare(ref, "W", "AS KS QS")  # entered wrongly: S holds them
    calls = play(ref, "N:7S", "W:8C")  # W "held" spades: a revoke is reported at once
    assert violations(calls) == [("W", "revoke", 1)]
    calls = play(ref, "S:AS")  # before: duplicate_card, and S's real play was not recorded
    assert violations(calls) == [("W", "false_declaration", 1)]
    void = calls[0]
    assert void["cards"] == ["AS", "KS", "QS"] and void["proof"] == "AS" and "void" in void["detail"]
    deal = ref.deal
    assert deal is not None and deal.trick is not None
    assert deal.trick.cards[-1] == parse_card("AS") and ref.turn == "E"
    assert deal.known["W"] == [] and deal.seen[parse_card("KS")] == 0
    # the revoke was proven only by the void declaration: no longer on W's record
    assert ("W", "revoke", 1) not in deal.violations
    assert ("W", "false_declaration", 1) in deal.violations
    assert violations(play(ref, "E:KS")) == []  # the other declared cards are free too


def test_scenario_the_declarers_own_plays_leave_no_room_for_the_declaration() -> None:
    ref = new_ref()
    declare(ref, "E", "KS QS JS")  # entered wrongly: S and W hold them, and play them last
    calls = play_hands(ref, HANDS)
    found = violations(calls)
    assert found.count(("E", "false_declaration", 6)) == 1  # E's 6th card: 6 + 3 > 8
    assert [v for v in found if v[1] == "duplicate_card"] == []
    end = deal_end(calls)
    assert end["declarations"] == [
        {"seat": "E", "kind": "terza", "cards": ["KS", "QS", "JS"], "points": 20, "valid": False}
    ]
    assert end["declaration_points"] == {"N+S": 0, "W+E": 0}


def test_a_true_declaration_stands_through_the_deal() -> None:
    ref = new_ref()
    declare(ref, "W", "9S 8S 7S")
    calls = play_hands(ref, HANDS)
    assert "false_declaration" not in [v[1] for v in violations(calls)]
    assert deal_end(calls)["declarations"][0]["valid"] is True


def test_the_turned_card_stays_certain() -> None:
    ref = new_ref(turned="7H")  # N took the turned 7H (rule 1c)
    send(ref, {"event": "declare", "seat": "N", "cards": ["7H", "8H", "9H"]})
    out = play(ref, "N:JH", "W:7H")  # only N can hold the turned card: a misread
    assert violations(out) == [("W", "duplicate_card", 1)]


def test_operator_undo_of_the_declaration_clears_it() -> None:
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    assert send(ref, {"event": "undo"})[0] == {"call": "undo", "seat": "W", "cards": ["AS", "KS", "QS"]}
    assert violations(play(ref, "N:7S", "W:8C", "S:AS")) == []
    deal = ref.deal
    assert deal is not None and deal.data_as(BelottaDeal).declarations == []


def test_replay_of_the_record_gives_the_same_calls() -> None:
    events: list[dict[str, Any]] = [
        {"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "7H"},
        {"event": "contract", "seat": "N", "trump": "H"},
        {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]},
        {"event": "play", "seat": "N", "card": "7S"},
        {"event": "play", "seat": "W", "card": "8C"},
        {"event": "play", "seat": "S", "card": "AS"},
    ]
    ref = Referee()
    direct = [c.to_dict() for e in events for c in ref.apply(e)]
    replayed: list[dict[str, Any]] = []
    replay_lines([json.dumps(e) for e in events], replayed.append)
    assert replayed == direct


def test_undo_of_the_contradicting_play_restores_the_declaration() -> None:
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    play(ref, "N:7S", "W:8C")
    assert violations(play(ref, "S:AS")) == [("W", "false_declaration", 1)]
    assert send(ref, {"event": "undo"})[0] == {"call": "undo", "seat": "S", "card": "AS"}
    deal = ref.deal
    assert deal is not None and parse_card("AS") in deal.known["W"]  # S's AS was a misread
    assert ("W", "revoke", 1) in deal.violations and deal.data_as(BelottaDeal).void == []
    assert violations(play(ref, "S:AS")) == [("W", "false_declaration", 1)]  # the same again
