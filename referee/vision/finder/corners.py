"""Card rectangles grown from a blob's right-angle corners (overlapping cards)."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.detections import FloatArray
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import Contour
from referee.vision.finder.segmentation import Mask


def corner_hypotheses(
    mask: Mask, contour: Contour, short: float, long_: float, cfg: FinderConfig, first_group: int
) -> list[Hypothesis]:
    """Card rectangles grown from the blob's right-angle corners, accepted greedily.

    Corners with the longest visible edges go first; a corner that is already the corner of
    an accepted card is skipped (each card has four), which keeps this cheap.
    """
    explained = np.zeros_like(mask)
    accepted: list[Hypothesis] = []
    deferred: list[tuple[float, FloatArray]] = []

    def accept(score: float, quad: FloatArray) -> None:
        if 1.0 - _fraction_set(explained, _sample_points(quad)) < 0.3:
            return  # explains nothing new: another view of an accepted card
        cv2.fillConvexPoly(explained, np.round(quad).astype(np.int32), 255)
        accepted.append(Hypothesis(quad, score, first_group + len(accepted), "corner"))

    def grow(corners: list[tuple[FloatArray, FloatArray, FloatArray, float, float]]) -> None:
        deferred.clear()
        for corner, u, v, len_u, len_v in corners:
            if any(float(np.min(np.hypot(*(h.quad - corner).T))) < 0.25 * short for h in accepted):
                continue
            best = _best_rectangle(mask, corner, u, v, len_u, len_v, short, long_, cfg)
            if best is None:
                continue
            if best[0] >= cfg.sure_score:  # a clean card: take it now, skip its other corners
                accept(*best)
            else:
                deferred.append(best)
        for score, quad in sorted(deferred, key=lambda c: -c[0]):  # the rest best first
            accept(score, quad)

    grow(sorted(_corners(contour, short), key=lambda c: -(c[3] + c[4])))
    if cfg.smooth_corners and _unexplained(explained, contour) > 0.2:
        grow(_smoothed_corners(mask, contour, short, cfg))  # corners hidden by glued cloth
    return accepted


def _unexplained(explained: Mask, contour: Contour) -> float:
    """Fraction of the blob no accepted card covers."""
    x, y, w, h = cv2.boundingRect(contour)
    blob = np.zeros((h, w), np.uint8)
    cv2.drawContours(blob, [contour - np.array([x, y], np.int32)], -1, 255, cv2.FILLED)
    inside = blob > 0
    covered = explained[y : y + h, x : x + w] > 0
    return 1.0 - float(np.count_nonzero(inside & covered)) / max(1, int(np.count_nonzero(inside)))


def _best_rectangle(
    mask: Mask, corner: FloatArray, u: FloatArray, v: FloatArray, len_u: float, len_v: float,
    short: float, long_: float, cfg: FinderConfig,
) -> tuple[float, FloatArray] | None:
    """The card at this corner, portrait or landscape, whichever the blob supports better."""
    orientations = [(a, b, len_u > 1.15 * a or len_v > 1.15 * b) for a, b in ((short, long_), (long_, short))]
    if not all(o[2] for o in orientations):
        # A straight blob border running on past the hypothesised card corner means the
        # card is the other way round; only two cards aligned exactly leave both open.
        orientations = [o for o in orientations if not o[2]]
    best: tuple[float, FloatArray] | None = None
    for a, b, runs_on in orientations:
        # Fit each side to the white run from the corner (cards differ by a few percent
        # and the blob's border sits a pixel or two inside the printed edge).
        a_fit = min(max(_white_run(mask, corner, u, v, a, b), 0.8 * a), 1.05 * a)
        b_fit = min(max(_white_run(mask, corner, v, u, b, a_fit), 0.8 * b), 1.05 * b)
        quad = np.array([corner, corner + u * a_fit, corner + u * a_fit + v * b_fit, corner + v * b_fit], np.float32)
        cov, support = _coverage_and_support(mask, quad)
        if cov < cfg.min_coverage:
            continue
        score = cov**4 * (0.5 + support) * (0.5 if runs_on else 1.0)
        if best is None or score > best[0]:
            best = (score, quad)
    return best


def _corners(
    contour: Contour, short: float
) -> list[tuple[FloatArray, FloatArray, FloatArray, float, float]]:
    """Convex near-right-angle corners as (corner, unit u, unit v, edge length u, edge length v).

    Corners are intersections of consecutive *long* polygon edges, so rounded card corners
    (which approximate to one or two short edges) still give the sharp corner.
    """
    poly = cv2.approxPolyDP(contour, max(1.5, 0.08 * short), True).reshape(-1, 2).astype(np.float32)
    n = len(poly)
    if n < 3:
        return []
    orient = np.sign(cv2.contourArea(poly, oriented=True)) or 1.0
    edges = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    long_edges = [e for e in edges if np.linalg.norm(e[1] - e[0]) >= 0.25 * short]
    out = []
    m = len(long_edges)
    for i in range(m):
        (p0, p1), (q0, q1) = long_edges[i], long_edges[(i + 1) % m]
        if m > 1 and np.linalg.norm(p1 - q0) > 0.3 * short:
            continue
        d1 = (p1 - p0) / np.linalg.norm(p1 - p0)
        d2 = (q1 - q0) / np.linalg.norm(q1 - q0)
        cross = float(d1[0] * d2[1] - d1[1] * d2[0])
        if abs(float(d1 @ d2)) > 0.4 or np.sign(cross) != orient:  # not ~90 degrees, or concave
            continue
        corner = _intersect(p0, d1, q0, d2)
        if corner is None:
            continue
        u, v = _orthogonal(-d1, d2)
        out.append((corner, u, v, float(np.linalg.norm(corner - p0)), float(np.linalg.norm(q1 - corner))))
    return out


def _smoothed_corners(
    mask: Mask, contour: Contour, short: float, cfg: FinderConfig
) -> list[tuple[FloatArray, FloatArray, FloatArray, float, float]]:
    """Corners of the blob opened harder: check squares glued along a trick's outline hide
    its corners; a wider opening strips them (and thin card slivers, which is why these
    corners only add to the others)."""
    x, y, w, h = cv2.boundingRect(contour)
    roi = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(roi, [contour - np.array([x - 1, y - 1], np.int32)], -1, 255, cv2.FILLED)
    k = max(3, round(cfg.smooth_open_frac * short)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    smooth = np.asarray(cv2.morphologyEx(roi, cv2.MORPH_OPEN, kernel), np.uint8)
    found, _ = cv2.findContours(smooth, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    offset = np.array([x - 1, y - 1], np.float32)
    for c in found:
        if cv2.contourArea(c) < 0.5 * short * short:
            continue
        for corner, u, v, lu, lv in _corners(c, short):
            out.append(((corner + offset).astype(np.float32), u, v, lu, lv))
    return out


_RUN_OFFSETS = np.array([0.25, 0.5, 0.75], np.float32)[:, None, None]


def _white_run(mask: Mask, corner: FloatArray, along: FloatArray, across: FloatArray, a: float, b: float) -> float:
    """Median length of the white run from ``corner`` along ``along`` (three lines across)."""
    n = int(1.3 * a) + 1
    steps = np.arange(n, dtype=np.float32)[None, :, None]
    pts = corner + _RUN_OFFSETS * b * across + steps * along  # (3, n, 2)
    h, w = mask.shape
    xs = np.minimum(np.maximum((pts[..., 0] + 0.5).astype(np.intp), 0), w - 1)
    ys = np.minimum(np.maximum((pts[..., 1] + 0.5).astype(np.intp), 0), h - 1)
    white = mask[ys, xs] > 0
    dark = ~white
    dark[:, -1] = True
    first_dark = np.sort(np.argmax(dark, axis=1))  # first non-white step on each line
    return float(first_dark[1])  # the median of three


def _orthogonal(u: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Rotate u and v symmetrically about their bisector to exactly 90 degrees apart.

    A card is a rectangle; the polygon's edge directions are noisy by a few degrees at
    working resolution, which on a card's far end is enough to miss it.
    """
    bis = u + v
    bis = bis / (np.linalg.norm(bis) + 1e-9)
    perp = np.array([-bis[1], bis[0]], np.float32)
    if float(perp @ u) < 0:
        perp = -perp
    r = float(np.sqrt(0.5))
    return ((bis + perp) * r).astype(np.float32), ((bis - perp) * r).astype(np.float32)


