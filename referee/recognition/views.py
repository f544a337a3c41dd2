"""Test-time views: each crop read several ways in one classify call, the reads averaged into one.

A card is printed point-symmetric and the finder's portrait crop may put either end up, and its
cut may sit a few pixels inside or outside the card's edge; reading the crop turned 180° and cut a
little tighter and looser, and averaging the reads' probabilities, gives one read that does not hang on which
way up the card lies or on exactly where it was cut. The views work on the crop already resized to
the model's input, so they cost model time only (``len(crops) * reads`` rows, in calls of 8).

    expand(resized, ("turn", "tight", "loose"))   # (6N, H, W, 3): each crop in six views, view-major
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]

#: the views a model's JSON may name (``"views"``), each read besides the crop as given
VIEWS = ("turn", "tight", "loose")
#: what the live loop reads (box, ``referee watch``, the simulated deals): each crop once. Six
#: reads cost about 10 ms of a 1280x720 frame's 25 ms budget, and the live loop confirms a card
#: over several frames anyway; the model's views are for a single photo (``referee detect``). An
#: enrollment's prototypes are embeddings of single reads, so a classifier with one reads once too.
LIVE_VIEWS: tuple[str, ...] = ()
#: pixels cut off (tight) or added by repeating the edge (loose) at each side of a 64x96 input,
#: about 3% of the card's width and height: the finder's cut is rarely further off than that
ZOOM_PX = (2, 3)


def check_views(value: object, where: str) -> tuple[str, ...]:
    """``value`` as a tuple of view names, else a ValueError naming ``where`` and the bad value."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: expected a list of view names ({', '.join(VIEWS)}), got {value!r}")
    unknown = [v for v in value if v not in VIEWS]
    if unknown or len(set(value)) != len(value):
        raise ValueError(f"{where}: expected distinct view names out of {', '.join(VIEWS)}, got {list(value)!r}")
    return tuple(value)


def reads(views: Sequence[str]) -> int:
    """How many reads each crop takes: itself and each view, each also turned when ``turn`` is one."""
    zooms = sum(v != "turn" for v in views)
    return (1 + zooms) * (2 if "turn" in views else 1)


def expand(resized: U8, views: Sequence[str]) -> U8:
    """(N, H, W, 3) crops at the model's input -> (reads(views) * N, H, W, 3), view-major: the
    crops as given first, then each view (every view also turned 180° when ``turn`` is named)."""
    shifted = [resized] + [np.stack([_zoom(c, v) for c in resized]) for v in views if v != "turn"]
    if "turn" in views:
        shifted += [np.ascontiguousarray(s[:, ::-1, ::-1]) for s in shifted]
    return np.concatenate(shifted) if len(shifted) > 1 else resized


def _zoom(crop: U8, view: str) -> U8:
    h, w = crop.shape[:2]
    dx, dy = ZOOM_PX
    if view == "tight":
        return np.asarray(cv2.resize(crop[dy:h - dy, dx:w - dx], (w, h), interpolation=cv2.INTER_LINEAR), np.uint8)
    wide = cv2.copyMakeBorder(crop, dy, dy, dx, dx, cv2.BORDER_REPLICATE)
    return np.asarray(cv2.resize(wide, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
