"""What one simulated deal produced: the calls, what the vision stage fed the referee, the truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Event = dict[str, Any]
Call = dict[str, Any]


@dataclass
class DemoResult:
    """What a demo run produced (returned for tests and the benchmark)."""

    calls: list[Call] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # what the vision stage fed the referee
    truth_events: list[Event] = field(default_factory=list)
    truth_plays: list[tuple[str, str]] = field(default_factory=list)
    truth_calls: list[Call] = field(default_factory=list)
    vision: str = ""
    confirms: int = 0  # plays the camera was unsure of (the simulated operator answered)
    refused: int = 0  # ... of which the operator refused: the seat had laid nothing new
    delays: list[float] = field(default_factory=list)  # s from a card lying still to its play event
    frames: int = 0
    seconds: float = 0.0
    out: Path | None = None
    video: Path | None = None  # the annotated video written (None with --no-video)
