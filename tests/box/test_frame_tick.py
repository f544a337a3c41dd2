"""A trick gathered with fewer cards than seats, and then no play: the box still asks "did
<seat> play?" on the camera's frame tick (before, the check ran only when a play arrived, so a
table that gathered a short trick and waited never got the question)."""

from __future__ import annotations

import queue
import time
from dataclasses import replace
from typing import Any

from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy
from tracker_doubles import StubTracker, Track

from box.helpers import BRISCOLA4_DEAL, FakeClock, RecordingSignals, camera_box
from referee.box.app import Box
from referee.box.buttons import Buttons
from referee.box.config import BoxConfig
from referee.box.display import Display, NullDisplay
from referee.box.feed import FeedItem
from referee.box.notify import Notifier
from referee.box.run import Runner
from referee.box.screens import ConfirmScreen
from referee.box.signals import Signals
from referee.box.state import MatchStore

THREE = [("N", "spade_1"), ("W", "spade_2"), ("S", "spade_3")]  # E's card is never seen


def play(seat: str, card: str, t: float) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": t}


def three_played(cfg: BoxConfig, clock: FakeClock, tracker: StubTracker) -> tuple[Box, RecordingSignals, NullDisplay]:
    box, signals, display = camera_box(cfg, clock, tracker)
    for i, (seat, card) in enumerate(THREE):
        box.handle(play(seat, card, 1.0 + i), source_pos=i + 1)
    return box, signals, display


def test_a_short_gathered_trick_is_asked_about_once_the_table_is_quiet(cfg: BoxConfig, clock: FakeClock) -> None:
    tracker = StubTracker(Track(9, "coppe_3"))
    box, signals, display = three_played(cfg, clock, tracker)
    quiet = 3.0 + tracker.config.long_gone_s  # the last play came at t = 3
    assert box.frame(quiet - 0.5, 10) == [] and box.pending is None  # the cards still lie there
    tracker.on_table = False  # gathered with three cards
    assert box.frame(quiet - 0.1, 11) == [] and box.pending is None  # not quiet long enough yet
    box.frame(quiet + 0.1, 12)
    assert display.last == ConfirmScreen("E", "coppe_3", missed=True)
    assert ("unsure", ("E",)) in signals.log
    box.frame(quiet + 0.2, 13)  # asked once, not on every frame
    assert signals.names().count("unsure") == 1
    box.gesture("ok", "press")  # yes: E played the guess
    # recorded as the camera's miss: the trust it costs the camera survives a restart
    assert box.store.events(1)[-1] == {"event": "play", "seat": "E", "card": "coppe_3", "confirmed": True, "missed": True}
    assert box.store.last_source_pos(1) == 12  # the frame that asked
    assert any(c["call"] == "trick" for c in box.store.calls(1)) and tracker.settled == [(9, "coppe_3", "E")]


class QuietTable:
    """A camera feed on the mock clock: three plays, the trick gathered at t = 4, then frames
    only (heartbeats with their time), 10 per second, until t = 10."""

    def __init__(self, clock: FakeClock, tracker: StubTracker, gestures: queue.Queue[tuple[str, str]],
                 factory: MockFactory, ok_pin: int) -> None:
        self.clock, self.tracker, self.gestures, self.factory, self.ok_pin = clock, tracker, gestures, factory, ok_pin
        self.t0 = clock.now
        self.script = [(0.5, BRISCOLA4_DEAL)] + [(1.0 + i, play(s, c, 1.0 + i)) for i, (s, c) in enumerate(THREE)]
        self.finished = False
        self.index = 0
        self.pressed = False
        self.asked: tuple[float, Any] | None = None  # (t, screen) when the question came
        self.box: Box | None = None

    def poll(self, timeout: float) -> list[FeedItem]:
        self.clock.sleep(0.1)
        t, self.index = round(self.clock.now - self.t0, 2), self.index + 1
        if t >= 10.0:
            self.finished = True
        if t >= 4.0:
            self.tracker.on_table = False
        if self.box is not None and self.box.pending is not None and not self.pressed:
            self.asked = (t, self.box.display.last)
            self._press_ok()  # the table answers the question: yes, E played it
        items = []
        while self.script and self.script[0][0] <= t:
            items.append(FeedItem(dict(self.script.pop(0)[1]), self.index))
        return [*items, FeedItem(None, self.index, t)]

    def _press_ok(self) -> None:
        self.pressed = True
        pin = self.factory.pin(self.ok_pin)
        pin.drive_low()
        pin.drive_high()  # a short press: gpiozero's thread queues ("ok", "press")
        deadline = time.time() + 5
        while self.gestures.empty() and time.time() < deadline:
            time.sleep(0.01)

    def skip_to(self, pos: int | None) -> None:
        pass

    def reopen(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_loop_asks_on_frames_and_the_ok_button_answers(cfg: BoxConfig, clock: FakeClock, factory: MockFactory) -> None:
    """`referee run`'s loop with mock pins and a dummy OLED: no play after the short gathering,
    the question comes from the frame ticks, E's LED flickers, OK records E's card."""
    pins = replace(cfg.pins, hold_s=0.5)
    cfg = replace(cfg, pins=pins)
    signals = Signals(pins, cfg.game.seats, pin_factory=factory, time_scale=0.01)
    display = Display(dummy(width=128, height=64, mode="1"), "en")
    gestures: queue.Queue[tuple[str, str]] = queue.Queue()
    buttons = Buttons(pins, lambda b, k: gestures.put((b, k)), pin_factory=factory)
    tracker = StubTracker(Track(9, "coppe_3"))
    feed = QuietTable(clock, tracker, gestures, factory, pins.button_ok)
    box = Box(cfg, MatchStore.open(cfg.state_dir), signals, display, clock=clock)
    box.attach_vision(tracker)
    feed.box = box
    buzzer = factory.pin(pins.buzzer)
    try:
        assert Runner(cfg, box, feed, Notifier(None), gestures, clock=clock, sleep=clock.sleep).run() == 0
        assert feed.asked is not None  # the question came, with no play after the gathering
        t, screen = feed.asked
        assert 3.0 + tracker.config.long_gone_s < t < 3.0 + tracker.config.long_gone_s + 0.5
        assert screen == ConfirmScreen("E", "coppe_3", missed=True)
        plays = [(e["seat"], e["card"]) for e in box.store.events(1) if e["event"] == "play"]
        assert plays == [*THREE, ("E", "coppe_3")]  # OK on the mock pin answered yes
        assert any(c["call"] == "trick" for c in box.store.calls(1))
        signals.wait_idle()
        assert any(s.state for s in buzzer.states)  # the question's two chirps
    finally:
        buttons.close()
        signals.close()
