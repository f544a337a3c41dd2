"""The box's undo crosses the deal boundary, and the match boundary: right after the last
card of a match (even once the next match's deal was entered) a hold of left retracts it and
the ended match is reopened in the record, so export and resume still agree."""

from __future__ import annotations

import json
from dataclasses import replace

from box.helpers import FakeClock, RecordingSignals
from referee.box.app import Box
from referee.box.config import BoxConfig, GameConfig
from referee.box.display import NullDisplay
from referee.box.i18n import card_short
from referee.box.screens import MessageScreen
from referee.box.state import MatchStore
from referee.cards import parse_card
from referee.replay import replay_lines
from referee.rules.playout import random_deal_events

HEADS_UP = GameConfig("briscola-2", "italian", ("N", "S"), (("N",), ("S",)), {"rounds_to_win": 1})


def make_box(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, NullDisplay]:
    display = NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    box.start()
    return box, display


def one_deal_match(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, NullDisplay, list[dict[str, object]]]:
    events = random_deal_events("briscola-2", seed=11, seats=("N", "S"), options={"rounds_to_win": 1})
    box, display = make_box(replace(cfg, game=HEADS_UP), clock)
    for event in events:
        box.handle(event)
    assert box.match_id is None and box.store.matches()[0].ended is not None
    return box, display, events


def test_scenario_wrong_last_card_noticed_after_the_match_ended(cfg: BoxConfig, clock: FakeClock) -> None:
    box, display, events = one_deal_match(cfg, clock)
    box.gesture("left", "hold")  # before: a new match record got an undo it could not apply
    last = events[-1]
    assert box.match_id == 1 and box.store.matches()[0].ended is None and len(box.store.matches()) == 1
    assert box.referee.turn == last["seat"] and box.referee.outcome is None
    assert display.last == MessageScreen("undo", f"{last['seat']}: {card_short(str(last['card']))}")
    box.handle(last)  # the right card (here the same one) ends the match again
    assert box.referee.outcome is not None and box.store.matches()[0].ended is not None
    replayed: list[dict[str, object]] = []
    replay_lines([json.dumps(e) for e in box.store.events(1)], replayed.append)
    assert replayed == box.store.calls(1)  # the record still replays call for call


def test_scenario_undo_after_the_next_matchs_deal_was_entered(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, events = one_deal_match(cfg, clock)
    box.handle({"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "trump_card": "spade_1"})
    assert box.match_id == 2
    box.gesture("left", "hold")
    matches = box.store.matches()
    assert box.match_id == 1 and matches[0].ended is None and matches[1].ended is not None
    assert box.referee.deal is not None and box.referee.deal.trump == parse_card(str(events[0]["trump_card"])).suit
    box.store.close()
    again, _ = make_box(replace(cfg, game=HEADS_UP), clock)  # a restart resumes match 1
    assert again.match_id == 1 and again.referee.turn == events[-1]["seat"]


def test_undo_within_a_match_stays_in_it(cfg: BoxConfig, clock: FakeClock) -> None:
    two = replace(HEADS_UP, options={"rounds_to_win": 2})
    events = random_deal_events("briscola-2", seed=11, seats=("N", "S"), options={"rounds_to_win": 2})
    box, _ = make_box(replace(cfg, game=two), clock)
    for event in events:
        box.handle(event)
    box.gesture("right", "hold")  # next deal: asks for the briscola
    box.gesture("ok", "press")
    box.gesture("ok", "press")
    assert box.referee.deal is not None and box.referee.deal.number == 2
    box.gesture("left", "hold")  # crosses back into deal 1, same match record
    assert box.match_id == 1 and len(box.store.matches()) == 1
    assert box.referee.deal is not None and box.referee.deal.number == 1 and box.referee.turn == events[-1]["seat"]


def test_an_undone_play_of_the_new_match_does_not_keep_undo_from_the_old_one(
    cfg: BoxConfig, clock: FakeClock
) -> None:
    box, _, events = one_deal_match(cfg, clock)
    box.handle({"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "trump_card": "spade_1"})
    box.handle({"event": "play", "seat": "S", "card": "spade_2"})
    box.gesture("left", "hold")  # retracts spade_2, in match 2
    assert box.match_id == 2
    box.gesture("left", "hold")  # nothing left in match 2: reopens match 1
    assert box.match_id == 1 and box.referee.turn == events[-1]["seat"]
    box.store.close()
    again, _ = make_box(replace(cfg, game=HEADS_UP), clock)  # the record agrees with memory
    assert again.match_id == 1 and again.referee.turn == box.referee.turn
