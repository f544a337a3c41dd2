"""LEDs and buzzer (gpiozero): what the table sees and hears, as named patterns.

Wiring (see ``hardware/README.md``): one LED per seat and a red violation LED, each through a
330 ohm resistor to GND; an active 3.3 V buzzer (through an NPN transistor). Pins come from
the config; every device takes the injected ``pin_factory`` so tests use ``MockFactory``.

>>> from gpiozero.pins.mock import MockFactory
>>> signals = Signals(PinsConfig(), ("N", "W", "S", "E"), pin_factory=MockFactory())
>>> signals.turn("W")          # W's LED steady on, the others off
>>> signals.violation()        # red LED blinks slowly, the buzzer beeps three times

Patterns (:data:`PATTERNS`) are chosen to be told apart without looking at the display:
a steady seat LED is the turn, a seat LED blinking three times took the trick, a seat LED
flickering fast holds an unsure card, the red LED with three beeps is a violation (the red LED
going dark with one short chirp: a violation called earlier is withdrawn), the red LED
with a slow endless heartbeat and one long beep is a fault.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from referee.box.config import PinsConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Blink:
    on_s: float
    off_s: float
    n: int | None  # None: until something else is shown


PATTERNS: dict[str, Blink] = {
    "winner": Blink(0.25, 0.25, 3),  # the trick winner's seat LED
    "team_won": Blink(0.5, 0.5, 5),  # all LEDs of the deal/match winner
    "unsure": Blink(0.1, 0.1, None),  # the seat LED of a card the camera is unsure of
    "unsure_beep": Blink(0.05, 0.1, 2),
    "violation_led": Blink(0.6, 0.3, 4),
    "violation_beep": Blink(0.15, 0.1, 3),
    "withdrawn_beep": Blink(0.05, 0.0, 1),  # one short chirp: a called violation is void
    "fault_led": Blink(1.0, 1.0, None),  # heartbeat until the fault clears
    "fault_beep": Blink(1.0, 0.0, 1),
    "warning_beep": Blink(0.1, 0.0, 1),  # move timer: a few seconds left
    "time_up_beep": Blink(0.6, 0.0, 1),
}


def make_pin_factory(name: str) -> Any:
    """A gpiozero pin factory by config name (``auto``: gpiozero's own choice)."""
    if name == "auto":
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    module, cls = {
        "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
        "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
        "native": ("gpiozero.pins.native", "NativeFactory"),
    }[name]
    import importlib

    return getattr(importlib.import_module(module), cls)()


class Signals:
    """Seat LEDs, violation LED and buzzer, driven by intent (``turn``, ``violation``...).

    gpiozero devices are not safe to drive from several threads at once, so every device call
    happens under one lock. Endless patterns (an unsure card, a fault) are gpiozero background
    blinks; a finite one runs on a thread of ours that sets each on and off in turn, so a seat
    pattern shows the turn again right after its own last blink, however late the thread runs
    (a timer at a fixed delay raced the blink under load and cut it short). A newer pattern on
    a device, or on the seat LEDs, stops an older one at its next step.
    """

    def __init__(
        self,
        pins: PinsConfig,
        seats: Iterable[str],
        pin_factory: Any = None,
        time_scale: float = 1.0,
    ) -> None:
        from gpiozero import LED, Buzzer

        self.scale = time_scale  # tests run the patterns faster
        self.seat_leds = {s: LED(pins.seat_leds[s], pin_factory=pin_factory) for s in seats}
        self.red = LED(pins.violation_led, pin_factory=pin_factory)
        self.buzzer = Buzzer(pins.buzzer, pin_factory=pin_factory)
        self._turn: str | None = None
        self._generation = 0  # bumps on every seat-LED command; a stale restore does nothing
        self._pattern_until = 0  # generation of the running seat pattern (0: none)
        self._fault = False  # the red LED beats for a fault: nothing else may turn it off
        self._lock = threading.RLock()
        self._owner: dict[Any, object] = {}  # device -> the token of its running pattern
        self._stop = threading.Event()  # set by close(): pattern threads end at once
        self._threads: list[threading.Thread] = []

    # -- patterns -------------------------------------------------------------------------
    def _blink(self, device: Any, name: str) -> None:
        """Start pattern ``name`` on one device (call under the lock)."""
        p = PATTERNS[name]
        token = self._owner[device] = object()  # an older pattern on this device stops
        if p.n is None:  # endless: gpiozero blinks until the device is told something else
            device.blink(p.on_s * self.scale, p.off_s * self.scale, n=None, background=True)
            return
        self._start(self._run_device, device, token, p)

    def _start(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _steps(self, p: Blink, still_mine: Any, devices: list[Any]) -> bool:
        """Set ``devices`` on and off ``p.n`` times while ``still_mine()``; True if it ran out."""
        assert p.n is not None
        for _ in range(p.n):
            for value, seconds in ((True, p.on_s), (False, p.off_s)):
                with self._lock:
                    if not still_mine():
                        return False
                    for device in devices:
                        device.value = value
                if seconds and self._stop.wait(seconds * self.scale):
                    return False
        return True

    def _run_device(self, device: Any, token: object, p: Blink) -> None:
        self._steps(p, lambda: self._owner.get(device) is token and not self._stop.is_set(), [device])

    def _seat_pattern(self, seats: Iterable[str], name: str) -> None:
        """Blink these seats' LEDs (all others off), then show the turn again."""
        p = PATTERNS[name]
        with self._lock:
            self._generation += 1
            generation = self._pattern_until = self._generation
            chosen = set(seats)
            leds = [led for seat, led in self.seat_leds.items() if seat in chosen]
            for seat, led in self.seat_leds.items():
                self._owner.pop(led, None)
                if seat not in chosen:
                    led.off()
            self._start(self._run_seats, generation, leds, p)

    def _run_seats(self, generation: int, leds: list[Any], p: Blink) -> None:
        self._steps(p, lambda: generation == self._generation and not self._stop.is_set(), leds)
        self._restore(generation)

    def _restore(self, generation: int) -> None:
        with self._lock:
            if generation == self._pattern_until:
                self._pattern_until = 0
            if generation == self._generation:
                self._show_turn()

    def _show_turn(self) -> None:
        for seat, led in self.seat_leds.items():
            if seat == self._turn:
                led.on()
            else:
                led.off()

    # -- intents --------------------------------------------------------------------------
    def turn(self, seat: str | None) -> None:
        """Steady LED at the seat to play; ``None`` (deal over) turns them all off.

        While the winner blinks, the new turn waits for the blink to end (the winner leads next).
        """
        with self._lock:
            self._turn = seat
            if not self._pattern_until:
                self._show_turn()

    def trick_winner(self, seat: str) -> None:
        """The winner's LED blinks three times, then the turn LED shows again."""
        self._seat_pattern([seat], "winner")

    def team_won(self, seats: Iterable[str]) -> None:
        self._seat_pattern([s for s in seats if s in self.seat_leds], "team_won")

    def unsure(self, seat: str) -> None:
        """A card the camera is unsure of: its seat LED flickers until confirmed; two chirps."""
        with self._lock:
            self._generation += 1
            self._pattern_until = 0
            self._blink(self.seat_leds[seat], "unsure")
            self._blink(self.buzzer, "unsure_beep")

    def confirmed(self) -> None:
        with self._lock:
            self._generation += 1
            self._show_turn()

    def violation(self) -> None:
        with self._lock:
            self._blink(self.red, "violation_led")
            self._blink(self.buzzer, "violation_beep")

    def withdrawn(self) -> None:
        """A violation called earlier no longer stands: the red LED stops if it still blinks
        for it, one short chirp; the turn LED stays (nothing to alarm anyone)."""
        with self._lock:
            if not self._fault:
                self._owner.pop(self.red, None)
                self.red.off()
            self._blink(self.buzzer, "withdrawn_beep")

    def fault(self) -> None:
        """Red heartbeat until :meth:`fault_cleared`; one long beep; seat LEDs off."""
        with self._lock:
            self._fault = True
            self._generation += 1
            self._pattern_until = 0
            for led in self.seat_leds.values():
                led.off()
            self._blink(self.red, "fault_led")
            self._blink(self.buzzer, "fault_beep")

    def fault_cleared(self) -> None:
        with self._lock:
            self._fault = False
            self.red.off()
            self._generation += 1
            self._show_turn()

    def warning_beep(self) -> None:
        with self._lock:
            self._blink(self.buzzer, "warning_beep")

    def time_up(self) -> None:
        with self._lock:
            self._blink(self.buzzer, "time_up_beep")

    # -- lifecycle ------------------------------------------------------------------------
    def wait_idle(self, timeout: float = 10.0) -> None:
        """Wait until every finite pattern has ended and the turn shows again (tests; shutdown)."""
        for thread in list(self._threads):
            thread.join(timeout)
        self._threads = [t for t in self._threads if t.is_alive()]

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            self._generation += 1
            for device in (*self.seat_leds.values(), self.red, self.buzzer):
                device.close()


class NullSignals:
    """No LEDs or buzzer: every intent is accepted and does nothing (the log says why)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def open_signals(pins: PinsConfig, seats: Iterable[str]) -> Signals | NullSignals:
    """The configured LEDs and buzzer, or :class:`NullSignals` (logged) when GPIO is missing."""
    try:
        return Signals(pins, tuple(seats), pin_factory=make_pin_factory(pins.factory))
    except Exception as exc:  # BadPinFactory, PinInvalidPin, no /dev/gpiochip, no permission
        log.warning("no LEDs/buzzer (%s pin factory): %s; running without them", pins.factory, exc)
        return NullSignals()
