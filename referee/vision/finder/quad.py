"""Quad geometry: card rectangles from a centre or a blob, point-in-polygon tests, the
portrait corner order and the rectified crop of a quad."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import FloatArray, Image

#: OpenCV contours (its stubs type them loosely)
Contour = npt.NDArray[Any]


def rect(centre: FloatArray, half_u: FloatArray, half_v: FloatArray) -> FloatArray:
    pts = [centre - half_u - half_v, centre + half_u - half_v, centre + half_u + half_v, centre - half_u + half_v]
    return np.array(pts, np.float32)


def four_corners(contour: Contour) -> FloatArray:
    """The blob's quad: a 4-vertex approximation of its hull (keeps perspective), else minAreaRect."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
    box: FloatArray = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)
    return box


def extended_to_card(centre: tuple[float, float], size: tuple[float, float], angle: float, long_: float) -> list[FloatArray]:
    """A minAreaRect rectangle, extended to a card's length ``long_`` from either end (the
    rectangle itself when it is nearly that long already)."""
    t = np.deg2rad(angle)
    along_w = np.array([np.cos(t), np.sin(t)], np.float32)  # minAreaRect's width runs along angle
    along_h = np.array([-np.sin(t), np.cos(t)], np.float32)
    w, h = size
    along, across, axis, normal = (w, h, along_w, along_h) if w > h else (h, w, along_h, along_w)
    c = np.array(centre, np.float32)
    half_u = (normal * across / 2).astype(np.float32)
    half_v = (axis * max(along, long_) / 2).astype(np.float32)
    if along >= 0.97 * long_:
        return [rect(c, half_u, half_v)]
    return [rect((c + sign * axis * (long_ - along) / 2).astype(np.float32), half_u, half_v) for sign in (1.0, -1.0)]


def touches(polygon: Contour, contour: Contour) -> bool:
    """Whether any point of ``contour`` lies inside ``polygon`` (both in work pixels)."""
    pts = contour.reshape(-1, 2)[:: max(1, len(contour) // 16)]
    return any(cv2.pointPolygonTest(polygon, (float(x), float(y)), False) >= 0 for x, y in pts)


def mean_sides(quad: FloatArray) -> tuple[float, float]:
    """(short, long) of a quad: the means of its two pairs of opposite sides."""
    d = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    x, y = float(d[0] + d[2]) / 2, float(d[1] + d[3]) / 2
    return min(x, y), max(x, y)


def corner_gap(a: FloatArray, b: FloatArray) -> float:
    """Largest distance from a corner of ``a`` to the nearest corner of ``b``."""
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    return float(d.min(axis=1).max())


def portrait_order(quad: FloatArray) -> FloatArray:
    """Clockwise corners, short edge first, starting at the upper of the two possible corners."""
    q = quad.astype(np.float32)
    if cv2.contourArea(q, oriented=True) < 0:  # image y grows down: positive = clockwise
        q = q[::-1]
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)
    if q[2, 1] + q[3, 1] < q[0, 1] + q[1, 1]:  # the other short edge is higher: start there
        q = np.roll(q, -2, axis=0)
    return q


def share_inside(a: FloatArray, b: FloatArray) -> float:
    """The share of convex quad ``a``'s area that lies inside convex quad ``b``."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    area = float(cv2.contourArea(a32))
    return float(inter) / area if area > 0 else 0.0


def rectify(image: Image, quad: FloatArray, size: tuple[int, int]) -> Image:
    """Warp the card under ``quad`` (portrait-ordered, image px) to a ``size`` = (w, h) crop."""
    w, h = size
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    crop = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(crop, np.uint8)
