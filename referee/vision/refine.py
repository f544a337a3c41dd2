"""Precise card quads: fit each side of a rough quad to the card's edge in the full frame.

The finder's quads come from blobs at working resolution (640 px wide), from rectangles of
a fixed card size grown from blob corners, or from outlines at one angle per card; measured
on simulated tricks, only a third of them had every corner within 5% of the card's long side
(median worst corner 8%): sides a few pixels in or out, tilted by a degree or two (perspective,
two cards a few degrees apart), or on the printed frame line inside a court card.  The
recogniser reads 99.4% of crops cut on true quads but 94.3% of those cut on the finder's.

So each side is searched again in the full frame:

1. whiteness (bright and unsaturated, as in :func:`referee.vision.finder.whiteness`) is
   sampled on ``samples`` lines across the side, skipping its ends (rounded corners, and the
   corner where another card usually covers it);
2. a card edge is a *step*: card stock inside, something darker or coloured outside over
   several pixels.  A printed frame line is a thin dark line with white on both sides, which
   a step filter a few pixels wide answers with a third of the contrast;
3. every straight line near the side (shifted in or out by up to ``reach``, its ends tilted
   apart by up to ``tilt``) is scored by the mean clipped step along it, which is the same
   as a robust line fit to the per-line edge positions: points where the edge is hidden (by
   another card, a finger) or missing add nothing instead of pulling the line; a line's score
   shrinks with its distance from the finder's side (by half at the full reach), so the
   stronger edge of a neighbouring card lying parallel nearby does not win over the card's own
   (measured: 14 of 368 simulated trick quads got worse, 148 got good, against 129 without);
4. a side moves only when enough of its points lie on a clear step (``min_support``); an
   unsupported side keeps its line, so a hidden side of a card under another one stays as
   the finder put it, or with ``complete`` one card length from its opposite side.  The corners are the
   intersections of neighbouring sides, and the quad is dropped back to the finder's if the
   result is not a plausible card.

All quads of a frame are sampled in one ``cv2.remap`` and scored in one array operation
(about 1-2 ms for a frame's 24 hypotheses at 1280x720).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import FloatArray, Image

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class RefineConfig:
    """Knobs of :func:`refine_quads` (fractions are of the quad's long side)."""

    #: how far each side is searched in and out (the finder's sides are off by up to ~10%)
    reach: float = 0.12
    #: how far a side's two ends may move apart (a side tilted by up to ~4 degrees)
    tilt: float = 0.05
    #: lines across each side
    samples: int = 24
    #: part of each side left out at both ends: rounded corners, and a neighbour's corner
    margin: float = 0.1
    #: half-width of the step filter (>= 3 samples): wider than a printed frame line
    step: float = 0.025
    #: whiteness step (0..255) a line across must show to support the edge
    min_contrast: float = 18.0
    #: steps count less and less above this (one very dark stretch must not carry a side)
    cap: float = 80.0
    #: fraction of a side's lines that must support its fitted edge for the side to move
    min_support: float = 0.85
    #: the score of a line shifted the full ``reach`` is scaled down by this fraction
    move_penalty: float = 0.5
    #: "all": support is the fraction of all lines across; "consistent": of those with a step
    #: anywhere, once at least ``min_lines`` of all lines are on the edge
    support: str = "consistent"
    min_lines: float = 0.65
    #: samples along the long side (larger cards, as in photos, are sampled coarser)
    resolution: float = 160.0
    #: place a side with no edge one card width/length from its opposite side: the crop then
    #: holds the whole card (``recognition_sim.py`` finder crops: Italian 86.4% read with it,
    #: 74.3% without).  In the live loop it drew hidden cards' quads over the cards lying on
    #: them (vision_e2e briscola-chiamata seed 1: 3 wrong trick winners), which is one reason
    #: the live loop does not refine (``FinderConfig.refine_live``).
    complete: bool = True


@dataclass(frozen=True)
class _Grid:
    """Sample offsets across a side, in units of ``unit`` image px."""

    unit: float
    half: int  # search positions run -half..half
    width: int  # step filter half-width
    tilt: int  # tilt positions run -tilt..tilt


#: the 256 levels of an 8-bit channel
_LEVELS = np.arange(256, dtype=np.uint8)


def white_gains(small: Image) -> FloatArray:
    """Per-channel (B, G, R) gains that make the brightest pixels neutral (warm light makes
    card stock cream); 1.0 when already neutral, at most 1.5 (a cloth colour must not pass for
    the light's)."""
    sample = np.ascontiguousarray(small[::4, ::4])
    # each channel's values in order, laid out from its histogram: their percentile is the
    # pixels' own, without numpy partitioning thousands of pixels per channel
    ordered = np.stack([np.repeat(_LEVELS, cv2.calcHist([sample], [c], None, [256], [0, 256]).ravel().astype(np.int64))
                        for c in range(3)], axis=1)
    ref = np.percentile(ordered, 98, axis=0).astype(np.float32) + 1.0
    gains = (ref.max() / ref).astype(np.float32)
    if float(gains.max()) < 1.05:
        return np.ones(3, np.float32)
    out: FloatArray = np.minimum(gains, 1.5).astype(np.float32)
    return out


def refine_quads(
    image: Image, quads: FloatArray, gains: FloatArray | None = None, saturation_weight: float = 1.5,
    cfg: RefineConfig | None = None, size: tuple[float, float] | None = None,
) -> tuple[FloatArray, BoolArray]:
    """``quads`` (N, 4, 2, image px, corners in order around the quad) fitted to the card
    edges in ``image``; returns (refined quads, which quads moved).  Corner order is kept.

    ``size`` (card short, long side in px) places hidden sides when no quad of this frame
    shows all four sides (those measure it); None = leave hidden sides where they are then."""
    out, moved, _ = _refine(image, quads, gains, saturation_weight, cfg or RefineConfig(), size)
    return out, moved


def _refine(
    image: Image, quads: FloatArray, gains: FloatArray | None, saturation_weight: float, cfg: RefineConfig,
    size: tuple[float, float] | None,
) -> tuple[FloatArray, BoolArray, tuple[float, float] | None]:
    """:func:`refine_quads`, plus the card size measured on this frame's fully found quads."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    fitted = _fit_sides(image, q, gains, saturation_weight, cfg)
    if fitted is None:
        return q.copy(), np.zeros(len(q), bool), None
    p0, p1, moved = fitted
    measured = _frame_size(q, p0, p1, moved)
    if cfg.complete:
        p0, p1, _ = _complete(q, p0, p1, moved, measured or size)
    refined, ok = _corners(q, p0, p1, cfg)
    out: FloatArray = np.where(ok[:, None, None], refined, q).astype(np.float32)
    return out, ok & moved.any(axis=1), measured


def _fit_sides(
    image: Image, q: FloatArray, gains: FloatArray | None, saturation_weight: float, cfg: RefineConfig,
) -> tuple[FloatArray, FloatArray, BoolArray] | None:
    """Each side's fitted line (start, end points, (N, 4, 2) each) and whether it moved onto
    an edge (N, 4); None when there are no quads or they are too small to fit."""
    if not len(q):
        return None
    sides = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)
    long_side = float(np.median(sides.max(axis=1)))
    if long_side < 16:
        return None
    unit = max(1.0, long_side / cfg.resolution)
    grid = _Grid(
        unit, int(np.ceil(cfg.reach * long_side / unit)), max(3, round(cfg.step * long_side / unit)),
        int(np.ceil(cfg.tilt * long_side / unit)),
    )
    source = image if unit <= 1.5 else _smoothed(image, unit)
    white = _sample_whiteness(source, q, grid, cfg, gains, saturation_weight)  # (N*4, K, P)
    steps, both = _steps(white, grid.width, grid.half)  # (N*4, K, 2*half+1)
    shift, tilt, support = _best_lines(steps, both, grid, cfg)
    moved = (support >= cfg.min_support).reshape(-1, 4)
    p0, p1 = _lines(q, shift * unit, tilt * unit, moved)
    return p0, p1, moved


class RefineCache:
    """Last frame's quads and their refinements.  A card lying still gives the same quad from
    the finder frame after frame (to a fraction of a pixel), and its edges have not moved, so
    it is not refined again (most cards on a table lie still most of the time)."""

    def __init__(self, tolerance: float = 0.5) -> None:
        self.tolerance = tolerance
        self.raw: FloatArray = np.zeros((0, 4, 2), np.float32)
        self.refined: FloatArray = np.zeros((0, 4, 2), np.float32)
        #: the card (short, long) side measured on fully found quads, kept between frames
        self.size: tuple[float, float] | None = None

    def refine(
        self, image: Image, quads: FloatArray, gains: FloatArray | None, saturation_weight: float, cfg: RefineConfig,
        size: tuple[float, float] | None,
    ) -> FloatArray:
        q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        out = q.copy()
        fresh = np.ones(len(q), bool)
        if len(self.raw) and len(q):
            gap = np.abs(q[:, None] - self.raw[None]).max(axis=(2, 3))  # (new, old) worst corner offset
            j = gap.argmin(axis=1)
            same = gap[np.arange(len(q)), j] <= self.tolerance
            out[same] = self.refined[j[same]]
            fresh = ~same
        if fresh.any():
            done, _, measured = _refine(image, q[fresh], gains, saturation_weight, cfg, self.size or size)
            out[fresh] = done
            self.size = measured or self.size
        self.raw, self.refined = q, out
        return out


def _frame_size(q: FloatArray, p0: FloatArray, p1: FloatArray, moved: BoolArray) -> tuple[float, float] | None:
    """The card (short, long) side in px of the quads whose four sides were all found
    (median), None when there is none of a card's shape."""
    sizes = _full_sizes(q, p0, p1, moved)[0]
    if not len(sizes):
        return None
    return float(np.median(sizes[:, 0])), float(np.median(sizes[:, 1]))


def _full_sizes(
    q: FloatArray, p0: FloatArray, p1: FloatArray, moved: BoolArray,
) -> tuple[FloatArray, npt.NDArray[np.intp], FloatArray]:
    """(short, long) side in px, (M, 2), of each quad whose four sides were all found and that
    has a card's shape, those quads' indices (M,) and their fitted corners (M, 4, 2)."""
    full = np.flatnonzero(moved.all(axis=1))
    if not len(full):
        return np.zeros((0, 2), np.float32), full, np.zeros((0, 4, 2), np.float32)
    corners, _ = _corners(q[full], p0[full], p1[full], RefineConfig())
    sides = np.linalg.norm(np.roll(corners, -1, axis=1) - corners, axis=2)
    a = (sides[:, 0] + sides[:, 2]) / 2
    b = (sides[:, 1] + sides[:, 3]) / 2
    short, long_ = np.minimum(a, b), np.maximum(a, b)
    card = (long_ >= 1.2 * short) & (long_ <= 2.0 * short)
    out: FloatArray = np.stack([short[card], long_[card]], axis=1).astype(np.float32)
    return out, full[card], corners[card]


def card_sizes(
    image: Image, quads: FloatArray, gains: FloatArray | None = None, saturation_weight: float = 1.5,
    cfg: RefineConfig | None = None,
) -> FloatArray:
    """(short, long) side in px, (M, 2), of each of ``quads`` (image px) whose four sides all
    lie on card edges in ``image``: the card size measured on the card itself, whatever size
    the quad was built with (``referee.vision.card_size``)."""
    return measured_sizes(image, quads, gains, saturation_weight, cfg)[0]


def measured_sizes(
    image: Image, quads: FloatArray, gains: FloatArray | None = None, saturation_weight: float = 1.5,
    cfg: RefineConfig | None = None,
) -> tuple[FloatArray, npt.NDArray[np.intp], FloatArray]:
    """:func:`card_sizes`, the indices of the quads they were measured on and the fitted
    corners."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    fitted = _fit_sides(image, q, gains, saturation_weight, cfg or RefineConfig())
    if fitted is None:
        return np.zeros((0, 2), np.float32), np.zeros(0, np.intp), np.zeros((0, 4, 2), np.float32)
    return _full_sizes(q, *fitted)


def white_margin(
    image: Image, corners: FloatArray, gains: FloatArray | None = None, saturation_weight: float = 1.5,
    inset: float = 0.04, samples: int = 24,
) -> FloatArray:
    """Per quad (N, 4, 2, image px): the fraction of points just inside its sides (``inset`` of
    the card's width or length in from each side) at least half as white as the whitest tenth
    of them.  A card's white
    margin: 0.9-1.0 on the simulated prints; a rectangle of a check cloth's squares whose sides
    happen to lie on square edges: about 0.5."""
    c = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    if not len(c):
        return np.zeros(0, np.float32)
    t = np.linspace(0.1, 0.9, samples, dtype=np.float32)[None, None, :, None]
    a, b = c[:, :, None], np.roll(c, -1, axis=1)[:, :, None]
    pts = a + t * (b - a)  # (N, 4, S, 2)
    centre = c.mean(axis=1)[:, None, None]
    pts = (pts + (centre - pts) * 2 * inset).reshape(-1, 1, 2)
    bgr = np.asarray(cv2.remap(image, np.ascontiguousarray(pts[..., 0]), np.ascontiguousarray(pts[..., 1]),
                               cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.float32).reshape(-1, 3)
    if gains is not None:
        bgr = bgr * np.asarray(gains, np.float32)[None]
    lo, hi = bgr.min(axis=1), bgr.max(axis=1)
    white = np.clip(lo - saturation_weight * (hi - lo), 0, 255).reshape(len(c), -1)
    ref = np.percentile(white, 90, axis=1, keepdims=True)
    out: FloatArray = ((white >= 0.5 * ref) & (ref > 0)).mean(axis=1).astype(np.float32)
    return out


def _smoothed(image: Image, unit: float) -> Image:
    """Blur a large photo so samples ``unit`` px apart do not alias on print detail."""
    k = int(2 * round(unit) + 1)
    return np.asarray(cv2.GaussianBlur(image, (k, k), unit / 2), np.uint8)


def _side_frames(q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(start corner, end corner, outward unit normal) of each side, each (N, 4, 2)."""
    a, b = q, np.roll(q, -1, axis=1)
    d = b - a
    n = np.stack([d[..., 1], -d[..., 0]], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True) + 1e-9
    centre = q.mean(axis=1, keepdims=True)
    outward = np.sign(np.sum(n * ((a + b) / 2 - centre), axis=-1, keepdims=True))
    outward[outward == 0] = 1.0
    return a, b, (n * outward).astype(np.float32)


def _ts(cfg: RefineConfig) -> FloatArray:
    out: FloatArray = np.linspace(cfg.margin, 1.0 - cfg.margin, cfg.samples, dtype=np.float32)
    return out


def _sample_whiteness(
    image: Image, q: FloatArray, grid: _Grid, cfg: RefineConfig, gains: FloatArray | None, sat_w: float,
) -> FloatArray:
    """Whiteness on ``samples`` lines across every side: (N*4, K, P), P running outward."""
    a, b, n = _side_frames(q)
    t = _ts(cfg)[None, None, :]
    reach = grid.half + grid.width
    offsets = np.arange(-reach, reach + 1, dtype=np.float32) * grid.unit
    rows = len(q) * 4 * cfg.samples
    maps = []
    for c in (0, 1):  # x, then y: (N, 4, K) points on the side, plus offsets along its normal
        base = a[..., c, None] + t * (b - a)[..., c, None]
        maps.append(np.ascontiguousarray((base.reshape(rows, 1) + offsets[None, :] * np.repeat(n[..., c].reshape(-1, 1), cfg.samples, axis=0)), np.float32))
    map_x, map_y = maps
    bgr = np.asarray(cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.uint8)
    if gains is not None and float(np.max(gains)) > 1.0:
        bgr = np.asarray(cv2.transform(bgr, np.diag(np.asarray(gains, np.float32))), np.uint8)
    blue, green, red = cv2.split(bgr)
    lo, hi = cv2.min(blue, cv2.min(green, red)), cv2.max(blue, cv2.max(green, red))
    # as the finder's whiteness: saturates at 0 (a cloth colour is as far from card as can be)
    white = np.asarray(cv2.addWeighted(lo, 1.0, cv2.subtract(hi, lo), -sat_w, 0), np.uint8).astype(np.float32)
    out: FloatArray = white.reshape(-1, cfg.samples, white.shape[1]).astype(np.float32)
    return out


def _steps(white: FloatArray, width: int, half: int) -> tuple[FloatArray, FloatArray]:
    """Mean whiteness of the ``width`` samples inside minus that of the ``width`` outside, at
    every position that has both (position ``half`` is the finder's side).

    Inward of the finder's side the median outside counts where it is brighter than the mean:
    a printed frame line is a dark sample or two with the card's white margin right beyond, and
    a card's edge with no contrast (lying on another white card) must not make the side jump
    in onto its frame line.  Outward, a thin shadow line where a card lies on another one is
    that card's edge (measured on simulated tricks: the median rule there loses 3% of quads).
    Also returns the darker of the two sides' whiteness (white on both sides: no edge to see)."""
    c = np.concatenate([np.zeros((*white.shape[:2], 1), np.float32), np.cumsum(white, axis=2)], axis=2)
    p = white.shape[2]
    centre = np.arange(width, p - width)
    inside = (c[..., centre] - c[..., centre - width]) / width  # samples centre-width .. centre-1
    beyond = np.stack([white[..., centre + k] for k in range(1, width + 1)])  # samples centre+1 .. centre+width
    mean = beyond.mean(axis=0)
    median = np.partition(beyond[:, ..., :half], width // 2, axis=0)[width // 2]
    mean[..., :half] = np.maximum(mean[..., :half], median)
    out: FloatArray = (inside - mean).astype(np.float32)
    return out, np.minimum(inside, mean).astype(np.float32)


def _best_lines(
    steps: FloatArray, both: FloatArray, grid: _Grid, cfg: RefineConfig
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per side: the shift of its middle and the tilt of its ends (both in samples) of the
    straight line with the most step along it, and the fraction of lines across that support it."""
    k = steps.shape[1]
    t = _ts(cfg)
    shifts = np.arange(-grid.half, grid.half + 1)
    tilts = np.arange(-grid.tilt, grid.tilt + 1)
    # position (index into steps' last axis) of each line across, for each (shift, tilt)
    pos = shifts[None, :, None] + tilts[None, None, :] * (2 * t[:, None, None] - 1) + grid.half
    idx = np.clip(np.round(pos).astype(np.intp), 0, steps.shape[2] - 1)  # (K, S, T)
    # saturating, not clipped: a clip flattens the peak of a strong edge into a plateau several
    # samples wide, and the best line would sit anywhere on it
    pos_steps = np.maximum(steps, 0.0)
    clipped = pos_steps * cfg.cap / (cfg.cap + pos_steps)
    rows = np.arange(k)[:, None, None]
    score = clipped[:, rows, idx].mean(axis=1)  # (N*4, S, T)
    if cfg.move_penalty:
        # the finder's side is usually within a few % of the edge: a neighbour's stronger
        # edge further away must beat it clearly
        score = score * (1.0 - cfg.move_penalty * np.abs(shifts)[None, :, None] / max(grid.half, 1))
    flat = score.reshape(len(score), -1).argmax(axis=1)
    si, ti = np.unravel_index(flat, score.shape[1:])
    side = np.arange(len(score))
    best_idx = idx[:, si, ti].T  # (N*4, K)
    on_line = steps[side[:, None], np.arange(k)[None, :], best_idx] >= cfg.min_contrast
    if cfg.support == "consistent":
        # lines across where the line has card-white on both sides (a white check square or
        # another card beyond the edge) say nothing; the side needs most of the others
        rows_k = np.arange(k)[None, :]
        white_level = np.median(np.where(on_line, steps[side[:, None], rows_k, best_idx], np.nan), axis=1)
        blind = ~on_line & (both[side[:, None], rows_k, best_idx] >= 0.5 * np.nan_to_num(white_level, nan=255.0)[:, None])
        n_on = on_line.sum(axis=1)
        n_seen = k - blind.sum(axis=1)
        support = np.where(n_on >= cfg.min_lines * k, n_on / np.maximum(n_seen, 1), 0.0)
    else:
        support = on_line.mean(axis=1)
    # sub-sample shift: a parabola through the best score and its neighbours
    left = score[side, np.maximum(si - 1, 0), ti]
    mid = score[side, si, ti]
    right = score[side, np.minimum(si + 1, len(shifts) - 1), ti]
    den = left - 2 * mid + right
    delta = np.where((si > 0) & (si < len(shifts) - 1) & (den < -1e-6), 0.5 * (left - right) / np.where(den < -1e-6, den, -1.0), 0.0)
    shift = (shifts[si] + np.clip(delta, -0.5, 0.5)).astype(np.float32)
    return shift, tilts[ti].astype(np.float32), support.astype(np.float32)


def _lines(q: FloatArray, shift: FloatArray, tilt: FloatArray, moved: BoolArray) -> tuple[FloatArray, FloatArray]:
    """(start, end) points of each side's line, (N, 4, 2) each: moved sides on their fitted
    line, which passes ``shift - tilt`` outward of the side's start and ``shift + tilt`` of its
    end (``tilt`` is the offset at the corners relative to the middle), the others as they are."""
    a, b, n = _side_frames(q)
    sh = np.where(moved, shift.reshape(-1, 4), 0.0)[..., None]
    ti = np.where(moved, tilt.reshape(-1, 4), 0.0)[..., None]
    return (a + (sh - ti) * n).astype(np.float32), (b + (sh + ti) * n).astype(np.float32)


def _complete(
    q: FloatArray, p0: FloatArray, p1: FloatArray, moved: BoolArray, size: tuple[float, float] | None,
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """A side with no edge (hidden under another card) whose opposite side was found: put it
    parallel to that side, one card width (or length) away.  The width is measured between
    the two neighbouring sides when both were found (times the card's aspect, long / short,
    for a length); else it is the frame's card ``size`` (short, long) in px.  Returns the
    lines and which sides were placed so."""
    placed = np.zeros_like(moved)
    if size is None:
        return p0, p1, placed
    p0, p1 = p0.copy(), p1.copy()
    aspect = size[1] / size[0]
    lengths = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)
    for i, s in zip(*np.nonzero(~moved & np.roll(moved, -2, axis=1)), strict=True):
        o, left, right = (s + 2) % 4, (s + 3) % 4, (s + 1) % 4
        short_side = lengths[i, s] <= lengths[i, right]  # then the card's length lies across it
        if moved[i, left] and moved[i, right]:
            across = _distance(p0[i, left], p1[i, left], (p0[i, right] + p1[i, right]) / 2)
            along = across * aspect if short_side else across / aspect
        else:
            along = size[1] if short_side else size[0]
        d = p1[i, o] - p0[i, o]
        normal = np.array([d[1], -d[0]], np.float32) / (float(np.linalg.norm(d)) + 1e-9)
        if float(normal @ (p0[i, s] - p0[i, o])) < 0:
            normal = -normal  # towards the hidden side
        # side s runs the other way round the quad from its opposite side
        p0[i, s], p1[i, s] = p1[i, o] + along * normal, p0[i, o] + along * normal
        placed[i, s] = True
    return p0, p1, placed


def _distance(a: FloatArray, b: FloatArray, p: FloatArray) -> float:
    """Distance from ``p`` to the line through ``a`` and ``b``."""
    d = b - a
    return abs(float(d[0] * (p[1] - a[1]) - d[1] * (p[0] - a[0]))) / (float(np.linalg.norm(d)) + 1e-9)


def _corners(q: FloatArray, p0: FloatArray, p1: FloatArray, cfg: RefineConfig) -> tuple[FloatArray, BoolArray]:
    """Intersect neighbouring side lines; which results are plausible cards (convex, same
    orientation, corners moved no further than the search)."""
    d = p1 - p0
    # corner i is where side i-1 (ending at it) meets side i (starting at it)
    pp, dp = np.roll(p0, 1, axis=1), np.roll(d, 1, axis=1)
    den = dp[..., 0] * d[..., 1] - dp[..., 1] * d[..., 0]
    safe = np.where(np.abs(den) < 1e-6, 1.0, den)
    diff = p0 - pp
    s = (diff[..., 0] * d[..., 1] - diff[..., 1] * d[..., 0]) / safe
    corners = (pp + s[..., None] * dp).astype(np.float32)
    long_side = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2).max(axis=1)
    limit = 2.0 * (cfg.reach + cfg.tilt) * long_side
    ok = (np.abs(den) >= 1e-6).all(axis=1) & (np.linalg.norm(corners - q, axis=2).max(axis=1) <= limit)
    return corners, ok & _same_shape(q, corners)


def _same_shape(old: FloatArray, new: FloatArray) -> BoolArray:
    """Per quad: ``new`` is convex with the orientation of ``old`` and an area within 30%."""
    def area(p: FloatArray) -> FloatArray:
        x, y = p[..., 0], p[..., 1]
        out: FloatArray = 0.5 * (x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1)
        return out

    a_old, a_new = area(old), area(new)
    ratio = a_new / np.where(a_old == 0, np.nan, a_old)
    d = np.roll(new, -1, axis=1) - new
    turn = d[..., 0] * np.roll(d, -1, axis=1)[..., 1] - d[..., 1] * np.roll(d, -1, axis=1)[..., 0]
    convex = (np.sign(turn) == np.sign(a_new)[:, None]).all(axis=1)
    ok: BoolArray = (ratio >= 0.7) & (ratio <= 1.3) & convex
    return ok
