"""A new box (a camera configured, no table layout calibrated yet) says what to do, not a fault."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from referee.box.screens import CalibrateScreen, FaultScreen, render
from referee.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG = REPO_ROOT / "hardware" / "config.toml"


def _last_screen(screens: Path) -> Image.Image:
    return Image.open(sorted(screens.glob("*.png"))[-1]).convert("L")


def _same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a, b.convert("L")).getbbox() is None


@pytest.mark.parametrize("lang", ["it", "en"])
def test_a_box_without_a_layout_asks_for_calibration(tmp_path: Path, lang: str) -> None:
    screens = tmp_path / "screens"
    args = ["run", "--config", str(CONFIG), "--no-hardware", "--state-dir", str(tmp_path / "state"),
            "--screens", str(screens), "--language", lang]
    assert main(args) == 1  # the shipped config: picamera2, no layout = FILE
    shown = _last_screen(screens)
    assert _same(shown, render(CalibrateScreen(), lang))
    assert not _same(shown, render(FaultScreen("fault_start"), lang))


def test_the_calibrate_screen_names_the_command() -> None:
    from referee.box.i18n import tr

    assert tr("it", "calibrate") == "Calibra il tavolo"
    assert "referee calibrate" in tr("it", "calibrate_how") and "referee calibrate" in tr("en", "calibrate_how")