def _intersect(p: FloatArray, d: FloatArray, q: FloatArray, e: FloatArray) -> FloatArray | None:
    den = d[0] * e[1] - d[1] * e[0]
    if abs(den) < 1e-6:
        return None
    t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
    result: FloatArray = (p + t * d).astype(np.float32)
    return result


def _grid(nu: int, nv: int) -> tuple[FloatArray, FloatArray]:
    s = (np.arange(nu, dtype=np.float32) + 0.5) / nu
    t = (np.arange(nv, dtype=np.float32) + 0.5) / nv
    ss, tt = np.meshgrid(s, t)
    return ss.ravel()[:, None].astype(np.float32), tt.ravel()[:, None].astype(np.float32)


_INSIDE = _grid(6, 10)


_EDGE_T = np.linspace(0.15, 0.85, 6, dtype=np.float32)[:, None]


def _sample_points(quad: FloatArray) -> FloatArray:
    """A 6x10 grid of points inside a (near-parallelogram) quad."""
    ss, tt = _INSIDE
    pts: FloatArray = quad[0] + ss * (quad[1] - quad[0]) + tt * (quad[3] - quad[0])
    return pts


def _fraction_set(mask: Mask, pts: FloatArray) -> float:
    h, w = mask.shape
    xs = np.minimum(np.maximum((pts[:, 0] + 0.5).astype(np.intp), 0), w - 1)
    ys = np.minimum(np.maximum((pts[:, 1] + 0.5).astype(np.intp), 0), h - 1)
    # Points beyond the frame read the border pixel: a card cut by the frame edge still counts.
    return float(np.count_nonzero(mask[ys, xs])) / len(pts)


def _coverage_and_support(mask: Mask, quad: FloatArray) -> tuple[float, float]:
    """(fraction of the quad that is white, fraction of its outline with non-white just outside)."""
    cov = _fraction_set(mask, _sample_points(quad))
    centre = quad.mean(axis=0)
    a = quad
    b = np.roll(quad, -1, axis=0)
    mid_out = (a + b) / 2 - centre
    offset = mid_out / (np.linalg.norm(mid_out, axis=1, keepdims=True) + 1e-6) * 3.0
    pts = (a[None] + _EDGE_T[:, :, None] * (b - a)[None] + offset[None]).reshape(-1, 2)
    support = 1.0 - _fraction_set(mask, pts.astype(np.float32))
    return cov, support
