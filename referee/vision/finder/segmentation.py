"""Segmenting card stock: how white (bright and unsaturated) each pixel is, and its mask."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import Image
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.quad import Contour
from referee.vision.refine import white_gains

Mask = npt.NDArray[np.uint8]


def whiteness(small: Image, cfg: FinderConfig) -> Image:
    """How much each pixel looks like card stock: bright and unsaturated (0..255)."""
    b, g, r = cv2.split(_white_balanced(small))
    lo = cv2.min(b, cv2.min(g, r))
    hi = cv2.max(b, cv2.max(g, r))
    sat = cv2.subtract(hi, lo)
    return np.asarray(cv2.addWeighted(lo, 1.0, sat, -cfg.saturation_weight, 0), np.uint8)  # saturates at 0


def otsu_thresholds(white: Image, cfg: FinderConfig) -> list[float]:
    """Otsu's threshold, and with ``upper_threshold`` a second Otsu among the brighter pixels:
    on a light table the first split is printing vs everything, the second card vs table."""
    otsu, _ = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    first = float(np.clip(otsu, *cfg.white_threshold))
    if not cfg.upper_threshold:
        return [first]
    upper = white[white > first]
    if upper.size < 100:
        return [first]
    second, _ = cv2.threshold(upper.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return [first, float(second)] if float(second) > first + 10 else [first]


def white_balanced_saturation(small: Image) -> Image:
    """Each pixel's saturation after white balance (max minus min channel, 0..255): card
    stock's tint against a neutral table (``chroma.py``)."""
    b, g, r = cv2.split(_white_balanced(small))
    return np.asarray(cv2.subtract(cv2.max(b, cv2.max(g, r)), cv2.min(b, cv2.min(g, r))), np.uint8)


def binarize(white: Image, thr: float) -> Mask:
    _, mask = cv2.threshold(white, thr, 255, cv2.THRESH_BINARY)
    # A card's thin white margin outside its printed frame line must stay one closed ring.
    return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), np.uint8)


def whiteness_mask(small: Image, cfg: FinderConfig) -> Mask:
    """255 where the pixel looks like card stock (Otsu on :func:`whiteness`); holes not filled."""
    white = whiteness(small, cfg)
    return binarize(white, otsu_thresholds(white, cfg)[0])


def _white_balanced(small: Image) -> Image:
    """Scale the channels so the brightest pixels are neutral: under warm light card stock is
    cream, and its "saturation" would otherwise count against it."""
    gains = white_gains(small)
    if float(gains.max()) == 1.0:  # already neutral: skip the multiply
        return small
    return np.asarray(cv2.transform(small, np.diag(gains).astype(np.float32)), np.uint8)


def fill_holes(mask: Mask) -> Mask:
    """Figures and pips are holes in a card's white: fill every hole of every blob."""
    return filled_with_outlines(mask)[0]


def filled_with_outlines(mask: Mask) -> tuple[Mask, Sequence[Contour]]:
    """:func:`fill_holes`, and the outer outlines of its blobs: the filled mask's own
    (``cv2.findContours(filled, RETR_EXTERNAL, CHAIN_APPROX_SIMPLE)`` gives the same
    outlines in the same order), for the steps that would trace them again."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled, contours
