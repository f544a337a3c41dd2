"""The box tells the table when a called violation is withdrawn (a false declaration, an undo)
and shows each declaration briefly, on the OLED (every screen shown is recorded) and on
gpiozero's mock pins (the red LED, the buzzer)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from gpiozero.pins.mock import MockFactory

from box.helpers import FakeClock, RecordingSignals, Screens
from referee.box.app import SHOW_S, Box
from referee.box.config import BoxConfig, GameConfig
from referee.box.screens import (
    DeclarationScreen,
    MessageScreen,
    ScoreScreen,
    ViolationScreen,
    WithdrawnScreen,
)
from referee.box.signals import Signals
from referee.box.state import MatchStore

BELOTTA = GameConfig("belotta", "french", ("N", "W", "S", "E"), (("N", "S"), ("W", "E")))
DEAL = {"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "7H"}


def belotta_box(cfg: BoxConfig, clock: FakeClock, signals: Any) -> tuple[Box, Screens]:
    screens = Screens()
    box = Box(replace(cfg, game=BELOTTA), MatchStore.open(cfg.state_dir), signals, screens, clock=clock)
    box.start()
    screens.news()
    return box, screens


def send(box: Box, clock: FakeClock, *events: dict[str, Any]) -> None:
    for event in events:
        box.handle(event)


def drain(box: Box, clock: FakeClock) -> None:
    """Let every queued screen have its turn."""
    for _ in range(10):
        clock.now += max(SHOW_S.values())
        box.tick()


def play(seat: str, card: str) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card}


def test_scenario_the_revoke_a_false_declaration_proved_is_withdrawn(cfg: BoxConfig, clock: FakeClock) -> None:
    """The brief's table: W wrongly declares AS KS QS, N leads 7S, W plays 8C (revoke called),
    S plays AS: the declaration is false and the revoke is withdrawn, on screen; the undo of
    S's AS withdraws the false declaration and calls the revoke again."""
    signals = RecordingSignals()
    box, screens = belotta_box(cfg, clock, signals)
    send(box, clock, DEAL, {"event": "contract", "seat": "N", "trump": "H"},
         {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]})
    drain(box, clock)
    assert screens.news()[-1] == DeclarationScreen("W", "terza", 20, ("AS", "KS", "QS"))
    send(box, clock, play("N", "7S"), play("W", "8C"))
    drain(box, clock)
    assert screens.news() == [ViolationScreen("W", "revoke", 1)]
    signals.log.clear()
    send(box, clock, play("S", "AS"))
    drain(box, clock)
    assert screens.news() == [ViolationScreen("W", "false_declaration", 1), WithdrawnScreen("W", "revoke", 1)]
    # one alarm: the false declaration's red LED and beeps stand for the batch
    assert [n for n in signals.names() if n in ("violation", "withdrawn")] == ["violation"]
    deal = box.referee.deal
    assert deal is not None and deal.violations == [("W", "false_declaration", 1)]
    box.gesture("left", "hold")  # undo: S's AS was a misread
    drain(box, clock)
    assert screens.news() == [
        MessageScreen("undo", "S: A♠"),
        WithdrawnScreen("W", "false_declaration", 1),
        ViolationScreen("W", "revoke", 1),
    ]
    assert deal is not box.referee.deal and box.referee.deal is not None
    assert box.referee.deal.violations == [("W", "revoke", 1)]
    calls = box.store.calls(1)
    assert [c["reason"] for c in calls if c["call"] == "withdrawn"] == ["false_declaration", "undo"]


def test_two_revokes_one_false_declaration_proved_are_both_withdrawn(cfg: BoxConfig, clock: FakeClock) -> None:
    box, screens = belotta_box(cfg, clock, RecordingSignals())
    send(box, clock, DEAL, {"event": "contract", "seat": "N", "trump": "H"},
         {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]},
         play("N", "7S"), play("W", "8C"), play("S", "10S"), play("E", "7D"))  # W revokes, S takes
    drain(box, clock)
    send(box, clock, play("S", "9S"), play("E", "8D"), play("N", "8S"), play("W", "9C"))  # W again
    drain(box, clock)
    assert [s for s in screens.news() if isinstance(s, ViolationScreen)] == [
        ViolationScreen("W", "revoke", 1), ViolationScreen("W", "revoke", 2)
    ]
    send(box, clock, play("S", "AS"))  # trick 3: the declaration was false
    drain(box, clock)
    assert screens.news() == [
        ViolationScreen("W", "false_declaration", 3),
        WithdrawnScreen("W", "revoke", 1),
        WithdrawnScreen("W", "revoke", 2),
    ]


