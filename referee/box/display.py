"""The OLED (luma.oled, 128x64 SSD1306 or SH1106 on I2C) behind a two-method interface.

Wiring: VCC 3.3 V (pin 1), GND (pin 6), SDA GPIO2 (pin 3), SCL GPIO3 (pin 5); address 0x3C.

>>> from luma.core.device import dummy
>>> display = Display(dummy(width=128, height=64, mode="1"), "it")
>>> display.show(TrickScreen(number=3, winner="S", points=14))

A missing or broken display must not stop the referee: :func:`open_display` logs why and
returns a :class:`NullDisplay`.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Protocol

from referee.box.config import DisplayConfig
from referee.box.screens import Screen, TrickScreen, render

log = logging.getLogger(__name__)

__all__ = ["Display", "NullDisplay", "ScreenSink", "TrickScreen", "open_display"]


class ScreenSink(Protocol):
    last: Screen | None

    def show(self, screen: Screen) -> None: ...

    def close(self) -> None: ...


class Display:
    """Shows screens on a luma device (any: ssd1306, sh1106, or ``dummy`` in tests)."""

    def __init__(self, device: Any, language: str = "it") -> None:
        self.device, self.language = device, language
        self.last: Screen | None = None
        self.failed = False

    def show(self, screen: Screen) -> None:
        if screen == self.last:
            return  # an I2C frame costs ~25 ms on the Pi: redraw only on change
        self.last = screen
        image = render(screen, self.language).convert(self.device.mode)
        try:
            self.device.display(image)
        except OSError as exc:  # I2C error: the cable came loose; keep refereeing
            if not self.failed:
                log.warning("display write failed, going on without it: %s", exc)
            self.failed = True
            self.last = None  # not on the panel: the next show writes it again, even unchanged
        else:
            if self.failed:
                log.info("display is back")
            self.failed = False

    def close(self) -> None:
        # A fault screen (or the calibrate screen of a new box) stays lit after exit (luma blanks the panel otherwise): the table must
        # see why the box stopped until the service restarts it.
        if self.last is not None and (self.last.inverted or getattr(self.last, "stays_lit", False)):
            self.device.persist = True
        with contextlib.suppress(OSError, AttributeError):
            self.device.cleanup()


class NullDisplay:
    """No display attached: remembers the screen (for logs and tests), shows nothing."""

    def __init__(self) -> None:
        self.last: Screen | None = None

    def show(self, screen: Screen) -> None:
        self.last = screen

    def close(self) -> None:
        pass


def open_display(cfg: DisplayConfig, language: str) -> ScreenSink:
    """The configured OLED, or a :class:`NullDisplay` (logged) when it is absent or fails."""
    if cfg.driver == "none":
        log.info("display disabled in config (display.driver = 'none')")
        return NullDisplay()
    try:
        from luma.core.interface.serial import i2c
        from luma.oled import device as oled

        serial = i2c(port=cfg.i2c_port, address=cfg.i2c_address)
        device = getattr(oled, cfg.driver)(serial, width=128, height=64, rotate=cfg.rotate)
    except Exception as exc:  # luma raises DeviceNotFoundError, OSError, ImportError...
        log.warning(
            "no display (%s at I2C bus %d address 0x%02x): %s; running without it",
            cfg.driver, cfg.i2c_port, cfg.i2c_address, exc,
        )
        return NullDisplay()
    return Display(device, language)
