"""Every signal's pin states through gpiozero's MockFactory (pins from the default config).

No fixed sleeps: CI has two busy cores, so a test waits for what it checks (a finite pattern's
end with ``wait_idle``, or a condition with a generous timeout) and then asserts exactly."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from referee.box.config import PinsConfig
from referee.box.signals import PATTERNS, NullSignals, Signals, open_signals

PINS = PinsConfig()
SEATS = ("N", "W", "S", "E")
LED = {"N": 17, "W": 27, "S": 22, "E": 23}
RED, BUZZER = 25, 12


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def signals(factory: MockFactory) -> Iterator[Signals]:
    s = Signals(PINS, SEATS, pin_factory=factory, time_scale=0.01)
    yield s
    s.close()


def states(factory: MockFactory, pin: int) -> list[bool]:
    return [bool(s.state) for s in factory.pin(pin).states]


def lit(factory: MockFactory) -> set[str]:
    return {seat for seat, pin in LED.items() if factory.pin(pin).state}


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Until ``condition()`` holds (an endless pattern has shown enough), or the timeout."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)


def test_turn_lights_only_that_seat(signals: Signals, factory: MockFactory) -> None:
    signals.turn("W")
    assert lit(factory) == {"W"}
    signals.turn("S")
    assert lit(factory) == {"S"}
    signals.turn(None)
    assert lit(factory) == set()


def test_trick_winner_blinks_three_times_then_shows_the_turn(signals: Signals, factory: MockFactory) -> None:
    signals.turn("N")
    factory.pin(LED["S"]).clear_states()
    signals.trick_winner("S")
    signals.turn("S")  # the winner leads: the turn waits for the blink to end
    signals.wait_idle()
    assert states(factory, LED["S"]) == [False, True, False, True, False, True, False, True]
    assert lit(factory) == {"S"}


def test_violation_blinks_red_and_beeps_three_times(signals: Signals, factory: MockFactory) -> None:
    signals.turn("N")
    signals.violation()
    signals.wait_idle()
    assert states(factory, RED) == [False] + [True, False] * PATTERNS["violation_led"].n  # type: ignore[operator]
    assert states(factory, BUZZER) == [False, True, False, True, False, True, False]
    assert lit(factory) == {"N"}  # the turn stays shown


def test_unsure_flickers_the_seat_until_confirmed(signals: Signals, factory: MockFactory) -> None:
    signals.turn("E")
    signals.unsure("W")
    signals.wait_idle()  # the two chirps are over
    wait_for(lambda: states(factory, LED["W"]).count(True) >= 5)
    assert states(factory, LED["W"]).count(True) >= 5  # still flickering: no end by itself
    assert states(factory, BUZZER) == [False, True, False, True, False]  # two chirps
    assert states(factory, RED) == [False]  # not to be confused with a violation
    signals.confirmed()
    assert lit(factory) == {"E"}
    flickers = len(states(factory, LED["W"]))
    time.sleep(0.05)  # 25 flicker periods: none may come once confirmed
    assert len(states(factory, LED["W"])) == flickers


def test_fault_heartbeat_until_cleared_then_turn_again(signals: Signals, factory: MockFactory) -> None:
    signals.turn("N")
    signals.fault()
    signals.wait_idle()  # the long beep is over
    wait_for(lambda: states(factory, RED).count(True) >= 2)
    assert lit(factory) == set()
    assert states(factory, RED).count(True) >= 2  # endless heartbeat
    assert states(factory, BUZZER) == [False, True, False]  # one long beep
    signals.fault_cleared()
    assert not factory.pin(RED).state
    assert lit(factory) == {"N"}


def test_warning_and_time_up_beeps(factory: MockFactory) -> None:
    # 50 ms vs 300 ms beeps: a thread woken late on a busy CI core does not turn them round
    signals = Signals(PINS, SEATS, pin_factory=factory, time_scale=0.5)
    signals.warning_beep()
    signals.wait_idle()
    signals.time_up()
    signals.wait_idle()
    assert states(factory, BUZZER) == [False, True, False, True, False]
    gaps = [s.timestamp for s in factory.pin(BUZZER).states]  # MockPin: time since previous state
    assert gaps[4] > gaps[2]  # time up (0.6 s) is the longer beep than the warning (0.1 s)
    signals.close()


def test_team_won_blinks_both_partners(signals: Signals, factory: MockFactory) -> None:
    signals.turn(None)
    signals.team_won(["N", "S"])
    signals.wait_idle()
    n = PATTERNS["team_won"].n
    assert states(factory, LED["N"]) == [False] + [True, False] * n  # type: ignore[operator]
    assert states(factory, LED["S"]) == states(factory, LED["N"])
    assert states(factory, LED["W"]) == [False]


def test_missing_gpio_gives_null_signals(caplog: pytest.LogCaptureFixture) -> None:
    # 'native' needs /dev/gpiomem of a Pi: on this machine it fails, as a Pi with no LEDs would
    pins = PinsConfig(factory="native")
    result = open_signals(pins, SEATS)
    assert isinstance(result, NullSignals)
    result.turn("N")
    result.violation()
    assert "running without them" in caplog.text
