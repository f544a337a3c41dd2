"""A small card cutter for enrollment photos and photo benchmarks (not the live pipeline).

The live pipeline gets rectified crops from the vision stage; a club's enrollment photo
or a labelled box in a test photo needs its card found and straightened here.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


def find_card_quad(image: U8, min_area: float = 0.12) -> F32 | None:
    """Corners (TL, TR, BR, BL) of the largest bright card-like region, or None."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (5, 5), 0)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = max(3, min(image.shape[:2]) // 40) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    best = max(contours, key=cv2.contourArea)
    if cv2.contourArea(best) < min_area * image.shape[0] * image.shape[1]:
        return None
    box = cv2.boxPoints(cv2.minAreaRect(best)).astype(np.float32)
    return order_corners(box)


def order_corners(pts: F32) -> F32:
    """Sort four points as TL, TR, BR, BL (image coordinates)."""
    s = pts.sum(axis=1)
    d = np.diff(pts, axis=1).ravel()
    out: F32 = np.array([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]],
                        np.float32)
    return out


def warp_portrait(image: U8, quad: F32) -> U8:
    """Straighten the card inside ``quad`` into a portrait crop at its own resolution."""
    tl, tr, br, bl = quad
    w = int(max(np.linalg.norm(tr - tl), np.linalg.norm(br - bl)))
    h = int(max(np.linalg.norm(bl - tl), np.linalg.norm(br - tr)))
    w, h = max(w, 8), max(h, 8)
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    crop = cv2.warpPerspective(image, cv2.getPerspectiveTransform(quad, dst), (w, h))
    if w > h:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return np.asarray(crop, np.uint8)


def cut_card(image: U8) -> U8:
    """The straightened card in ``image``, or the whole image if no card outline is found."""
    quad = find_card_quad(image)
    if quad is None:
        return image if image.shape[0] >= image.shape[1] else np.asarray(cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), np.uint8)
    return warp_portrait(image, quad)
