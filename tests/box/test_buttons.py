"""Buttons: press on release, hold once held; wired pins from the default config."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from referee.box.buttons import GESTURES, MENU_GESTURES, Buttons
from referee.box.config import PinsConfig

PINS = PinsConfig(hold_s=0.05)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


def test_press_and_hold_are_told_apart(factory: MockFactory) -> None:
    seen: list[tuple[str, str]] = []
    buttons = Buttons(PINS, lambda b, g: seen.append((b, g)), pin_factory=factory)
    ok = factory.pin(PINS.button_ok)
    ok.drive_low()
    ok.drive_high()  # short press
    left = factory.pin(PINS.button_left)
    left.drive_low()
    deadline = time.time() + 5  # held until gpiozero's hold thread saw it (no fixed margin)
    while len(seen) < 2 and time.time() < deadline:
        time.sleep(0.01)
    left.drive_high()
    deadline = time.time() + 2
    while len(seen) < 2 and time.time() < deadline:
        time.sleep(0.01)
    assert seen == [("ok", "press"), ("left", "hold")]
    buttons.close()


def test_every_action_has_a_gesture() -> None:
    assert set(GESTURES.values()) == {"last_trick", "undo", "confirm", "menu", "score", "next_deal"}
    assert {"prev", "next", "select", "cancel", "back"} <= set(MENU_GESTURES.values())
