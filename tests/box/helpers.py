"""Helpers for the box tests: a config, a fake clock, recording signals, event logs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.box.config import BoxConfig, TimerConfig


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


def timer_cfg(cfg: BoxConfig) -> BoxConfig:
    return replace(cfg, timer=TimerConfig(enabled=True, seconds=20, warning_s=5))


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path
