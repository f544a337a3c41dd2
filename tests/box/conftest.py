"""Fixtures for the box tests (helpers live in helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from box.helpers import FakeClock
from referee.box.config import BoxConfig, parse_config


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cfg(tmp_path: Path) -> BoxConfig:
    return replace(parse_config(""), state_dir=tmp_path / "state")


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins for a box's LEDs, buzzer and buttons."""
    f = MockFactory()
    yield f
    f.reset()
