"""Card hypotheses per whiteness blob: a single card, a card's visible part, or overlapping
cards split by outlines and corners."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.card_size import SizeMemo
from referee.vision.detections import FloatArray, Image
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.corners import corner_hypotheses
from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import Contour, corner_gap, four_corners, rect, touches
from referee.vision.finder.segmentation import Mask
from referee.vision.finder.split_cache import SplitCache
from referee.vision.outline import outline_quads


def blob_hypotheses(
    mask: Mask, short: float, long_: float, cfg: FinderConfig, size_known: bool = True,
    focus: Contour | None = None, white: Image | None = None, fit: SizeMemo | None = None,
    cache: SplitCache | None = None,
) -> list[Hypothesis]:
    out: list[Hypothesis] = []
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    card_area = short * long_
    for contour in contours:
        area = cv2.contourArea(contour)
        # Too small for a card, or a bright cloth region (a trick is at most ~5 cards' area).
        if not (0.25 * card_area <= area <= cfg.max_blob_cards * card_area):
            continue
        if not size_known and area > cfg.max_card_frac * mask.size:
            continue
        if border_run(contour, mask.shape) > cfg.max_border_frac:
            continue  # the table itself (a light table, lace), with any card on it merged in
        single = single_card_quad(contour, area, short, long_, cfg, size_known)
        if single is not None:
            out.append(Hypothesis(single, 2.0, len(out), "single"))
            continue
        partial = partial_card_quads(contour, area, short, long_, mask.shape)
        if partial:
            group = len(out)
            out.extend(Hypothesis(q, 1.0, group, "partial") for q in partial)
            continue
        # Smaller than a card, or ragged: cloth pattern (check squares), not cards.
        if area < 0.7 * card_area or cv2.contourArea(cv2.convexHull(contour)) > 1.8 * area:
            continue
        if focus is not None and not touches(focus, contour):
            continue  # overlapping cards outside the play area are piles, not tricks
        key = (*cv2.boundingRect(contour), round(area), round(short), round(long_))
        split = cache.get(key, white) if cache is not None else None
        if split is None and cache is not None and cfg.split_when_still and not cache.was_seen(key):
            # first sight of this blob (a card arriving, a hand passing): only the cheap
            # corner rectangles; the outlines once it lies still (plays need still cards)
            split = corner_hypotheses(mask, contour, short, long_, cfg, 0)
        elif split is None:
            split = split_blob(mask, white, contour, short, long_, cfg, 0, size_known, fit)
            if cache is not None:
                cache.put(key, white, split)
        out.extend(Hypothesis(h.quad, h.score, h.group + len(out), h.kind) for h in split)
    return out


def border_run(contour: Contour, shape: tuple[int, ...]) -> float:
    """Fraction of the frame's perimeter along which the blob's outline runs on the frame border."""
    h, w = shape[0], shape[1]
    if not _touches_border(contour, shape):
        return 0.0  # clear of the frame border, as most blobs are: no run to measure
    pts = contour.reshape(-1, 2)
    seg = np.roll(pts, -1, axis=0) - pts
    on = [(pts[:, 0] <= 0) & (seg[:, 0] == 0), (pts[:, 0] >= w - 1) & (seg[:, 0] == 0),
          (pts[:, 1] <= 0) & (seg[:, 1] == 0), (pts[:, 1] >= h - 1) & (seg[:, 1] == 0)]
    run = sum(float(np.abs(seg[m]).sum()) for m in on)
    return run / (2.0 * (h + w))


def single_card_quad(
    contour: Contour,
    area: float,
    short: float,
    long_: float,
    cfg: FinderConfig,
    size_known: bool = True,
) -> FloatArray | None:
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    s, l_ = min(w, h), max(w, h)
    if s <= 0 or area < 0.86 * w * h:
        return None
    if not (cfg.aspect_range[0] <= l_ / s <= cfg.aspect_range[1]):
        return None
    if size_known and not (0.6 * short * long_ <= area <= 1.6 * short * long_):
        return None
    return four_corners(contour)


#: of a partial card's extension, the most that may lie past the frame's border when the
#: visible piece is clear of it (the expected size's error, a few % of the card)
PAST_BORDER = 0.1


def partial_card_quads(contour: Contour, area: float, short: float, long_: float,
                       shape: tuple[int, ...] | None = None) -> list[FloatArray]:
    """A rectangle one card wide and 35-85% of a card long: the same card extended both ways.

    With the frame's ``shape``, not past the frame's border where the piece is clear of it: a
    card cut by the border shows a piece that runs to the border, and a piece inside the frame
    is of a card whose hidden part is inside it too (measured: a Napoletane 7 of coppe shrunk to
    80 px, its whole outline read 0.957, lost to such a box 16 px past the photo's top read 0.972,
    and the box left a denari_4 on the card's lower half)."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
    if area < 0.72 * w * h:  # rounded corners (and the opening) weigh more on a short piece
        return []
    # Which side is the card's width: the one closest to a card's short side.  minAreaRect's
    # width runs along ``angle``, its height along ``angle + 90``.
    sides = sorted([(abs(w - short), w, h, angle), (abs(h - short), h, w, angle + 90)])
    err, across, along, ang = sides[0]
    if err > 0.2 * short or not (0.35 * long_ <= along <= 0.85 * long_):
        return []
    t = np.deg2rad(ang)
    axis = np.array([-np.sin(t), np.cos(t)], np.float32)  # direction of `along`
    normal = np.array([np.cos(t), np.sin(t)], np.float32)
    centre = np.array([cx, cy], np.float32)
    quads = []
    for sign in (1.0, -1.0):
        c = (centre + sign * axis * (long_ - along) / 2).astype(np.float32)
        quads.append(rect(c, (normal * across / 2).astype(np.float32), (axis * long_ / 2).astype(np.float32)))
    if shape is None or _touches_border(contour, shape):
        return quads
    return [q for q in quads if _past_border(q, shape) <= PAST_BORDER]


def _touches_border(contour: Contour, shape: tuple[int, ...]) -> bool:
    x, y, bw, bh = cv2.boundingRect(contour)
    return x <= 0 or y <= 0 or x + bw >= shape[1] or y + bh >= shape[0]


def _past_border(quad: FloatArray, shape: tuple[int, ...]) -> float:
    """The share of a convex quad's area outside the frame of ``shape``."""
    h, w = shape[0], shape[1]
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    total = abs(float(cv2.contourArea(quad.astype(np.float32))))
    if total <= 0:
        return 0.0
    inside, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return 1.0 - float(inside) / total


def split_blob(
    mask: Mask, white: Image | None, contour: Contour, short: float, long_: float,
    cfg: FinderConfig, first_group: int, size_known: bool, fit: SizeMemo | None,
) -> list[Hypothesis]:
    """Card hypotheses for a blob of overlapping cards (see ``FinderConfig.split``)."""
    if white is None or cfg.split == "corners":
        return corner_hypotheses(mask, contour, short, long_, cfg, first_group)
    blob = np.zeros_like(mask)
    cv2.drawContours(blob, [contour], -1, 255, cv2.FILLED)
    found = outline_quads(white, blob, short, long_, size_known=size_known, fit=fit)
    # outline scores are 0.3..0.9; rank them with the corner method's clean cards (~1..1.5)
    out = [Hypothesis(q, 0.6 + s, first_group + i, "outline") for i, (s, q) in enumerate(found)]
    if cfg.split == "outline":
        return out
    # Corner rectangles too, even where the outlines explain the blob: on a cloth of large
    # white squares the outlines also fit the squares' grid (measured: dropping them loses
    # 2% of trick cards); the classifier picks per card.
    corner = corner_hypotheses(mask, contour, short, long_, cfg, first_group + len(out))
    # only corner rectangles that are not (nearly) an outline one: a wrong outline rectangle
    # near a card must not hide the right corner one
    return out + [h for h in corner if all(corner_gap(h.quad, o.quad) > 0.15 * short for o in out)]
