"""The box controller: calls reach signals and display, the record resumes, buttons act."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from box.helpers import FakeClock, RecordingSignals, on_screen, timer_cfg
from referee.box.app import Box
from referee.box.config import BoxConfig, GameConfig
from referee.box.display import NullDisplay
from referee.box.screens import (
    ConfirmScreen,
    DealerScreen,
    FaultScreen,
    LastTrickScreen,
    MenuScreen,
    MessageScreen,
    RefusedScreen,
    ResultScreen,
    ScoreScreen,
    TimerScreen,
    TrickScreen,
    ViolationScreen,
)
from referee.box.state import MatchStore
from referee.replay import replay_lines
from referee.rules.playout import random_deal_events, random_match_events

DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E", "trump_card": "bastoni_1"}


def make_box(cfg: BoxConfig, clock: FakeClock, store: MatchStore | None = None) -> tuple[Box, RecordingSignals, NullDisplay]:
    signals, display = RecordingSignals(), NullDisplay()
    box = Box(cfg, store or MatchStore.open(cfg.state_dir), signals, display, clock=clock)
    box.start()
    return box, signals, display


def test_trick_call_blinks_winner_and_shows_it_then_the_score(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = make_box(cfg, clock)
    box.handle(DEAL)
    assert ("turn", ("N",)) in signals.log
    for seat, card in [("N", "coppe_3"), ("W", "coppe_1"), ("S", "coppe_2"), ("E", "coppe_4")]:
        box.handle({"event": "play", "seat": seat, "card": card})
    assert ("trick_winner", ("W",)) in signals.log
    assert display.last == TrickScreen(number=1, winner="W", points=21)
    clock.now += 3
    box.tick()
    # the face-up briscola is the contract shown
    assert on_screen(display) == ScoreScreen(points=[("N+S", 0), ("W+E", 21)], turn="W", games="0-0", contract="A Bas")


def test_violation_signals_and_screen(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = make_box(cfg, clock)
    box.handle(DEAL)
    calls = box.handle({"event": "play", "seat": "S", "card": "coppe_3"})  # N should lead
    assert calls[0]["rule"] == "out_of_turn"
    assert "violation" in signals.names()
    assert isinstance(display.last, ViolationScreen) and display.last.seat == "S"
    clock.now += 6  # tournament rule: the pair lost the game; its result comes after the violation
    box.tick()
    assert isinstance(display.last, ResultScreen) and display.last.winner == "W+E"


def test_rejected_event_is_recorded_as_replay_would_report_it(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, _ = make_box(cfg, clock)
    calls = box.handle({"event": "play", "seat": "N", "card": "coppe_3"})  # no deal yet
    assert calls[0]["call"] == "error" and calls[0]["line"] == 1
    box.handle(DEAL)
    assert box.store.calls(1)[0] == calls[0]


def test_export_replays_call_for_call(cfg: BoxConfig, clock: FakeClock) -> None:
    events = random_match_events("briscola-2", seed=5)
    events.insert(7, {"event": "play", "seat": "Z", "card": "coppe_1"})  # a rejected line
    events.insert(9, {"event": "undo"})  # retracts events[8] ...
    events.insert(10, dict(events[8]))  # ... which is then played again
    box, _, _ = make_box(replace(cfg, game=GameConfig("briscola-2", "italian", ("N", "S"), (("N",), ("S",)))), clock)
    for event in events:
        box.handle(event)
    match = box.store.matches()[0].id
    replayed: list[dict[str, object]] = []
    rejected = replay_lines([json.dumps(e) for e in box.store.events(match)], replayed.append)
    assert rejected == 1
    assert replayed == box.store.calls(match)
    assert box.store.matches()[0].ended is not None  # match_end closes the record


def test_resume_after_restart_continues_the_same_match(cfg: BoxConfig, clock: FakeClock) -> None:
    events = random_deal_events("briscola-4", seed=2)
    box, _, _ = make_box(cfg, clock)
    for event in events[:10]:
        box.handle(event, source_pos=events.index(event) + 1)
    box.store.close()
    again, signals, display = make_box(cfg, clock)  # a new process: same state dir
    assert again.match_id == box.match_id
    assert again.referee.turn == box.referee.turn
    assert signals.log[0] == ("turn", (box.referee.turn,))
    assert again.store.last_source_pos(again.match_id or 0) == 10
    assert isinstance(display.last, ScoreScreen)


def test_unsure_card_waits_for_confirm(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = make_box(cfg, clock)
    box.handle(DEAL)
    assert box.handle({"event": "play", "seat": "N", "card": "coppe_3", "confidence": 0.4}) == []
    assert display.last == ConfirmScreen("N", "coppe_3", more=True)  # the only card offered: right opens the picker
    assert ("unsure", ("N",)) in signals.log
    assert len(box.store.events(1)) == 1  # not recorded until confirmed
    box.gesture("ok", "press")
    assert box.store.events(1)[-1] == {"event": "play", "seat": "N", "card": "coppe_3", "confirmed": True}
    assert box.referee.turn == "W"


def test_unsure_card_rejected_with_left(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, _ = make_box(cfg, clock)
    box.handle(DEAL)
    box.handle({"event": "play", "seat": "N", "card": "coppe_3", "confidence": 0.4})
    box.gesture("left", "press")
    assert box.referee.turn == "N" and len(box.store.events(1)) == 1
    assert "confirmed" in signals.names()


def test_undo_button_and_last_trick_button(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, display = make_box(cfg, clock)
    box.handle(DEAL)
    plays = [("N", "coppe_3"), ("W", "coppe_1"), ("S", "coppe_2"), ("E", "coppe_4")]
    for seat, card in plays:
        box.handle({"event": "play", "seat": seat, "card": card})
    box.gesture("left", "press")
    assert display.last == LastTrickScreen(1, "W", plays)
    box.handle({"event": "play", "seat": "W", "card": "spade_3"})
    box.gesture("left", "hold")
    assert box.store.events(1)[-1] == {"event": "undo"}
    assert box.referee.turn == "W"


def test_contract_menu_sends_contract_event(cfg: BoxConfig, clock: FakeClock) -> None:
    game = GameConfig("belotta", "french", ("N", "W", "S", "E"), (("N", "S"), ("W", "E")))
    box, _, display = make_box(replace(cfg, game=game), clock)
    box.handle({"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "JH"})
    box.gesture("ok", "hold")
    assert isinstance(display.last, MenuScreen)
    for button in ("ok", "right", "ok", "right", "right", "ok"):  # the entry menu's first entry: contract
        box.gesture(button, "press")
    assert box.store.events(1)[-1] == {"event": "contract", "seat": "W", "trump": "H"}
    assert box.menu is None


def test_a_contract_the_rules_core_refuses_records_nothing(cfg: BoxConfig, clock: FakeClock) -> None:
    """Entered before any deal: the core's reason is shown and no match is begun (before,
    the rejected contract began a match and was recorded as an error line)."""
    game = GameConfig("belotta", "french", ("N", "W", "S", "E"), (("N", "S"), ("W", "E")))
    box, _, display = make_box(replace(cfg, game=game), clock)
    box.gesture("ok", "hold")
    for button in ("ok", "ok", "ok"):
        box.gesture(button, "press")
    assert isinstance(display.last, RefusedScreen) and display.last.reason
    assert box.match_id is None and box.store.current_match("belotta") is None


def test_move_timer_warns_then_calls_time(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = make_box(timer_cfg(cfg), clock)
    box.handle(DEAL)
    clock.now += 3
    box.tick()
    assert display.last == TimerScreen("N", 17, 20, False)
    clock.now += 12.5
    box.tick()
    assert signals.names().count("warning_beep") == 1
    assert display.last == TimerScreen("N", 5, 20, True)
    clock.now += 5
    box.tick()
    assert signals.names().count("time_up") == 1
    assert on_screen(display) == ViolationScreen("N", "move_timer")
    box.tick()
    assert signals.names().count("time_up") == 1  # once per turn


def test_fault_shows_and_clears_keeping_the_match(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = make_box(cfg, clock)
    box.handle(DEAL)
    box.fault("fault_camera", 1)
    box.fault("fault_camera", 2)
    assert display.last == FaultScreen("fault_camera", 2)
    assert signals.names().count("fault") == 1
    box.handle({"event": "play", "seat": "N", "card": "coppe_3"})  # a late event still counts
    assert display.last == FaultScreen("fault_camera", 2)  # the fault stays on screen
    box.fault_cleared()
    assert "fault_cleared" in signals.names()
    assert isinstance(display.last, ScoreScreen) and box.referee.turn == "W"


def test_full_disk_keeps_memory_equal_to_the_record(cfg: BoxConfig, clock: FakeClock, tmp_path: Path) -> None:
    import sqlite3

    import pytest

    from referee.box.state import StateError

    box, _, _ = make_box(cfg, clock)
    box.handle(DEAL)
    box.store.close()
    path = cfg.state_dir / "matches.sqlite"
    pages = sqlite3.connect(path).execute("PRAGMA page_count").fetchone()[0]
    full, _, _ = make_box(cfg, clock, MatchStore.open(cfg.state_dir, max_pages=pages))
    with pytest.raises(StateError, match="disk full"):
        for i in range(200):  # fills the last free page, then fails
            full.handle({"event": "play", "seat": full.referee.turn, "card": f"coppe_{i % 10 + 1}"})
    recorded = full.store.events(1)
    assert full.referee.turn == make_box(cfg, clock)[0].referee.turn
    assert full.store.integrity_ok() and recorded[0] == DEAL


def test_draw_for_dealer_shows_the_winning_card_and_redraws(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, display = make_box(cfg, clock)
    box.handle({"event": "draw", "game": "briscola-4", "cards": {"N": "coppe_3", "W": "spade_3", "S": "denari_4", "E": "coppe_2"}})
    assert display.last == MessageScreen("redraw", "N W")
    box.handle({"event": "draw", "cards": {"N": "coppe_10", "W": "spade_4"}})
    clock.now += 4
    box.tick()
    assert on_screen(display) == DealerScreen("N", "coppe_10")
