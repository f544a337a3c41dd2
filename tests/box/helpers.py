"""Helpers for the box tests: a config, a fake clock, recording signals, event logs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.box.config import BoxConfig, TimerConfig
from referee.box.display import ScreenSink
from referee.box.screens import ScoreScreen, Screen


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class RecordingSignals:
    """Remembers every intent in order (pin states are checked in test_signals.py)."""

    def __init__(self) -> None:
        self.log: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any) -> None:
            self.log.append((name, args))

        return record

    def names(self) -> list[str]:
        return [name for name, _ in self.log]


class Screens:
    """A display that keeps every screen it was asked to show, in order."""

    def __init__(self) -> None:
        self.shown: list[Screen] = []
        self.last: Screen | None = None

    def show(self, screen: Screen) -> None:
        self.shown.append(screen)
        self.last = screen

    def close(self) -> None:
        pass

    def news(self) -> list[Screen]:
        """The screens other than the running score, in order; forgets them."""
        out = [s for s in self.shown if not isinstance(s, ScoreScreen)]
        self.shown = []
        return out


def on_screen(display: ScreenSink) -> Screen | None:
    """The screen ``display`` shows now. Read through a call so that mypy does not carry an
    ``assert display.last == A`` narrowing past the box calls that change the screen."""
    return display.last


def timer_cfg(cfg: BoxConfig) -> BoxConfig:
    return replace(cfg, timer=TimerConfig(enabled=True, seconds=20, warning_s=5))


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


BRISCOLA4_DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
                  "trump_card": "bastoni_1"}


def camera_box(cfg: BoxConfig, clock: FakeClock, tracker: Any) -> tuple[Any, RecordingSignals, Any]:
    """A started box on the fake clock with the camera's tracker attached and a briscola-4 deal
    (N leads) entered: the set-up of the tests of questions about camera plays."""
    from referee.box.app import Box
    from referee.box.display import NullDisplay
    from referee.box.state import MatchStore

    signals, display = RecordingSignals(), NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), signals, display, clock=clock)
    box.start()
    box.attach_vision(tracker)
    box.handle(BRISCOLA4_DEAL)
    return box, signals, display

