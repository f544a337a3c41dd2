"""The printable ArUco mat, and a table layout from one frame of it (``referee calibrate``,
whose command line is :mod:`referee.cli.calibrate`).

The four markers (ids 0..3, ``DICT_4X4_50``) give a homography mat -> image; three are enough
(a hand or a cup may hide one).  :func:`recalibrate` does the same on live frames, so a bumped
camera is followed without a new file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.layout import (
    MARKER_IDS,
    MARKER_SIZE,
    MAT_SIZE,
    LayoutError,
    TableLayout,
    default_seat_names,
    marker_centres,
    marker_corners,
)

#: fewer markers than this and the homography is not trusted
MIN_MARKERS = 3
#: a calibration whose markers reproject worse than this (pixels) is refused
MAX_REPROJECTION_PX = 6.0


def _dictionary() -> Any:
    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def render_mat(scale: float = 2.0, seats: Sequence[str] | None = None) -> npt.NDArray[np.uint8]:
    """The mat as a printable image: markers at the corners, the play area and stock outlined."""
    w, h = round(MAT_SIZE[0] * scale), round(MAT_SIZE[1] * scale)
    mat = np.full((h, w), 255, np.uint8)
    side = round(MARKER_SIZE * scale)
    for marker_id, (cx, cy) in marker_centres().items():
        tag = cv2.aruco.generateImageMarker(_dictionary(), marker_id, side)
        x0, y0 = round(cx * scale - side / 2), round(cy * scale - side / 2)
        mat[y0 : y0 + side, x0 : x0 + side] = tag
    layout = TableLayout.default(tuple(seats) if seats else default_seat_names(4))
    for name, poly in (("play", layout.play_area), ("stock", layout.stock)):
        pts = np.round(poly * scale).astype(np.int32)
        cv2.polylines(mat, [pts], True, 170, max(1, round(scale)))
        x, y = pts.min(axis=0)
        cv2.putText(mat, name, (int(x) + 10, int(y) + round(30 * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                    scale * 0.8, 170, max(1, round(scale)))
    for seat in layout.seats:
        x, y = layout.edge_point(seat)
        x = min(max(x, 60.0), MAT_SIZE[0] - 120.0)
        y = min(max(y, 60.0), MAT_SIZE[1] - 30.0)
        cv2.putText(mat, seat, (round(x * scale), round(y * scale)), cv2.FONT_HERSHEY_SIMPLEX,
                    scale * 1.2, 120, max(1, round(2 * scale)))
    return mat


def find_markers(image: npt.NDArray[Any]) -> dict[int, npt.NDArray[np.float64]]:
    """Mat markers seen in ``image``: id -> (4, 2) corners in pixels (TL, TR, BR, BL)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX  # corners to ~0.1 px
    detector = cv2.aruco.ArucoDetector(_dictionary(), params)
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, npt.NDArray[np.float64]] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel().tolist(), strict=True):
        if marker_id in MARKER_IDS and marker_id not in found:
            found[int(marker_id)] = np.asarray(quad, np.float64).reshape(4, 2)
    return found


def homography_from_markers(
    markers: dict[int, npt.NDArray[np.float64]],
) -> tuple[npt.NDArray[np.float64], float]:
    """(mat -> image homography, mean reprojection error in pixels) from >= 3 markers."""
    if len(markers) < MIN_MARKERS:
        raise LayoutError(
            f"found mat markers {sorted(markers)}; need at least {MIN_MARKERS} of {list(MARKER_IDS)} "
            "(is the mat in view and lit? print it with `referee calibrate --print-mat mat.png`)"
        )
    src = np.concatenate([marker_corners(i) for i in sorted(markers)])
    dst = np.concatenate([markers[i] for i in sorted(markers)])
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        raise LayoutError("the mat markers do not give a homography (are they in a line?)")
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), hom).reshape(-1, 2)
    error = float(np.linalg.norm(proj - dst, axis=1).mean())
    return np.asarray(hom, np.float64), error


def calibrate_image(image: npt.NDArray[Any], seats: Sequence[str]) -> TableLayout:
    """A layout for ``seats`` from one frame showing the mat."""
    hom, error = homography_from_markers(find_markers(image))
    if error > MAX_REPROJECTION_PX:
        raise LayoutError(f"mat markers disagree by {error:.1f} px (> {MAX_REPROJECTION_PX}): is the mat flat?")
    h, w = image.shape[:2]
    return TableLayout.default(seats, (w, h), hom)


def recalibrate(layout: TableLayout, image: npt.NDArray[Any]) -> TableLayout:
    """``layout`` with its homography re-measured on ``image`` when the markers are visible.

    Returns ``layout`` unchanged when too few markers show (hands over the corners): a bumped
    camera is followed on the next clear frame, a hidden marker changes nothing.
    """
    try:
        hom, error = homography_from_markers(find_markers(image))
    except LayoutError:
        return layout
    if error > MAX_REPROJECTION_PX:
        return layout
    h, w = image.shape[:2]
    return layout.with_homography(hom, (w, h))


def draw_layout(image: npt.NDArray[Any], layout: TableLayout) -> npt.NDArray[np.uint8]:
    """A copy of ``image`` with the seat zones, play area and stock drawn on it."""
    out = image.copy()
    for name, poly in layout.image_polygons().items():
        colour = (0, 200, 255) if name in ("play", "stock") else (255, 160, 0)
        pts = np.round(poly).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        if name in layout.seats:
            anchor = layout.to_image([layout.pile_spot(name)])[0]
        else:
            anchor = poly.mean(axis=0)
        cv2.putText(out, name, (int(anchor[0]), int(anchor[1])), cv2.FONT_HERSHEY_SIMPLEX, 1.0, colour, 2)
    result: npt.NDArray[np.uint8] = out
    return result


__all__ = [
    "calibrate_image",
    "draw_layout",
    "find_markers",
    "homography_from_markers",
    "recalibrate",
    "render_mat",
]
