"""Every screen, both languages, pixel for pixel against the golden PNGs in tests/data/box/.

The goldens were looked at (128x64, arm's length). To regenerate after an intended change:
``REFEREE_UPDATE_GOLDENS=1 .venv/bin/pytest tests/box/test_screens.py`` and look again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops

from box.screen_examples import EXAMPLES
from referee.box.config import DisplayConfig
from referee.box.display import Display, NullDisplay, open_display
from referee.box.screens import TrickScreen, render

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "box"


@pytest.mark.parametrize("lang", ["it", "en"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_screen_matches_golden(name: str, lang: str, tmp_path: Path) -> None:
    device = dummy(width=128, height=64, mode="1")
    Display(device, lang).show(EXAMPLES[name])
    image = device.image
    golden = GOLDEN / f"{name}.{lang}.png"
    if os.environ.get("REFEREE_UPDATE_GOLDENS"):
        image.save(golden, optimize=True)
    expected = Image.open(golden).convert("1")
    diff = ImageChops.difference(image.convert("L"), expected.convert("L"))
    if diff.getbbox() is not None:
        image.save(tmp_path / golden.name)
        pytest.fail(f"{golden.name} differs from the rendering (saved to {tmp_path / golden.name})")


def test_every_screen_lights_pixels_and_fits() -> None:
    for name, screen in EXAMPLES.items():
        image = render(screen, "it")
        assert image.size == (128, 64) and image.mode == "1"
        lit = image.convert("L").histogram()[255]
        assert 300 < lit < 128 * 64 - 300, name  # neither blank nor a white slab


def test_languages_differ() -> None:
    screen = EXAMPLES["trick"]
    assert ImageChops.difference(render(screen, "it"), render(screen, "en")).getbbox() is not None


def test_display_skips_unchanged_screens_and_survives_i2c_errors() -> None:
    class Flaky:
        mode = "1"
        shown = 0

        def display(self, image: Image.Image) -> None:
            self.shown += 1
            raise OSError(121, "Remote I/O error")

    device = Flaky()
    display = Display(device, "it")
    display.show(TrickScreen(1, "N", 10))
    display.show(TrickScreen(1, "N", 10))
    assert device.shown == 1 and display.failed


def test_absent_display_is_a_null_display(caplog: pytest.LogCaptureFixture) -> None:
    sink = open_display(DisplayConfig(i2c_port=19), "it")  # no /dev/i2c-19 here
    assert isinstance(sink, NullDisplay)
    sink.show(TrickScreen(1, "N", 10))
    assert sink.last == TrickScreen(1, "N", 10)
    assert "running without it" in caplog.text
    assert isinstance(open_display(DisplayConfig(driver="none"), "it"), NullDisplay)
