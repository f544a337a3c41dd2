"""A black ace read by its central pip's outline: a club has notches a spade has not.

The French model reads the ace of clubs of some prints as the ace of spades, surely: Knoll's large
club pip (a held-out print) and the real pinochle deck's. At the model's 64x96 input a single black
pip is what tells the two aces apart, and the network has learnt it as "a large black pip" more
than as its shape. The outline tells it plainly:

* a club's three round lobes and its stem leave four deep notches in the pip's outline (between
  the lobes, and where the lower lobes meet the stem);
* a spade's outline is convex but for the two notches where its lobes meet the stem.

So a read of ``AS`` whose central pip has as many notches as :attr:`AcePips.club_notches` allows
(each deeper than :data:`NOTCH_DEPTH` of the pip's size; more than five is an ornate spade's
outline, such as Kennard's), and whose solidity (area over convex hull area) lies in
:attr:`AcePips.club_solidity`, is read ``AC``: the two cards' probabilities swap. A read
of ``AC`` is never turned the other way (a small club pip loses its notches when blurred, so a
notch count under four says nothing), and no other card is touched.

The pip is the largest dark component (Otsu's threshold) in the middle of the crop (the middle
half of its height, the middle three fifths of its width), where every print puts an ace's pip.
The model's JSON carries the rule (``"ace_pips": {"club_notches": [4, 5], "club_solidity":
[0.65, 0.82]}``); no rule without the block. Measured: docs/lab/2026-12-02-ace-pips.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import ModelError

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]

#: the keys of a model JSON's ``"ace_pips"`` block
KEYS = ("club_notches", "club_solidity")
#: a notch counts when it is deeper than this share of the pip's size (the square root of its hull's area)
NOTCH_DEPTH = 0.08
#: a pip smaller than this many pixels of hull area is too blurred to have a shape
MIN_PIP_AREA = 20.0
SPADES, CLUBS = "AS", "AC"


@dataclass(frozen=True)
class PipShape:
    """The central pip's outline: solidity (area over hull area) and notches deeper than NOTCH_DEPTH."""

    solidity: float
    notches: int


def central_pip(crop: U8) -> PipShape | None:
    """The shape of the largest dark blob in the middle of a BGR card crop (None: no blob, or
    one too small to have a shape)."""
    grey = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), np.uint8)
    h, w = grey.shape
    middle = np.ascontiguousarray(grey[h // 4: 3 * h // 4, w // 5: 4 * w // 5])
    _, dark = cv2.threshold(middle, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(dark)
    if n < 2:
        return None
    blob = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    contours, _ = cv2.findContours((labels == blob).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    hull_area = float(cv2.contourArea(cv2.convexHull(outline)))
    if hull_area < MIN_PIP_AREA:
        return None
    solidity = float(cv2.contourArea(outline)) / hull_area
    notches = 0
    try:
        defects = cv2.convexityDefects(outline, cv2.convexHull(outline, returnPoints=False))
    except cv2.error:  # a self-touching outline: no notches to count
        defects = None
    if defects is not None:
        depth = defects.reshape(-1, 4)[:, 3] / 256.0  # OpenCV gives depths in 1/256 px
        notches = int(np.count_nonzero(depth > NOTCH_DEPTH * np.sqrt(hull_area)))
    return PipShape(solidity, notches)


@dataclass(frozen=True)
class AcePips:
    """The rule of the module docstring."""

    club_notches: tuple[int, int]
    club_solidity: tuple[float, float]

    @staticmethod
    def from_info(extra: dict[str, Any], json_path: Path) -> AcePips | None:
        """The JSON's ``"ace_pips"`` block (None when it has none); a bad key or value is a
        ModelError naming the file and key."""
        block = extra.get("ace_pips")
        if block is None:
            return None
        if not isinstance(block, dict):
            raise ModelError(f"{json_path}: ace_pips: expected an object with keys {', '.join(KEYS)}, got {block!r}")
        unknown = sorted(set(block) - set(KEYS))
        missing = sorted(set(KEYS) - set(block))
        if unknown or missing:
            raise ModelError(f"{json_path}: ace_pips: {'unknown' if unknown else 'missing'} key(s) "
                             f"{unknown or missing}; expected: {', '.join(KEYS)}")
        notches = block["club_notches"]
        if (not isinstance(notches, list) or len(notches) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in notches)
                or not 1 <= notches[0] <= notches[1] <= 12):
            raise ModelError(f"{json_path}: ace_pips.club_notches: expected [fewest, most], whole numbers from 1 "
                             f"to 12 (the notches of a club's outline), got {notches!r}")
        span = block["club_solidity"]
        if (not isinstance(span, list) or len(span) != 2
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in span)
                or not 0.0 < span[0] < span[1] <= 1.0):
            raise ModelError(f"{json_path}: ace_pips.club_solidity: expected [low, high] with 0 < low < high <= 1 "
                             f"(a club pip's area over its convex hull's), got {span!r}")
        return AcePips((notches[0], notches[1]), (float(span[0]), float(span[1])))

    def is_club(self, shape: PipShape | None) -> bool:
        fewest, most = self.club_notches
        low, high = self.club_solidity
        return shape is not None and fewest <= shape.notches <= most and low <= shape.solidity <= high

    def apply(self, probs: F32, crops: Sequence[U8], labels: Sequence[str]) -> F32:
        """``probs`` with each ``AS`` read whose crop's pip is a club's read ``AC`` (the two
        probabilities swapped); ``crops`` are the reads' crops at the model's input size."""
        if SPADES not in labels or CLUBS not in labels or not len(probs):
            return probs
        spades, clubs = labels.index(SPADES), labels.index(CLUBS)
        flip = [i for i in np.flatnonzero(probs.argmax(axis=1) == spades).tolist() if self.is_club(central_pip(crops[i]))]
        if not flip:
            return probs
        out = probs.copy()
        out[flip, spades], out[flip, clubs] = probs[flip, clubs], probs[flip, spades]
        return out
