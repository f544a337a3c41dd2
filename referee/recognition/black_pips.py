"""A black card's suit told by a vote of its pips: a club's outline has notches a spade's has not.

The French model reads clubs of some prints as spades, surely: the held-out Knoll print
(``10C->10S``, ``8C->10S``) and, through ``referee detect``, the real pinochle deck's nines and
tens, mostly in boxes over part of a card (docs/lab/2026-12-04-black-pips-vote.md). At the model's
64x96 input a ten's pips are a few pixels across and the network has learnt "black pips" more than
their shape; at the photo's own resolution the outline tells them plainly:

* a club's three round lobes and its stem leave four notches in its outline (between the lobes,
  and where the lower lobes meet the stem), and it fills 0.60-0.82 of its convex hull;
* a spade's outline is convex but for the two notches where its lobes meet the stem (an ornate
  spade, Kennard's, has six or seven).

One pip is not enough: something dark laid on a card merges with the pip under it into one blob
(the 2 Dec ``ace_pips`` rule, which turned a real ace of spades so, was not adopted). So a read of
a spade of rank 2-10 is turned into the club of its rank only when at least
:attr:`PipVote.min_pips` whole pips of one size lie in its box and at least
:attr:`PipVote.club_share` of them have a club's outline. A club is never turned into a spade: a
small or blurred club loses its notches, and nothing gives a spade a club's.

The model's JSON carries the rule (``"black_pips": {...}``, :data:`KEYS`); no rule without the
block; with ``"live": true`` the live loop's frames are voted on too, not only still photos.
Pure numpy and OpenCV on one crop; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import ModelError

U8 = npt.NDArray[np.uint8]

#: the keys of a model JSON's ``"black_pips"`` block
KEYS = ("club_notches", "club_solidity", "min_pips", "club_share", "min_pip_px")
#: keys the block may leave out: ``live`` (a boolean, false when absent) also runs the vote on the
#: live loop's frames, not only on a still photo's (docs/lab/2026-12-05-live-pip-vote.md)
OPTIONAL_KEYS = ("live",)
#: a notch counts when it is deeper than this share of the pip's size (the square root of its hull's area)
NOTCH_DEPTH = 0.08
#: ink is darker than Otsu's threshold and less saturated than this (0-255): a black pip, not a
#: red one, nor a court's coloured robe
MAX_INK_SATURATION = 100
#: a pip is within this factor of the median pip's size (smaller: an index's suit sign; larger:
#: pips run together, or a court's figure)
SIZE_FACTOR = 2.0
#: the ranks that have a pip per point (an ace's one pip is the case the vote cannot make)
PIP_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")


@dataclass(frozen=True)
class PipShape:
    """One pip's outline: its size (square root of its hull's area, px), its solidity (area over
    hull area) and its notches deeper than :data:`NOTCH_DEPTH` of its size."""

    size: float
    solidity: float
    notches: int


def pip_shapes(crop: U8, min_pip_px: float) -> list[PipShape]:
    """The shapes of the whole black pips of a BGR card crop: dark unsaturated blobs not touching
    the crop's border, at least ``min_pip_px`` across, and within :data:`SIZE_FACTOR` of their
    median size."""
    grey = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), np.uint8)
    saturation = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2HSV), np.uint8)[:, :, 1]
    _, dark = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    ink = ((dark > 0) & (saturation < MAX_INK_SATURATION)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink)
    h, w = grey.shape
    shapes: list[PipShape] = []
    for i in range(1, n):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        if x <= 0 or y <= 0 or x + bw >= w or y + bh >= h:
            continue  # cut by the box's side: not a whole pip
        if max(bw, bh) < min_pip_px:
            continue
        blob = (labels[y:y + bh, x:x + bw] == i).astype(np.uint8)
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        outline = max(contours, key=cv2.contourArea)
        hull_area = float(cv2.contourArea(cv2.convexHull(outline)))
        size = float(np.sqrt(hull_area))
        if size < min_pip_px:
            continue
        notches = 0
        try:
            defects = cv2.convexityDefects(outline, cv2.convexHull(outline, returnPoints=False))
        # OpenCV refuses some outlines ("the convex hull indices are not monotonous"), mostly
        # small noisy pips: counted with no notch. That also keeps some small blurred spades,
        # whose outlines have a club's notches at 16-18 px, from voting club; counting their
        # notches turned a real nine of spades (docs/lab/2026-12-07-pip-notches.md)
        except cv2.error:
            defects = None
        if defects is not None:
            depth = defects.reshape(-1, 4)[:, 3] / 256.0  # OpenCV gives depths in 1/256 px
            notches = int(np.count_nonzero(depth > NOTCH_DEPTH * size))
        shapes.append(PipShape(size, float(cv2.contourArea(outline)) / hull_area, notches))
    if not shapes:
        return []
    median = float(np.median([s.size for s in shapes]))
    return [s for s in shapes if median / SIZE_FACTOR <= s.size <= median * SIZE_FACTOR]


def _pair(block: Mapping[str, Any], key: str, json_path: Path, whole: bool, low: float, high: float) -> tuple[float, float]:
    value = block[key]
    kind = int if whole else (int, float)
    if (not isinstance(value, list) or len(value) != 2 or any(isinstance(v, bool) or not isinstance(v, kind) for v in value)
            or not low <= value[0] <= value[1] <= high):
        raise ModelError(f"{json_path}: black_pips.{key}: expected [low, high] with {low:g} <= low <= high <= {high:g}"
                         f"{' (whole numbers)' if whole else ''}, got {value!r}")
    return value[0], value[1]


def _number(block: Mapping[str, Any], key: str, json_path: Path, low: float, high: float) -> float:
    value = block[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ModelError(f"{json_path}: black_pips.{key}: expected a number {low:g}..{high:g}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class PipVote:
    """The rule of the module docstring, with the model JSON's thresholds."""

    club_notches: tuple[int, int] = (4, 5)
    club_solidity: tuple[float, float] = (0.60, 0.82)
    min_pips: int = 2
    club_share: float = 0.66
    min_pip_px: float = 12.0
    #: also on the live loop's frames (``FramePipeline.process``), not only on a still photo's
    live: bool = False

    @staticmethod
    def from_info(extra: Mapping[str, Any], json_path: Path) -> PipVote | None:
        """The JSON's ``"black_pips"`` block (None when it has none); a bad key or value is a
        ModelError naming the file and the key."""
        block = extra.get("black_pips")
        if block is None:
            return None
        if not isinstance(block, dict):
            raise ModelError(f"{json_path}: black_pips: expected an object with keys {', '.join(KEYS)}, got {block!r}")
        unknown, missing = sorted(set(block) - set(KEYS) - set(OPTIONAL_KEYS)), sorted(set(KEYS) - set(block))
        if unknown or missing:
            raise ModelError(f"{json_path}: black_pips: {'unknown' if unknown else 'missing'} key(s) "
                             f"{', '.join(unknown or missing)}; expected: {', '.join(KEYS)} (and optionally {', '.join(OPTIONAL_KEYS)})")
        notches = _pair(block, "club_notches", json_path, True, 1, 12)
        solidity = _pair(block, "club_solidity", json_path, False, 0.0, 1.0)
        min_pips = _number(block, "min_pips", json_path, 2, 10)
        if min_pips != int(min_pips):
            raise ModelError(f"{json_path}: black_pips.min_pips: expected a whole number 2..10, got {block['min_pips']!r}")
        live = block.get("live", False)
        if not isinstance(live, bool):
            raise ModelError(f"{json_path}: black_pips.live: expected true or false, got {live!r}")
        return PipVote((int(notches[0]), int(notches[1])), (float(solidity[0]), float(solidity[1])), int(min_pips),
                       _number(block, "club_share", json_path, 0.5, 1.0), _number(block, "min_pip_px", json_path, 4, 200),
                       live)

    def is_club(self, shape: PipShape) -> bool:
        fewest, most = self.club_notches
        low, high = self.club_solidity
        return fewest <= shape.notches <= most and low <= shape.solidity <= high

    def votes_club(self, crop: U8) -> bool:
        """Whether the crop's whole pips say club: enough of them, and enough of those clubs."""
        shapes = pip_shapes(crop, self.min_pip_px)
        if len(shapes) < self.min_pips:
            return False
        return sum(self.is_club(s) for s in shapes) >= self.club_share * len(shapes)

    @staticmethod
    def club_of(card: str) -> str | None:
        """The club of a spade's rank for a pip card (``10S`` -> ``10C``); None for any other card."""
        rank, suit = card[:-1], card[-1:]
        return f"{rank}C" if suit == "S" and rank in PIP_RANKS else None
