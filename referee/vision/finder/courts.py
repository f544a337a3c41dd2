"""Court cards whose white is an open frame: from a blob's hull, or a strip beside a trick."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import Contour, extended_to_card, rect, touches
from referee.vision.finder.segmentation import Mask


def thin_card_hypotheses(
    mask: Mask, short: float, long_: float, found: list[Hypothesis], first_group: int,
    outlines: Sequence[Contour] | None = None,
) -> list[Hypothesis]:
    """Cards whose white is a thin frame open on one side, from the convex hull of their blob.

    A court figure standing on a coloured band that runs off the card's bottom edge (the
    beezlie Napoletane print: every fante, cavallo and re) leaves a U of white margins: the
    hole filling cannot close it, the opening erases its thin arms, and no card of that print
    was ever found (measured: vision_e2e briscola-2 seed 2, every court card laid was asked
    about as a missed play).  The hull of the unopened blob is the card less the band: a
    rectangle one card wide and most of a card long, extended to a card's length from either
    end (one group: the classifier keeps the better crop).  Blobs merged with a cloth's white
    squares have a larger hull and are left alone; the mat's square markers have no card
    aspect.  ``outlines``: the blobs' outer outlines when traced already
    (:func:`~referee.vision.finder.segmentation.filled_with_outlines`).
    """
    card_area = short * long_
    # the blobs of a card's size (``mask`` has its holes filled: a blob is its outline
    # filled), in the order OpenCV labels them; their outlines cost a tenth of labelling
    blobs = []
    if outlines is None:
        outlines = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
    for contour in outlines:
        x, y, w, h = cv2.boundingRect(contour)
        if max(w, h) > 1.5 * long_ or w * h < 0.2 * card_area:
            continue  # (a blob is at most its box)
        blob = np.zeros((h, w), np.uint8)
        cv2.drawContours(blob, [contour], -1, 255, cv2.FILLED, offset=(-x, -y))
        if 0.2 * card_area <= cv2.countNonZero(blob) <= 1.3 * card_area:
            blobs.append((_labelling_order(blob, x, y), contour))
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[Hypothesis] = []
    for _, contour in sorted(blobs, key=lambda b: b[0]):
        hull = cv2.convexHull(contour)  # (the blob's hull is its outline's)
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
        s_, l_ = min(rw, rh), max(rw, rh)
        if cv2.contourArea(hull) < 0.85 * rw * rh or not (0.85 * short <= s_ <= 1.15 * short and 0.7 * long_ <= l_ <= 1.1 * long_) \
                or l_ < 1.1 * s_:
            continue
        if any(float(np.hypot(cx - c[0], cy - c[1])) < 0.3 * short for c in centres):
            continue  # a card the other paths found (its hull is its quad)
        group = first_group + len({hh.group for hh in out})
        out.extend(Hypothesis(q, 1.0, group, "thin") for q in extended_to_card((cx, cy), (rw, rh), angle, long_))
    return out


def _labelling_order(blob: Mask, x: int, y: int) -> tuple[int, int]:
    """Where connected-component labelling (OpenCV's, by 2x2 blocks in raster order) first
    meets a blob whose box starts at (``x``, ``y``): its top block row and its first block there."""
    row = y // 2
    top = blob[max(0, 2 * row - y) : 2 * row + 2 - y]
    return row, (x + int(np.flatnonzero(top.any(axis=0))[0])) // 2


def strip_card_hypotheses(
    mask: Mask, opened: Mask, short: float, long_: float, focus: Contour, first_group: int
) -> list[Hypothesis]:
    """Cards of a trick seen only as a thin white strip along one long side.

    The same court cards as :func:`thin_card_hypotheses`, lying in a trick: their wide white
    parts join the other cards' blob, and the opening erases the thin margin along their far
    side, which is left as a strip beside the blob.  The strip's outer edge is the card's
    edge: a card rectangle on either side of it, flush with either of its ends (one group),
    whose sides are then fitted to the card's edges (``CardFinder.find``).  Only strips that
    touch the play area (``focus``) and a blob.
    """
    resid = cv2.bitwise_and(mask, cv2.bitwise_not(cv2.dilate(opened, np.ones((3, 3), np.uint8))))
    touch = cv2.dilate(opened, np.ones((7, 7), np.uint8))
    # the pieces at least half a card long, in the order OpenCV labels them: each piece's
    # outer outline (a piece inside another's hole has one too) gives its box, and only
    # those long enough are labelled, in their box (their outlines cost a tenth of labelling
    # the frame, a cloth's pattern leaving hundreds of specks)
    contours, hierarchy = cv2.findContours(resid, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    pieces = []
    for contour, (_, _, _, parent) in zip(contours, hierarchy[0] if hierarchy is not None else [], strict=True):
        x, y, w, h = cv2.boundingRect(contour)
        if parent >= 0 or max(w, h) < 0.5 * long_ or w * h < 0.04 * short * long_:
            continue  # a hole's outline, or too short; (a piece is at most its box)
        labels = cv2.connectedComponents(resid[y : y + h, x : x + w], connectivity=8, ltype=cv2.CV_32S)[1]
        px, py = (int(v) for v in contour[0, 0])
        comp = labels == labels[py - y, px - x]
        if not np.count_nonzero(comp) < 0.04 * short * long_:
            pieces.append((_labelling_order(comp, x, y), x, y, comp))
    out: list[Hypothesis] = []
    for _, x, y, comp in sorted(pieces, key=lambda p: p[0]):
        h, w = comp.shape
        if not np.any(comp & (touch[y : y + h, x : x + w] > 0)):
            continue
        points = cv2.findNonZero(comp.astype(np.uint8)) + np.array([x, y], np.int32)
        if not touches(focus, points):
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(points)
        s_, l_ = min(rw, rh), max(rw, rh)
        if not (0.6 * long_ <= l_ <= 1.1 * long_ and s_ <= 0.35 * short):
            continue
        t = np.deg2rad(angle)
        along_w = np.array([np.cos(t), np.sin(t)], np.float32)
        along_h = np.array([-np.sin(t), np.cos(t)], np.float32)
        axis, normal = (along_w, along_h) if rw > rh else (along_h, along_w)
        centre = np.array([cx, cy], np.float32)
        half_u, half_v = (normal * short / 2).astype(np.float32), (axis * long_ / 2).astype(np.float32)
        group = first_group + len({hh.group for hh in out})
        for side in (1.0, -1.0):
            across = centre - side * normal * s_ / 2 + side * normal * short / 2
            for end in ((1.0, -1.0) if l_ < 0.97 * long_ else (0.0,)):
                c = (across + end * axis * (long_ - l_) / 2).astype(np.float32)
                out.append(Hypothesis(rect(c, half_u, half_v), 0.9, group, "strip"))
    return out
