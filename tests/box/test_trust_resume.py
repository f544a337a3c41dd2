"""After a crash mid-deal the camera keeps the trust it had earned (two whole tricks seen: an
out-of-turn play is called at once, not asked about), derived from the SQLite match record.
The shortcut is opt-in (``thresholds.trust_after_tricks``): these boxes enable it; with the
default every out-of-turn play is asked about first (the last tests).

A crash is simulated as ``kill -9`` leaves the state: the state directory (database and WAL)
is copied while the first box still holds it open, and a new box resumes from the copy."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy
from tracker_doubles import StubTracker, Track

from box.helpers import FakeClock, RecordingSignals
from referee.box.app import Box
from referee.box.config import BoxConfig, parse_config
from referee.box.display import Display, NullDisplay
from referee.box.screens import ViolationScreen
from referee.box.signals import Signals
from referee.box.state import MatchStore
from referee.table.arbiter import TRUSTED_AFTER

DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E", "trump_card": "bastoni_1"}
SEATS = DEAL["seats"]
CARDS = ["coppe_1", "coppe_2", "coppe_3", "coppe_4", "spade_1", "spade_2", "spade_3", "spade_4",
         "denari_1", "denari_2", "denari_3", "denari_4", "coppe_5", "spade_5", "denari_5"]


@pytest.fixture
def cfg(tmp_path: Path) -> BoxConfig:
    """The box config with the trusted-camera shortcut enabled after the usual two tricks."""
    base = parse_config(f"[thresholds]\ntrust_after_tricks = {TRUSTED_AFTER}\n")
    return replace(base, state_dir=tmp_path / "state")


def new_box(cfg: BoxConfig, clock: FakeClock, state: Path) -> tuple[Box, StubTracker, RecordingSignals]:
    signals, tracker = RecordingSignals(), StubTracker()
    box = Box(cfg, MatchStore.open(state), signals, NullDisplay(), clock=clock)
    box.start()
    box.attach_vision(tracker)  # a restarted process has a fresh tracker and arbiter
    return box, tracker, signals


def turn(box: Box) -> str:
    seat = box.referee.turn
    assert seat is not None
    return seat


def after(seat: str) -> str:
    return SEATS[(SEATS.index(seat) + 1) % len(SEATS)]


def camera(box: Box, seat: str, card: str, t: float) -> None:
    box.handle({"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": t}, source_pos=int(t * 10))


#: The deal as the table plays it: two whole tricks; then the camera misses trick 3's lead, the
#: operator names it (OK on the camera's guess) and trick 3 ends. Each step: (box, tracker) -> None.
def whole_play(i: int) -> Any:
    def step(box: Box, tracker: StubTracker) -> None:
        camera(box, turn(box), CARDS[i], 1.0 + i)

    return step


def missed_lead(box: Box, tracker: StubTracker) -> None:
    leader = turn(box)
    tracker.missed = Track(5, CARDS[8])  # a still card the camera could not read
    camera(box, after(leader), CARDS[9], 9.0)  # the next seat's card arrives first
    assert box.pending is not None and box.pending.get("missed") and box.pending["seat"] == leader
    box.gesture("ok", "press")  # yes: the leader played the guess
    tracker.missed = None


SCRIPT = [*(whole_play(i) for i in range(8)), missed_lead, whole_play(10), whole_play(11)]


def trust(box: Box) -> tuple[int, bool]:
    assert box.arbiter is not None
    return box.arbiter.clean_tricks, box.arbiter.named_missed


def crash_copy(box: Box, state: Path, tmp_path: Path, name: str) -> Path:
    """The state directory as a kill -9 leaves it: the first box's connection is never closed."""
    assert box.store.path.parent == state
    return Path(shutil.copytree(state, tmp_path / name))


