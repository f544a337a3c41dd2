"""When the camera comes back, the box shows again what the fault screen covered: a question
waiting for the operator, an open menu, a call still in its time (before, only the score came
back, and a question stayed hidden under a stale FAULT screen)."""

from __future__ import annotations

from tracker_doubles import StubTracker, Track

from box.helpers import FakeClock, RecordingSignals, camera_box, on_screen
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.display import NullDisplay
from referee.box.screens import ConfirmScreen, FaultScreen, MenuScreen, ScoreScreen, ViolationScreen
from referee.box.state import MatchStore

DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
        "trump_card": "bastoni_1", "options": {"out_of_turn": "report"}}


def test_a_question_asked_before_the_camera_fault_is_shown_again_after_it(cfg: BoxConfig, clock: FakeClock) -> None:
    tracker = StubTracker(Track(9, "coppe_3"))
    box, _, display = camera_box(cfg, clock, tracker)
    for i, (seat, card) in enumerate([("N", "spade_1"), ("W", "spade_2"), ("S", "spade_3")]):
        box.handle({"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": 1.0 + i})
    tracker.on_table = False
    box.frame(3.0 + tracker.config.long_gone_s + 0.1)
    question = ConfirmScreen("E", "coppe_3", missed=True)
    assert display.last == question
    box.fault("fault_camera", 1)
    assert display.last == FaultScreen("fault_camera", 1)
    box.fault_cleared()
    assert display.last == question and box.pending is not None
    box.gesture("ok", "press")  # and the answer still works
    assert box.store.events(1)[-1]["card"] == "coppe_3"


def test_an_open_menu_and_a_violation_in_its_time_come_back_after_a_fault(cfg: BoxConfig, clock: FakeClock) -> None:
    display = NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    box.start()
    box.handle(DEAL)
    box.handle({"event": "play", "seat": "S", "card": "coppe_1"})  # out of turn: 5 s on screen
    box.fault("fault_camera", 1)
    clock.now += 1
    box.fault_cleared()
    assert on_screen(display) == ViolationScreen("S", "out_of_turn", 1)
    clock.now += 5
    box.tick()
    assert isinstance(on_screen(display), ScoreScreen)
    box.gesture("right", "hold")  # next deal: the menu asks for the face-up briscola
    menu = on_screen(display)
    assert isinstance(menu, MenuScreen) and box.menu is not None
    box.fault("fault_camera", 2)
    box.fault_cleared()
    assert on_screen(display) == menu


def test_a_menu_closed_during_a_fault_gives_the_fault_screen_back(cfg: BoxConfig, clock: FakeClock) -> None:
    display = NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    box.start()
    box.handle(DEAL)
    box.fault("fault_camera", 1)
    box.gesture("right", "hold")  # the deal-card menu, over the fault screen
    assert isinstance(on_screen(display), MenuScreen)
    box.gesture("ok", "hold")  # cancel
    assert box.menu is None and on_screen(display) == FaultScreen("fault_camera", 1)
    box.gesture("right", "press")  # the score button does not hide the fault either
    box.tick()
    assert on_screen(display) == FaultScreen("fault_camera", 1)
