"""The live loop's card size: measured on the card edges of cards the recogniser is sure of.

Why not the sure reads' quads themselves: most quads of a trick are *built* at the expected
card size (outline and corner rectangles, the briscola extended from its visible part), so a
sure read of one only confirms the size it was built with, and a sure read of a badly cut
quad moves it.  Measured on a simulated deal (briscola-2 seed 2, Napoletane print of aspect
1.38 on the check cloth): learning from the quads let the size wander from 73x102 px to
62x92 (aspect 1.5); the trick quads then cut the card's outer pips off and coppe_5 was read
as coppe_3 surely, frame after frame.  Fitting the four sides of a sure quad to the card's
edges (``refine.card_sizes``) measures the card itself, within 3% on every print and cloth
of ``vision_e2e.py`` (the low-resolution prints' soft edges read ~3% small), so the size
follows the cards whatever their aspect (Italian and French prints run from 1.35 to 1.75).

The size is the median of the last ``window`` measurements: one odd card (a quad over two
cards whose outer edges happen to fit) does not move it.  Until a card has been measured the
caller keeps its own guess (blob shapes, size priors).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from referee.vision.detections import FloatArray, Image
from referee.vision.refine import card_sizes, white_gains


@dataclass
class CardSizeModel:
    """``model.update(image, sure_quads)`` -> (short, long) in image px, or None until measured."""

    #: measurements the median runs over (a few cards' worth: each card is measured once
    #: while it lies still)
    window: int = 24
    #: a quad within this many px (every corner) of one measured on the last call is the same
    #: card lying still: not measured again
    same_px: float = 1.0
    _sizes: deque[tuple[float, float]] = field(default_factory=deque)
    _last: FloatArray = field(default_factory=lambda: np.zeros((0, 4, 2), np.float32))

    @property
    def size(self) -> tuple[float, float] | None:
        """Median (short, long) of the recent measurements; None before the first."""
        if not self._sizes:
            return None
        a = np.array(self._sizes, np.float64)
        return float(np.median(a[:, 0])), float(np.median(a[:, 1]))

    def update(self, image: Image, quads: FloatArray) -> tuple[float, float] | None:
        """Measure the cards under ``quads`` (sure reads, image px) that were not measured on
        the last call; returns :attr:`size`."""
        q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        fresh = q
        if len(q) and len(self._last):
            gap = np.abs(q[:, None] - self._last[None]).max(axis=(2, 3)).min(axis=1)
            fresh = q[gap > self.same_px]
        self._last = q
        if len(fresh):
            gains = white_gains(image[::2, ::2])
            for short, long_ in card_sizes(image, fresh, gains).tolist():
                self._sizes.append((short, long_))
                if len(self._sizes) > self.window:
                    self._sizes.popleft()
        return self.size

    def reset(self) -> None:
        self._sizes.clear()
        self._last = np.zeros((0, 4, 2), np.float32)
