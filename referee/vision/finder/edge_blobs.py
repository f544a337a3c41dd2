"""Cards on a light table in the live loop: regions closed by faint edges, split as blobs.

On a light table (grey cloth, squared paper, lace, light wood) the whiteness mask is the whole
table, so no blob is a card; a card's outline is still an edge, though a faint one that a
threshold for strong edges (``edges.py``) breaks open.  Here a low Canny threshold closes it,
the regions it closes that are card-sized and clear of the frame border become a mask (the
table is the region that runs to the border), regions a few px apart (a card and the next card
of a trick laid over it, parted only by their shared edge) are joined, and the mask is read as
the whiteness mask is: a single card's outline, a card's visible part, or overlapping cards
split from their corners at the known card size (``blobs.py``).  It needs the card size (a
region of any size could be a card) and costs one Canny and one labelling at the work width.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.detections import Image
from referee.vision.finder.blobs import blob_hypotheses
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.hypothesis import Hypothesis, new_only
from referee.vision.finder.quad import Contour
from referee.vision.finder.segmentation import fill_holes

#: Regions smaller than this many cards are a pip's ring or a cloth's mesh hole, not a card's
#: visible part (a card covered by up to ~40% shows 0.6 of itself, parted into pieces by its
#: printed frame line at worst).
MIN_CARDS = 0.15


def edge_blob_hypotheses(
    small: Image, found: list[Hypothesis], short: float, long_: float, cfg: FinderConfig,
    focus: Contour | None, first_group: int,
) -> list[Hypothesis]:
    """Card quads (work px) from the regions faint edges close in ``small`` (the work image),
    at the card size ``short`` x ``long_`` (work px), not already proposed in ``found``."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    lo, hi = cfg.edge_blob_canny
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), lo, hi)
    regions = cv2.bitwise_not(cv2.dilate(edges, np.ones((3, 3), np.uint8)))
    # every region's outer outline (a region inside another's hole is one of them too):
    # contours cost a tenth of labelling the pixels
    contours, hierarchy = cv2.findContours(regions, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    card = short * long_
    height, width = regions.shape
    kept = []
    for contour, (_, _, _, parent) in zip(contours, hierarchy[0], strict=True):
        if parent >= 0 or len(contour) < 4:
            continue  # a hole's outline
        x, y, w, h = cv2.boundingRect(contour)
        if x <= 0 or y <= 0 or x + w >= width or y + h >= height or w * h < MIN_CARDS * card:
            continue  # the table runs to the frame border; a card cut off is not read
        # (a polygon through the outline's pixel centres misses half a pixel all round it)
        area = cv2.contourArea(contour) + cv2.arcLength(contour, True) / 2
        if MIN_CARDS * card <= area <= cfg.max_blob_cards * card:
            kept.append(contour)
    if not kept:
        return []
    mask = np.zeros_like(regions)
    cv2.drawContours(mask, kept, -1, 255, cv2.FILLED)  # holes (pips, figures) filled
    # join regions parted by one edge (a card and the card over it), and give back the px the
    # edges' dilation took from each region
    mask = cv2.erode(cv2.dilate(mask, np.ones((7, 7), np.uint8)), np.ones((5, 5), np.uint8))
    more = blob_hypotheses(fill_holes(np.asarray(mask, np.uint8)), short, long_, cfg, True, focus)
    # a single card's blob here is its own outline closed by edges, as ``edges.py``'s regions
    more = [Hypothesis(h.quad, h.score, h.group, "edge" if h.kind == "single" else h.kind) for h in more]
    return new_only(more, found, short, first_group)
