"""The service watchdog is pinged while the deck is enrolled: the box's loop, which pings it
between frames, waits while the deck is checked, enrolled, fitted and read back, which on a Pi
may take longer than the watchdog's 30 s. Every batch the model reads pings it (at most twice
a period, as between frames), so no gap between two pings comes near the period."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pytest
from recogniser_doubles import F32, StandInRecogniser

from box.helpers import FakeClock
from referee.box.enrol_deck import DeckEnrolment
from referee.box.notify import Notifier
from referee.recognition.classifier import CardClassifier
from referee.vision.enroll_grid import plan_grid, table_order
from referee.vision.simulator.deck_grid import LaidOutDeck

ITALIAN = table_order("italian", "italian-40")
WATCHDOG_S = 30.0
#: what one batch of 32 crops costs the stand-in model: a slow Pi's order of magnitude
BATCH_S = 3.0



class SlowModel(StandInRecogniser):
    """The recogniser as the enrolment uses it, every batch read taking :data:`BATCH_S` on the
    fake clock; it reads no card surely (a deck it does not know) and embeds a crop by a fixed
    projection of its pixels."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__((*ITALIAN, "back"), 24)
        self.clock = clock
        self.projection = np.random.default_rng(0).normal(size=(16 * 8 * 3, 24)).astype(np.float32)
        self.batches = 0

    def embeddings(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        import cv2

        self.clock.now += BATCH_S
        self.batches += 1
        small = np.stack([cv2.resize(c, (8, 16), interpolation=cv2.INTER_AREA) for c in crops]).astype(np.float32)
        emb = (small.reshape(len(crops), -1) / 255.0 - 0.5) @ self.projection
        return emb.astype(np.float32)


class Watchdog(Notifier):
    """systemd's side: when each WATCHDOG=1 arrived (on the fake clock)."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(None, watchdog_s=WATCHDOG_S)
        self.clock = clock
        self.pings: list[float] = []

    def send(self, message: str) -> bool:
        if message == "WATCHDOG=1":
            self.pings.append(self.clock.now)
        return True


@pytest.fixture(scope="module")
def laid_out() -> list[Any]:
    table = LaidOutDeck(ITALIAN, plan_grid(40, "italian"), seed=4)
    table.lay_out(0)
    return [f.image for f in table.frames(2)]


def test_a_long_fit_pings_the_watchdog_within_every_period(laid_out: list[Any], tmp_path: Path) -> None:
    clock = FakeClock()
    model, watchdog = SlowModel(clock), Watchdog(clock)
    out = tmp_path / "enrollment-italian.npz"
    session = DeckEnrolment(cast(CardClassifier, model), ITALIAN, plan_grid(40, "italian"), out, clock=clock,
                            keepalive=lambda: watchdog.frames_flowing(clock.now))
    session.capture(0, laid_out)
    watchdog.pings.clear()
    start = clock.now
    report = session.finish()
    took = clock.now - start
    assert out.exists() and report.enrolled == 40
    assert took > 2 * WATCHDOG_S  # longer than the watchdog waits: one ping before and after would not do
    times = [start, *watchdog.pings, clock.now]
    gaps = np.diff(times)
    assert len(watchdog.pings) >= took / WATCHDOG_S * 2 - 1  # twice a period, as between frames
    assert float(gaps.max()) <= WATCHDOG_S / 2 + BATCH_S  # never near the period


def test_without_a_keepalive_the_same_fit_would_starve_the_watchdog(laid_out: list[Any], tmp_path: Path) -> None:
    # the same work with the pings only around it (as before the fit pinged): the gap is the
    # whole fit, past the watchdog's period, and systemd would restart the box mid-enrolment
    clock = FakeClock()
    model, watchdog = SlowModel(clock), Watchdog(clock)
    session = DeckEnrolment(cast(CardClassifier, model), ITALIAN, plan_grid(40, "italian"),
                            tmp_path / "e.npz", clock=clock)
    session.capture(0, laid_out)
    watchdog.frames_flowing(clock.now)
    session.finish()
    watchdog.frames_flowing(clock.now)
    assert float(np.diff(watchdog.pings).max()) > WATCHDOG_S