def test_undo_of_an_out_of_turn_card_withdraws_it_with_a_chirp(cfg: BoxConfig, clock: FakeClock) -> None:
    signals = RecordingSignals()
    box, screens = belotta_box(cfg, clock, signals)
    send(box, clock, DEAL, {"event": "contract", "seat": "N", "trump": "H"}, play("S", "7S"))
    drain(box, clock)
    assert screens.news() == [ViolationScreen("S", "out_of_turn", 1)]
    box.gesture("left", "hold")
    drain(box, clock)
    assert screens.news() == [MessageScreen("undo", "S: 7♠"), WithdrawnScreen("S", "out_of_turn", 1)]
    assert signals.names().count("withdrawn") == 1  # no new violation in the batch: a chirp


def test_belotta_is_shown_when_said(cfg: BoxConfig, clock: FakeClock) -> None:
    """Rule 3h: belotta (K+Q of trumps) is said by the trick of its second card: "W: BELOTTA"
    over its cards, for a few seconds, then the score again."""
    box, screens = belotta_box(cfg, clock, RecordingSignals())
    send(box, clock, DEAL, {"event": "contract", "seat": "N", "trump": "H"})
    screens.news()
    send(box, clock, {"event": "declare", "seat": "W", "cards": ["KH", "QH"]})
    assert screens.shown[-1] == DeclarationScreen("W", "belotta", 20, ("KH", "QH"))
    clock.now += SHOW_S["declaration"]
    box.tick()
    assert isinstance(screens.shown[-1], ScoreScreen)


def test_binocolo_melds_are_shown(cfg: BoxConfig, clock: FakeClock) -> None:
    game = GameConfig("binocolo", "french", ("N", "W", "S", "E"), (("N",), ("W",), ("S",), ("E",)))
    screens = Screens()
    box = Box(replace(cfg, game=game), MatchStore.open(cfg.state_dir), RecordingSignals(), screens, clock=clock)
    box.start()
    send(box, clock, {"event": "deal", "game": "binocolo", "seats": ["N", "W", "S", "E"], "dealer": "E"},
         {"event": "contract", "seat": "N", "bid": 15, "trump": "S"},
         {"event": "discard", "seat": "N", "cards": ["9C", "9C", "9D", "9D"]},
         {"event": "declare", "seat": "W", "cards": ["JD", "QS"]})
    assert screens.shown[-1] == DeclarationScreen("W", "binocolo", 4, ("JD", "QS"))


def test_withdrawn_on_mock_pins_darkens_the_red_led_and_chirps(factory: MockFactory) -> None:
    pins = BoxConfig().pins
    signals = Signals(pins, ("N", "W", "S", "E"), pin_factory=factory, time_scale=0.5)
    red, buzzer = factory.pin(pins.violation_led), factory.pin(pins.buzzer)
    try:
        signals.turn("N")
        signals.violation()  # 4 slow blinks and 3 beeps, 1.8 s at this scale
        with signals._lock:  # no pattern step between the snapshot and the withdrawal
            red.clear_states()
            buzzer.clear_states()
            signals.withdrawn()
        assert not red.state
        red_after = len(red.states)
        signals.wait_idle()
        assert len(red.states) == red_after and not red.state  # the violation's blink stopped
        beeps = [bool(s.state) for s in buzzer.states]
        assert beeps[1:].count(True) + beeps[0] == 1 and beeps[-1] is False  # one short chirp
        assert factory.pin(pins.seat_leds["N"]).state  # the turn stays shown
        signals.fault()
        signals.withdrawn()  # a fault's heartbeat is no violation's blink: it goes on
        signals.wait_idle()
        before = len(red.states)
        deadline = time.monotonic() + 10
        while len(red.states) < before + 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(red.states) >= before + 2
    finally:
        signals.close()