def test_two_whole_tricks_before_the_crash_are_still_trusted_after_it(
    cfg: BoxConfig, clock: FakeClock, tmp_path: Path, factory: MockFactory
) -> None:
    """On the restarted box (mock pins, dummy OLED) an out-of-turn play is called at once."""
    first, tracker, _ = new_box(cfg, clock, cfg.state_dir)
    first.handle(DEAL)
    for step in SCRIPT[:8]:
        step(first, tracker)
    camera(first, turn(first), CARDS[12], 8.5)  # trick 3 begun: a restart mid-deal, mid-trick
    assert trust(first) == (TRUSTED_AFTER, False)

    crashed = crash_copy(first, cfg.state_dir, tmp_path, "crashed")
    signals = Signals(cfg.pins, cfg.game.seats, pin_factory=factory, time_scale=0.01)
    display = Display(dummy(width=128, height=64, mode="1"), "en")
    try:
        box = Box(cfg, MatchStore.open(crashed), signals, display, clock=clock)
        box.start()
        box.attach_vision(StubTracker())
        assert box.match_id == first.match_id and trust(box) == (TRUSTED_AFTER, False)
        wrong = after(after(turn(box)))  # skips the seat on turn, which the camera saw has not played
        camera(box, wrong, CARDS[13], 20.0)
        assert box.pending is None  # called at once, as before the crash: no "did <seat> play?"
        assert display.last == ViolationScreen(wrong, "out_of_turn", 3)
        signals.wait_idle()
        assert any(s.state for s in factory.pin(cfg.pins.violation_led).states)  # the red LED blinked
        calls = box.store.calls(crashed_match(box))
        assert any(c.get("rule") == "out_of_turn" and c.get("seat") == wrong for c in calls)
    finally:
        signals.close()


def crashed_match(box: Box) -> int:
    assert box.match_id is not None
    return box.match_id


def test_a_fresh_box_without_the_record_would_have_asked(cfg: BoxConfig, clock: FakeClock, tmp_path: Path) -> None:
    """The control: the same table and play on a box with no trust asks the question instead."""
    box, _, _ = new_box(cfg, clock, cfg.state_dir)
    box.handle(DEAL)
    camera(box, after(after(turn(box))), CARDS[13], 1.0)
    assert box.pending is not None and box.pending.get("missed") and box.menu is not None


@pytest.mark.parametrize("crash_after", [8, 9, 10, 11])
def test_a_crash_at_any_step_resumes_with_the_uninterrupted_trust(
    cfg: BoxConfig, clock: FakeClock, tmp_path: Path, crash_after: int
) -> None:
    """Whole tricks, then a missed card named by the operator in trick 3 (which then does not
    count as whole): crashing after any step gives the trust of a run that never stopped, and
    the named card is recorded as the camera's miss."""
    calm, calm_tracker, _ = new_box(cfg, clock, tmp_path / "calm")
    calm.handle(DEAL)
    for step in SCRIPT:
        step(calm, calm_tracker)

    first, tracker, _ = new_box(cfg, clock, cfg.state_dir)
    first.handle(DEAL)
    for step in SCRIPT[:crash_after]:
        step(first, tracker)
    box, tracker, _ = new_box(cfg, clock, crash_copy(first, cfg.state_dir, tmp_path, "crashed"))
    assert trust(box) == trust(first)
    for step in SCRIPT[crash_after:]:
        step(box, tracker)
    assert trust(box) == trust(calm) == (0, False)  # trick 3 had a missed card
    assert box.store.events(1) == calm.store.events(1)
    assert sum(1 for e in calm.store.events(1) if e.get("missed") is True) == 1


def test_by_default_the_resumed_trust_still_asks_before_out_of_turn(
    cfg: BoxConfig, clock: FakeClock, tmp_path: Path
) -> None:
    """The default config (no trust_after_tricks): the same two whole tricks and restart are
    counted, but an out-of-turn card still asks "did <seat on turn> play?" first."""
    default = replace(parse_config(""), state_dir=cfg.state_dir)
    assert default.thresholds.trust_after_tricks == 0
    first, tracker, _ = new_box(default, clock, default.state_dir)
    first.handle(DEAL)
    for step in SCRIPT[:8]:
        step(first, tracker)
    box, _, _ = new_box(default, clock, crash_copy(first, default.state_dir, tmp_path, "crashed"))
    assert trust(box) == (TRUSTED_AFTER, False) and box.arbiter is not None and not box.arbiter.trusted
    seat = turn(box)
    camera(box, after(after(seat)), CARDS[13], 20.0)
    assert box.pending is not None and box.pending.get("missed") and box.pending["seat"] == seat
    assert not any(c.get("call") == "violation" for c in box.store.calls(crashed_match(box)))
