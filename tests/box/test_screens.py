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
    assert device.shown == 2 and display.failed  # never reached the panel: written again


def test_a_display_that_comes_back_gets_the_current_screen_again() -> None:
    """An I2C write failed (cable loose): the same screen shown again is written again once
    the panel answers (before, it counted as shown and the panel stayed stale)."""

    class Loose:
        mode = "1"

        def __init__(self) -> None:
            self.fail, self.written = True, 0

        def display(self, image: Image.Image) -> None:
            if self.fail:
                raise OSError(121, "Remote I/O error")
            self.written += 1

    device = Loose()
    display = Display(device, "it")
    display.show(TrickScreen(1, "N", 10))
    assert display.failed and device.written == 0
    device.fail = False
    display.show(TrickScreen(1, "N", 10))
    assert device.written == 1 and not display.failed
    display.show(TrickScreen(1, "N", 10))
    assert device.written == 1  # unchanged and on the panel: not redrawn


def test_absent_display_is_a_null_display(caplog: pytest.LogCaptureFixture) -> None:
    sink = open_display(DisplayConfig(i2c_port=19), "it")  # no /dev/i2c-19 here
    assert isinstance(sink, NullDisplay)
    sink.show(TrickScreen(1, "N", 10))
    assert sink.last == TrickScreen(1, "N", 10)
    assert "running without it" in caplog.text
    assert isinstance(open_display(DisplayConfig(driver="none"), "it"), NullDisplay)


def test_every_rule_the_core_calls_has_a_name_in_both_languages() -> None:
    """A rule without an entry shows its code ("wrong dealer", in English on an Italian box)."""
    from referee.box.i18n import RULES
    from referee.rules import Referee

    draw = {"event": "draw", "game": "briscola-4", "cards": {"N": "coppe_1", "W": "spade_3", "S": "denari_4", "E": "coppe_2"}}
    deal = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E", "trump_card": "bastoni_1"}
    ref = Referee()
    ref.apply(draw)
    called = {c.to_dict()["rule"] for c in ref.apply(deal) if c.to_dict()["call"] == "violation"}
    assert called == {"wrong_dealer"}  # N drew the highest card, E dealt
    core_rules = called | {"out_of_turn", "revoke", "must_trump", "must_overtrump", "duplicate_card", "bad_card",
                          "false_declaration", "false_meld", "in_mano_card_elsewhere"}
    for rule in core_rules | {"move_timer"}:  # move_timer: the box's own call
        assert set(RULES.get(rule, {})) == {"it", "en"}, rule



def test_wrapped_text_takes_two_lines_rather_than_being_cut_off() -> None:
    """Even the smallest font is too wide for one line but two lines fit: two lines (before,
    one line at the smallest size, cut off at both ends)."""
    from referee.box.canvas import Canvas

    box = (0, 0, 70, 24)  # 70 px: "Chiamata in mano falsa" is 119 px wide at 9 px
    one = Canvas()
    one.text("Chiamata in mano falsa", box, largest=9)
    assert one.image.crop((0, 0, 1, 25)).getbbox() is not None  # one line runs off the left edge
    two = Canvas()
    two.wrapped("Chiamata in mano falsa", box, largest=9)
    assert two.image.getbbox() is not None
    assert two.image.crop((0, 0, 1, 25)).getbbox() is None  # both lines inside the box
    assert two.image.crop((0, 0, 71, 11)).getbbox() is not None and two.image.crop((0, 13, 71, 25)).getbbox() is not None
