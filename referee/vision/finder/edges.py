"""Cards on a light table: card-shaped regions closed by image edges."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.detections import Image
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import four_corners


def edge_card_hypotheses(
    small: Image, found: list[Hypothesis], cfg: FinderConfig, first_group: int
) -> list[Hypothesis]:
    """Card-shaped regions enclosed by image edges, not already proposed by whiteness."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 40, 120)
    regions = cv2.bitwise_not(cv2.dilate(edges, np.ones((3, 3), np.uint8)))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(regions, connectivity=4)
    frame_area = small.shape[0] * small.shape[1]
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[Hypothesis] = []
    xs, ys, ws, hs, areas = (stats[:, k] for k in range(5))
    # Sieve in numpy first (a cloth makes thousands of regions): card-sized, clear of the
    # frame border (background, or a card cut off), and filling a good part of its box.
    keep = (
        (areas >= 0.002 * frame_area) & (areas <= 0.5 * frame_area) & (xs > 0) & (ys > 0)
        & (xs + ws < small.shape[1]) & (ys + hs < small.shape[0]) & (areas >= 0.3 * ws * hs)
    )
    keep[0] = False
    for i in np.flatnonzero(keep).tolist():
        x, y, w, h = (int(v) for v in stats[i, :4])
        roi = (labels[y : y + h, x : x + w] == i).astype(np.uint8) * 255
        contours, _ = cv2.findContours(roi, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea) + np.array([x, y], np.int32)
        filled_area = cv2.contourArea(contour)
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        s_, l_ = min(rw, rh), max(rw, rh)
        if s_ <= 0 or filled_area < 0.85 * rw * rh or not cfg.aspect_range[0] <= l_ / s_ <= cfg.aspect_range[1]:
            continue
        quad = four_corners(contour)
        # The region lies inside the dilated outline: grow it back by the dilation.
        centre = quad.mean(axis=0)
        quad = (centre + (quad - centre) * (1 + 3.0 / max(s_, 1.0))).astype(np.float32)
        if any(np.hypot(*(c - centre)) < 0.3 * s_ for c in centres):
            continue
        out.append(Hypothesis(quad, 1.5, first_group + len(out), "edge"))
        centres.append(centre)
    return out
