"""Split a blob of overlapping cards by the cards' *outlines* (edges inside the blob).

Why: the union of a trick's white cards is one whiteness blob, and its own outline shows only
the corners that stick out; a card lying across the middle of a trick may have none (measured:
the corner method of ``finder/corners.py`` found 79 % of simulated trick cards).  Inside the blob,
though, every card still shows its outline: the upper card's edge casts a thin shadow line on
the lower one, and most prints have a frame line just inside the edge.

So, for a blob and the known card size:

1. the cards' angles are the peaks of the gradient-orientation histogram (modulo 90 degrees)
   inside the blob: card edges and frame lines dominate it;
2. for each angle the blob is rotated upright and every card-sized rectangle is scored by how
   much of its outline lies on an edge (column/row sums of the rotated gradient, so all
   positions cost a few array operations) and rejected unless it lies inside the blob;
3. rectangles are accepted best first while they explain new blob area; each side is then
   nudged onto its strongest edge (cards differ in size by a few percent).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.card_size import SizeMemo

FloatArray = npt.NDArray[np.float32]
Mask = npt.NDArray[np.uint8]
Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class OutlineConfig:
    """Knobs of :func:`outline_quads` (work-scale pixels)."""

    #: at most this many card angles per blob (a trick of 4-5 cards, some parallel)
    max_angles: int = 6
    #: an angle peak must reach this fraction of the strongest one
    angle_peak_frac: float = 0.25
    #: a rectangle's outline must lie on edges over at least this fraction (hidden cards show ~half)
    min_outline: float = 0.32
    #: and the rectangle must lie inside the blob over this fraction
    min_inside: float = 0.9
    #: and explain at least this fraction of new blob area
    min_new: float = 0.25
    #: strongest edges count as 1; this percentile of the blob's gradient is "strong"
    edge_percentile: float = 90.0
    #: card sizes tried (factors on the expected short and long side) at the blob's main angles
    size_steps: tuple[float, ...] = (0.8, 0.87, 0.94, 1.0, 1.06, 1.13)
    #: ... and when the expected size is only a guess (no card measured yet)
    guess_steps: tuple[float, ...] = (0.7, 0.78, 0.86, 0.94, 1.0, 1.08, 1.18, 1.3, 1.43)
    #: the size is fitted at this many of the first angles
    size_angles: int = 2
    #: best rectangles kept per angle and orientation
    per_angle: int = 4


def outline_quads(
    white: Image, blob: Mask, short: float, long_: float, cfg: OutlineConfig | None = None,
    taken: list[FloatArray] | None = None, size_known: bool = True, fit: SizeMemo | None = None,
) -> list[tuple[float, FloatArray]]:
    """(score, quad) of the cards in ``blob`` (255 inside one blob, same shape as ``white``).

    ``fit``: None when (short, long_) is trusted (measured on cards the recogniser read), else
    the size is fitted to the blob's edges (``size_known``: in a narrow range around it, else a
    wide one) once and remembered in ``fit``.

    ``taken``: quads already proposed for this blob; rectangles they explain are skipped.
    Quads are (4, 2) in ``white``'s pixels, clockwise.
    """
    cfg = cfg or OutlineConfig()
    bx, by, bw, bh = cv2.boundingRect(blob)
    if bw == 0 or short < 6:
        return []
    pad = int(short / 4) + 2
    h_img, w_img = blob.shape
    x0, y0 = max(bx - pad, 0), max(by - pad, 0)
    x1, y1 = min(bx + bw + pad, w_img), min(by + bh + pad, h_img)
    roi_w = white[y0:y1, x0:x1].astype(np.float32)
    roi_m = blob[y0:y1, x0:x1]
    gx, gy = _gradient(roi_w)
    mag = np.asarray(cv2.magnitude(gx, gy), np.float32)
    near = cv2.dilate(roi_m, np.ones((5, 5), np.uint8)) > 0
    strong = float(np.percentile(mag[near], cfg.edge_percentile)) if near.any() else 0.0
    if strong <= 1e-3:
        return []
    angles = _merge_angles(_outline_angles(roi_m, short), _card_angles(gx, gy, mag, near & (mag >= 0.5 * strong), cfg), cfg)
    rotated = [_rotate(roi_w, roi_m, angle, strong) for angle in angles]
    if fit is not None and rotated:
        known = fit.lookup(short, long_)
        if known is None:
            steps = cfg.size_steps if size_known else cfg.guess_steps
            fit.expected = (short, long_)
            fit.fitted = known = _fit_size(rotated[: cfg.size_angles], short, long_, steps, cfg.min_inside)
        short, long_ = known
    candidates: list[tuple[float, FloatArray]] = []
    for r in rotated:
        candidates += _rectangles_at(r, short, long_, cfg)
    offset = np.array([x0, y0], np.float32)
    explained = np.zeros_like(roi_m)
    for q in taken or []:
        cv2.fillConvexPoly(explained, np.round(q - offset).astype(np.int32), 255)
    blob_area = roi_m > 0
    accepted: list[tuple[float, FloatArray]] = []
    for score, quad in sorted(candidates, key=lambda c: -c[0]):
        poly = np.zeros_like(roi_m)
        cv2.fillConvexPoly(poly, np.round(quad).astype(np.int32), 255)
        inside = (poly > 0) & blob_area
        n_in = int(np.count_nonzero(inside))
        if n_in == 0 or np.count_nonzero(inside & (explained == 0)) < cfg.min_new * n_in:
            continue
        explained |= poly
        accepted.append((score, (quad + offset).astype(np.float32)))
    return accepted


def _gradient(image: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Sobel (gx, gy) of the whiteness (card outlines, shadow lines, printed frame lines;
    measured: colour edges found no more trick cards and add noisy angles)."""
    gx = np.asarray(cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy = np.asarray(cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    return gx, gy


def _outline_angles(roi_m: Mask, short: float) -> list[float]:
    """Angles (degrees, 0..90) of the long straight stretches of the blob's own outline, longest
    first: nearly every card of a trick has an edge there, and a polygon edge gives its angle
    more exactly than a histogram (where two cards a few degrees apart make one peak)."""
    contours, _ = cv2.findContours(roi_m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    found: list[tuple[float, float]] = []
    for c in contours:
        poly = cv2.approxPolyDP(c, 1.5, True).reshape(-1, 2).astype(np.float32)
        d = np.roll(poly, -1, axis=0) - poly
        length = np.hypot(d[:, 0], d[:, 1])
        for (dx, dy), n in zip(d, length, strict=True):
            if n >= 0.4 * short:
                found.append((float(n), float(np.degrees(np.arctan2(dy, dx))) % 90.0))
    return [a for _, a in sorted(found, reverse=True)]


def _merge_angles(first: list[float], more: list[float], cfg: OutlineConfig) -> list[float]:
    """``first`` then ``more``, skipping angles within 2 degrees of one already kept."""
    out: list[float] = []
    for a in [*first, *more]:
        if len(out) >= cfg.max_angles:
            break
        if all(min(abs(a - b), 90 - abs(a - b)) >= 2.0 for b in out):
            out.append(a)
    return out


def _card_angles(gx: FloatArray, gy: FloatArray, mag: FloatArray, near: npt.NDArray[np.bool_], cfg: OutlineConfig) -> list[float]:
    """Peaks (degrees, 0..90) of the magnitude-weighted gradient orientation modulo 90."""
    theta = np.degrees(np.arctan2(gy[near], gx[near])) % 90.0
    hist, _ = np.histogram(theta, bins=90, range=(0.0, 90.0), weights=mag[near])
    # circular smoothing: 0 and 90 degrees are the same card angle
    hist = np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), [1, 2, 3, 2, 1], "valid").astype(np.float64)
    peaks: list[float] = []
    top = float(hist.max())
    for i in np.argsort(-hist).tolist():
        if hist[i] < cfg.angle_peak_frac * top or len(peaks) >= cfg.max_angles:
            break
        left, right = hist[(i - 1) % 90], hist[(i + 1) % 90]
        if hist[i] < left or hist[i] < right:
            continue  # not a local maximum
        if any(min(abs(i + 0.5 - p) % 90, 90 - abs(i + 0.5 - p) % 90) < 4 for p in peaks):
            continue
        # sub-bin refinement (parabola through the peak and its neighbours)
        den = left - 2 * hist[i] + right
        delta = 0.5 * (left - right) / den if abs(den) > 1e-9 else 0.0
        peaks.append((i + 0.5 + float(delta)) % 90.0)
    return peaks


@dataclass(frozen=True)
class _Rotated:
    """A blob's ROI rotated by ``angle``: clipped edge strengths and their running sums."""

    ex: FloatArray  # vertical edges (|d/dx|), 0..1
    ey: FloatArray  # horizontal edges
    col: FloatArray  # cumulative ex down each column, one leading zero row
    row: FloatArray  # cumulative ey along each row, one leading zero column
    inside: npt.NDArray[np.int32]  # integral image of the blob
    inv: FloatArray  # rotated -> ROI pixels


def _rotate(roi_w: FloatArray, roi_m: Mask, angle: float, strong: float) -> _Rotated:
    h, w = roi_m.shape
    c, s_ = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    cw, ch = int(np.ceil(w * c + h * s_)) + 2, int(np.ceil(w * s_ + h * c)) + 2  # the rotated box
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    rot[:, 2] += (cw - w) / 2, (ch - h) / 2
    # whiteness and blob in one warp (two channels)
    both = cv2.warpAffine(np.dstack([roi_w.astype(np.uint8), roi_m]), rot, (cw, ch), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    gx, gy = _gradient(np.asarray(both[..., 0], np.float32))
    ex = np.minimum(np.abs(gx) / strong, 1.0)
    ey = np.minimum(np.abs(gy) / strong, 1.0)
    # an edge may sit a pixel either side of the rectangle's side
    ex = np.asarray(cv2.dilate(ex, np.ones((1, 3), np.uint8)), np.float32)
    ey = np.asarray(cv2.dilate(ey, np.ones((3, 1), np.uint8)), np.float32)
    col = np.vstack([np.zeros((1, cw), np.float32), np.cumsum(ex, axis=0, dtype=np.float32)])
    row = np.hstack([np.zeros((ch, 1), np.float32), np.cumsum(ey, axis=1, dtype=np.float32)])
    inside = np.asarray(cv2.integral((both[..., 1] > 127).astype(np.uint8)), np.int32)
    return _Rotated(ex, ey, col, row, inside, cv2.invertAffineTransform(rot).astype(np.float32))


def _score_map(r: _Rotated, a: int, b: int, min_inside: float, stride: int = 1) -> FloatArray | None:
    """Outline score of the a x b rectangle at every ``stride``-th top-left (y, x); 0 where it
    leaves the blob (a and b are rounded down to multiples of the stride)."""
    k = stride
    a, b = a - a % k, b - b % k
    hgt, wid = r.ex.shape
    ny, nx = hgt - b, wid - a
    if ny <= 0 or nx <= 0 or a < 2 or b < 2:
        return None
    col, row = r.col[:, ::k], r.row[::k, :]
    vert = col[b : b + ny : k, :] - col[:ny:k, :]  # sum of ex on column x over rows y..y+b
    horiz = row[:, a : a + nx : k] - row[:, :nx:k]  # sum of ey on row y over columns x..x+a
    ak, bk = a // k, b // k
    nys, nxs = min(vert.shape[0], horiz.shape[0] - bk), min(horiz.shape[1], vert.shape[1] - ak)
    if nys <= 0 or nxs <= 0:
        return None
    score = (vert[:nys, :nxs] + vert[:nys, ak : ak + nxs] + horiz[:nys, :nxs] + horiz[bk : bk + nys, :nxs]) / (2 * (a + b))
    ok = _box_sum(r.inside[::k, ::k], ak, bk, nys, nxs) >= min_inside * a * b
    out: FloatArray = np.where(ok, score, 0.0).astype(np.float32)
    return out


def _box_sum(integral: npt.NDArray[np.int32], a: int, b: int, ny: int, nx: int) -> npt.NDArray[np.int32]:
    """Sum over every a x b box (top-left (y, x), y < ny, x < nx) from an integral image."""
    i = integral
    out: npt.NDArray[np.int32] = i[b : b + ny, a : a + nx] - i[:ny, a : a + nx] - i[b : b + ny, :nx] + i[:ny, :nx]
    return out


def _fit_size(rotated: list[_Rotated], short: float, long_: float, steps: tuple[float, ...], min_inside: float) -> tuple[float, float]:
    """The card size whose best rectangle (at the blob's main angles) lies most on edges.

    The size from single blobs is a guess (a face-down pile is bigger than a card, French and
    Italian cards differ in aspect); a fully visible card in the trick measures it exactly.
    """
    best, size = -1.0, (short, long_)
    for fs in steps:
        for fl in steps:
            a, b = short * fs, long_ * fl
            if not 1.2 <= b / a <= 2.0:
                continue
            m = 0.0
            for r in rotated:
                for w, h in ((a, b), (b, a)):
                    score = _score_map(r, round(w), round(h), min_inside)
                    if score is not None and score.size:
                        m = max(m, float(score.max()))
            # a slight preference for the expected size: the frame line inside a card is a
            # smaller rectangle that also lies on edges
            value = m * (1.0 - 0.1 * abs(float(np.log(fs))) - 0.1 * abs(float(np.log(fl))))
            if value > best:
                best, size = value, (a, b)
    return size


def _rectangles_at(r: _Rotated, short: float, long_: float, cfg: OutlineConfig) -> list[tuple[float, FloatArray]]:
    """Card rectangles in ``r`` whose outline lies on edges, in ROI pixels (best few)."""
    out: list[tuple[float, FloatArray]] = []
    for rw, rh in ((short, long_), (long_, short)):
        a, b = round(rw), round(rh)
        score = _score_map(r, a, b, cfg.min_inside)
        if score is None:
            continue
        for y, x in _top_peaks(score, cfg.min_outline, cfg.per_angle):
            rect = _refine(r.ex, r.ey, x, y, a, b)
            quad = cv2.transform(rect[None], r.inv)[0].astype(np.float32)
            out.append((float(score[y, x]), quad))
    return out


def _top_peaks(score: FloatArray, floor: float, n: int, gap: int = 3) -> list[tuple[int, int]]:
    """(y, x) of the ``n`` best scores >= ``floor``, each at least ``gap`` px from the others."""
    work = score.copy()
    out: list[tuple[int, int]] = []
    for _ in range(n):
        _, best, _, (x, y) = cv2.minMaxLoc(work)
        if best < floor:
            break
        out.append((y, x))
        work[max(y - gap, 0) : y + gap + 1, max(x - gap, 0) : x + gap + 1] = 0.0
    return out


def _refine(ex: FloatArray, ey: FloatArray, x: int, y: int, a: int, b: int, reach: int = 2) -> FloatArray:
    """The rectangle with each side moved (up to ``reach`` px) onto its strongest edge."""
    hgt, wid = ex.shape

    def best(profile: npt.NDArray[np.float32], at: int) -> float:
        lo, hi = max(at - reach, 0), min(at + reach + 1, len(profile))
        return float(lo + int(np.argmax(profile[lo:hi])))

    ys = slice(max(y, 0), min(y + b, hgt))
    xs = slice(max(x, 0), min(x + a, wid))
    cols = ex[ys, :].sum(axis=0)
    rows = ey[:, xs].sum(axis=1)
    left, right = best(cols, x), best(cols, x + a)
    top, bottom = best(rows, y), best(rows, y + b)
    return np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float32)
