"""Cards less white than their table: cream card stock on a white or light grey table."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.detections import Image
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import four_corners, mean_sides
from referee.vision.finder.segmentation import binarize


def darker_card_hypotheses(
    white: Image, thresholds: list[float], found: list[Hypothesis], cfg: FinderConfig, first_group: int
) -> list[Hypothesis]:
    """Card-shaped regions *below* a whiteness threshold, clear of the frame border.

    Whiteness counts saturation against a pixel (``segmentation.whiteness``), so a cream or
    yellowed card on a neutral white table is less "white" than the table: at the threshold
    that splits card from table (the upper one, ``FinderConfig.upper_threshold``) the card is a
    dark, convex, card-shaped hole in the table's white, its pips holes in the hole.  Measured on
    the real Napoletane photos of a yellowed deck on a white table, shrunk so the card is
    100-160 px tall: its outline (``edges.py``) breaks open there, this region does not.
    """
    height, width = white.shape[:2]
    k = max(3, round(cfg.darker_open_frac * min(height, width))) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[Hypothesis] = []
    for thr in thresholds:
        dark = np.asarray(cv2.morphologyEx(cv2.bitwise_not(binarize(white, thr)), cv2.MORPH_OPEN, kernel), np.uint8)
        contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            if x <= 0 or y <= 0 or x + w >= width or y + h >= height:
                continue  # the table's own shading, or a card cut off by the frame
            hull = cv2.convexHull(contour)
            area = cv2.contourArea(hull)
            if not 0.002 * height * width <= area <= 0.6 * height * width:
                continue
            (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
            s_, l_ = min(rw, rh), max(rw, rh)
            # a card is convex and fills its rectangle; a dark stain or a shadow is not
            if s_ <= 0 or area < 0.86 * rw * rh or cv2.contourArea(contour) < 0.7 * area:
                continue
            if not cfg.aspect_range[0] <= l_ / s_ <= cfg.aspect_range[1]:
                continue
            quad = four_corners(hull)
            # the quad proposed, not only the hull's rectangle, is of a card's shape: a court
            # figure's or a pip group's hull on a lace table fills a card-shaped rectangle while
            # its four corners make a squat trapezoid, read surely as a card of its own
            short, long_ = mean_sides(quad)
            if not cfg.aspect_range[0] * short <= long_ <= cfg.aspect_range[1] * short:
                continue
            centre = quad.mean(axis=0)
            if any(float(np.hypot(*(c - centre))) < 0.3 * s_ for c in centres):
                continue
            out.append(Hypothesis(quad, 1.5, first_group + len(out), "edge"))
            centres.append(centre)
    return out

