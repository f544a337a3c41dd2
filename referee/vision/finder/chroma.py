"""Cards of another tint than their table: yellowed card stock on neutral grey stone.

A grey-white card on speckled grey stone is about as light as the stone, so neither whiteness
(``blobs.py``, ``darker.py``) nor its edges (``edges.py``, ``lines.py``) part it from the table
once the photo is shrunk to the box camera's 80-100 px and JPEG-compressed: some of its sides
are no edge at all.  Its paper is still a little yellow and the stone neutral, so after white
balance the card is a region of more saturation than the table all round (real Napoletane
photos at 80-100 px: the card's blank margin 45-80, the stone next to it 10-30, on
``segmentation.whiteness``' max-minus-min scale times 4).  The compressed photo's colour is
coarse (JPEG keeps it in 16-px blocks), so the region is the card's place and rough shape, and
its rectangle is only a proposal: the recogniser keeps it where it reads a card surely.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import Image
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import corner_gap, mean_sides
from referee.vision.finder.segmentation import white_balanced_saturation

#: The saturation is smoothed over this many px (sd) first: a JPEG's colour blocks and the
#: stone's grain.
BLUR_SD = 1.5
#: Each region is also opened by discs of these fractions of its rectangle's short side: the
#: colour blocks a JPEG bleeds into the table next to the card are cut off, the card is not.
OPENINGS = (0.0, 0.4, 0.6)
#: A region fills at least this much of its rectangle (a card does; a stain or a gradient
#: of the table's tint does not).
MIN_FILL = 0.75


def chroma_card_hypotheses(image: Image, scale: float, found: list[Hypothesis], cfg: FinderConfig,
                           first_group: int) -> list[Hypothesis]:
    """Card-shaped regions more saturated than the rest of ``image`` (Otsu's split), as
    rectangles in work px (``scale`` times image px), alternatives for one card per region,
    not already proposed."""
    height, width = image.shape[:2]
    at = min(1.0, cfg.line_max_side / max(height, width))
    small = image if at >= 1.0 else cv2.resize(image, None, fx=at, fy=at, interpolation=cv2.INTER_AREA)
    sat = np.asarray(cv2.GaussianBlur(white_balanced_saturation(np.asarray(small, np.uint8)), (0, 0), BLUR_SD), np.uint8)
    h, w = sat.shape
    # a card 80 px tall in a 1280x720 frame is ~45 px wide (as lines.py)
    min_short = max(20.0, 0.04 * min(h, w))
    contours: list[npt.NDArray[np.int32]] = []
    for thr in _thresholds(sat):
        regions, _ = cv2.findContours(np.asarray(sat > thr, np.uint8) * np.uint8(255), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contours += [np.asarray(c, np.int32) for c in regions]
    taken = [hyp.quad for hyp in found]
    out: list[Hypothesis] = []
    lo, hi = cfg.aspect_range
    for contour in contours:
        if cv2.contourArea(contour) < lo * min_short * min_short or cv2.contourArea(contour) > cfg.max_card_frac * h * w:
            continue
        region = np.zeros((h, w), np.uint8)
        cv2.drawContours(region, [contour], -1, 255, -1)
        (_, (rw, rh), _) = cv2.minAreaRect(contour)
        group = first_group + len(out)
        quads: list[np.ndarray] = []
        for frac in OPENINGS:
            part = region
            if frac:
                k = max(3, round(frac * min(rw, rh))) | 1
                part = np.asarray(cv2.morphologyEx(region, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))), np.uint8)
            pieces, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            if not pieces:
                continue
            piece = max(pieces, key=cv2.contourArea)
            rect = cv2.minAreaRect(piece)
            short, long_ = sorted(rect[1])
            if short < min_short or not lo <= long_ / short <= hi or cv2.contourArea(piece) < MIN_FILL * short * long_:
                continue
            quad = (cv2.boxPoints(rect) * np.float32(scale / at)).astype(np.float32)
            s_work, _ = mean_sides(quad)
            if any(corner_gap(quad, q) < 0.1 * s_work for q in quads):
                continue  # the same rectangle from another opening
            if any(corner_gap(quad, q) < 0.15 * s_work for q in taken):
                continue  # the same quad is already proposed
            quads.append(quad)
            taken.append(quad)
            out.append(Hypothesis(quad, 1.2, group, "chroma"))
    return out


def _thresholds(sat: Image) -> list[float]:
    """Otsu's split of the saturation, and Otsu's among the pixels below it: where a card's
    pips are large (a close photo) the first split is pips against paper and stone, the
    second paper against stone."""
    first, _ = cv2.threshold(sat, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    lower = sat[sat <= first]
    if lower.size < 100:
        return [float(first)]
    second, _ = cv2.threshold(lower.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return [float(first), float(second)] if float(second) < float(first) - 2 else [float(first)]
