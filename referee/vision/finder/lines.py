"""Cards from their straight edges: four long sides of a card's proportions, with no closed outline.

A card on a surface about as light as itself (grey-white stock on speckled stone, a white card on
squared paper or lace) has no threshold that parts it from the table, and once the photo is
shrunk and JPEG-compressed its outline breaks open, so neither a whiteness blob (``blobs.py``) nor
an edge-closed region (``edges.py``) is the card.  Its four sides are still long straight edges
of one polarity each.  Here straight segments (OpenCV's line segment detector, LSD) are merged
into lines, parallel lines at a card side's distance are paired, the pairs are closed by
perpendicular lines (or by where the sides end) into rectangles of a card's aspect, and a
rectangle is kept when

- each side is an edge along most of its length: the image gradient there is across the side,
  of one sign (a card is lighter or darker than its table all along a side), over most of it;
- nothing straight runs through its middle parallel to a side for most of that side's length:
  a block of squared paper's cells, or a panel of a lace border, is split by its grid lines; a
  card's printed sides and pips are not lines across the whole card.

The segments are found at most at the image's own resolution (upscaling a small photo to the
finder's work width smooths its edges into ramps LSD breaks apart) and once per image
(:class:`LineCache`): a photo is looked at several times at different card sizes.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import FloatArray, Image
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.hypothesis import Hypothesis
from referee.vision.finder.quad import corner_gap, mean_sides
from referee.vision.finder.segmentation import white_balanced_saturation

#: Angle tolerance (degrees) for "parallel" and "perpendicular" lines.
PARALLEL_DEG = 4.0
#: An interior line parallel to a side, this long (a fraction of the side) and this far from
#: both of the side pairs (a fraction of the card's width across it), splits the quad.
SPLIT_LENGTH = 0.75
SPLIT_MARGIN = 0.18
#: The image 3 px inside a side is within this many grey levels of its median along at least
#: this fraction of the side (the card's blank margin).
MARGIN_GREY = 20.0
MARGIN_PLAIN = 0.6
#: The four sides' margins differ by at most this many grey levels (real photos shrunk to
#: 80-160 px: 95% of cards' verified quads within 38, half of the other quads over 69).
MARGIN_SPREAD = 45.0
#: At most this many quads of about one place and size (alternatives for one card).
ALTERNATIVES = 3
#: An edge across the strip between two parallel sides ends a quad where it crosses this much
#: of the strip's width; :data:`FAINT_CROSS_PROFILE` with ``FinderConfig.line_three_sides``
#: (real Napoletane photos of a grey card on grey stone at 80-100 px: its short side as light
#: as the stone crosses 0.3-0.45 of it)
CROSS_PROFILE = 0.6
FAINT_CROSS_PROFILE = 0.3
#: ``FinderConfig.line_tinted``: the saturation this many px inside and outside a side, and the
#: step between them (0..255, max minus min channel after white balance) of a card's yellowed
#: paper against neutral stone (real photos at 80 px: margin 11-20, stone beside it 3-8)
TINT_OFFSET = 5.0
TINT_STEP = 6.0


@dataclass(frozen=True)
class Lines:
    """Merged straight lines in image px: unit direction ``u`` (n, 2), unit normal ``n``,
    offset ``rho`` along the normal, extent ``t0 <= t1`` along ``u``."""

    u: FloatArray
    n: FloatArray
    rho: FloatArray
    t0: FloatArray
    t1: FloatArray
    #: -1 for a line LSD found; else the line whose far side it is (:func:`_far_sides`)
    partner: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, np.intp))

    def __len__(self) -> int:
        return len(self.rho)

    @property
    def length(self) -> FloatArray:
        out: FloatArray = (self.t1 - self.t0).astype(np.float32)
        return out


@dataclass(frozen=True)
class LineQuads:
    """One image's card-shaped quads from straight edges (image px) and their edge support."""

    quads: FloatArray  # (k, 4, 2)
    support: FloatArray  # (k,)
    #: which quads are alternatives for one card (about one place and size)
    cluster: npt.NDArray[np.intp]


@dataclass
class LineCache:
    """The last image's line quads: a photo is looked at once per card size it may hold, and
    its straight edges do not change between the looks."""

    key: tuple[int, ...] = ()
    found: LineQuads = field(default_factory=lambda: LineQuads(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.intp)))

    def quads(self, image: Image, cfg: FinderConfig) -> LineQuads:
        key = (image.shape[0], image.shape[1], zlib.crc32(np.ascontiguousarray(image).tobytes()),
               *(round(1000 * v) for v in cfg.line_support), round(1000 * (cfg.line_three_sides or 0.0)),
               round(1000 * (cfg.line_tinted or 0.0)), round(1000 * cfg.line_far_from))
        if key != self.key:
            self.key, self.found = key, line_quads(image, cfg)
        return self.found


def line_card_hypotheses(
    image: Image, scale: float, found: list[Hypothesis], cfg: FinderConfig, size: tuple[float, float] | None,
    first_group: int, cache: LineCache | None = None,
) -> list[Hypothesis]:
    """Card quads (work px: ``scale`` times image px) from ``image``'s straight edges, of the
    card ``size`` (short, long in work px) when it is known, not already proposed."""
    lq = (cache or LineCache()).quads(image, cfg)
    out: list[Hypothesis] = []
    taken = [h.quad for h in found]
    groups: dict[int, int] = {}
    for quad, support, cluster in zip(lq.quads * scale, lq.support, lq.cluster, strict=True):
        short, long_ = mean_sides(quad)
        if size is not None and not (0.8 * size[1] <= long_ <= 1.25 * size[1] and 0.75 * size[0] <= short <= 1.3 * size[0]):
            continue
        if any(corner_gap(quad, q) < 0.15 * short for q in taken):
            continue  # the same quad is already proposed
        group = groups.setdefault(int(cluster), first_group + len(groups))
        out.append(Hypothesis(quad.astype(np.float32), 1.0 + float(support) / 2, group, "line"))
        taken.append(quad)
    return out

def line_quads(image: Image, cfg: FinderConfig) -> LineQuads:
    """Card-shaped quads (image px) whose four sides are straight edges, best supported first,
    at most one per place and size."""
    height, width = image.shape[:2]
    at = min(1.0, cfg.line_max_side / max(height, width))
    small = image if at >= 1.0 else cv2.resize(image, None, fx=at, fy=at, interpolation=cv2.INTER_AREA)
    gray = np.asarray(cv2.cvtColor(np.asarray(small, np.uint8), cv2.COLOR_BGR2GRAY), np.uint8)
    h, w = gray.shape
    # a card 80 px tall in a 1280x720 frame is ~45 px wide: sides from about a third of the
    # frame's short side down to that (in the LSD image's pixels)
    min_side = max(28.0, 0.05 * min(h, w))
    found = _merged_lines(gray, 0.5 * min_side)
    empty = LineQuads(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.intp))
    if len(found) < 2:
        return empty
    smooth = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    gx = np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3), np.float32) / np.float32(8)
    gy = np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3), np.float32) / np.float32(8)
    lo, hi = max(1.35, cfg.aspect_range[0]), cfg.aspect_range[1]
    lines = _with_far_sides(found, gx, gy, min_side, 0.95 * min(h, w), from_length=cfg.line_far_from * min_side)
    # a card's fourth side as light as the table all along it is at most a faint edge across
    # the strip between two sides: the last look (three sides) takes fainter ones
    cross = CROSS_PROFILE if cfg.line_three_sides is None else FAINT_CROSS_PROFILE
    rects = _rectangles(lines, min_side, 0.95 * max(h, w), (lo, hi), gx, gy, cross)
    if not rects:
        return empty
    every = np.stack(rects)
    support = _side_support(every, smooth, gx, gy)
    # each side an edge along most of it (a fraction of it, its corners left out: cards have
    # rounded corners), and the four on average along more
    min_side_support, min_mean_support = cfg.line_support
    good = (support.min(axis=1) >= min_side_support) & (support.mean(axis=1) >= min_mean_support)
    if cfg.line_three_sides is not None:
        # or three sides edges along most of them and the fourth implied by them (where the
        # sides end, or an edge across): a side as light as the table all along it
        good |= np.sort(support, axis=1)[:, 1] >= cfg.line_three_sides
    if cfg.line_tinted is not None:
        # or its paper tinted against a neutral table inside all four sides, edges or not
        tint = _sample_tint(np.asarray(small, np.uint8))
        good |= _tint_steps(every, tint).min(axis=1) >= cfg.line_tinted
    quads = [every[i] for i in np.flatnonzero(good).tolist()]
    # ranked by their sides' support: with three sides enough, by those three (the fourth
    # says nothing of the card there)
    ranked = support if cfg.line_three_sides is None else np.sort(support, axis=1)[:, 1:]
    scores = [float(ranked[i].mean()) for i in np.flatnonzero(good).tolist()]
    if not quads:
        return empty
    # quads of about one place and size are alternatives for one card (one group: the read
    # that is surest wins); a close duplicate of a kept quad adds nothing
    order = np.argsort(-np.asarray(scores), kind="stable")
    every_good = np.stack(quads)
    centres = every_good.mean(axis=1)
    sides = np.linalg.norm(np.roll(every_good, -1, axis=1) - every_good, axis=2)
    a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    shorts, longs = np.minimum(a, b), np.maximum(a, b)
    kept: list[int] = []
    cluster: list[int] = []
    for i in order.tolist():
        if kept:
            k = np.array(kept)
            gap = np.linalg.norm(every_good[i][:, None, :] - every_good[k][:, None, :, :], axis=3).min(axis=2).max(axis=1)
            if (gap < 0.1 * shorts[k]).any():
                continue
            near = np.linalg.norm(centres[k] - centres[i], axis=1) < 0.3 * np.minimum(shorts[k], shorts[i])
            same = np.flatnonzero((near & (longs[i] / longs[k] >= 0.75) & (longs[i] / longs[k] <= 1.33))
                                  | np.array([_nested(every_good[i], every_good[j]) for j in kept]))
        else:
            same = np.zeros(0, np.intp)
        first = cluster[int(same[0])] if len(same) else max(cluster, default=-1) + 1
        if (len(same) and cluster.count(first) >= ALTERNATIVES) or _split_inside(every_good[i], found):
            continue
        kept.append(i)
        cluster.append(first)
        if len(kept) >= cfg.line_max_quads:
            break
    if not kept:
        return empty
    return LineQuads((np.stack([quads[i] for i in kept]) / at).astype(np.float32),
                     np.array([scores[i] for i in kept], np.float32), np.array(cluster, np.intp))

def _merged_lines(gray: Image, min_length: float) -> Lines:
    """LSD segments at least ``min_length / 2`` long, joined where they lie on one line (a side
    broken by a pip at the card's edge, or by JPEG blocks), kept at least ``min_length``."""
    # a light blur first: a speckled table's grain breaks a low-contrast side into pieces
    found = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(cv2.GaussianBlur(gray, (0, 0), 1.0))[0]
    if found is None:
        return _no_lines()
    segs = found.reshape(-1, 4).astype(np.float64)
    d = segs[:, 2:] - segs[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    # pieces down to a few px join into a side (at most the longest 400: a cloth makes thousands)
    keep = length >= max(4.0, 0.3 * min_length)
    segs, d, length = segs[keep], d[keep], length[keep]
    order = np.argsort(-length)[:400]
    us: list[npt.NDArray[np.float64]] = []
    rhos: list[float] = []
    spans: list[list[float]] = []
    for i in order.tolist():
        u = d[i] / length[i]
        a, b = segs[i, :2], segs[i, 2:]
        merged = False
        # a short segment's own angle is uncertain by about a pixel over its length
        cos_tol = np.cos(max(np.deg2rad(2.0), np.arctan(2.0 / length[i])))
        for k, uk in enumerate(us):
            if abs(float(u @ uk)) < cos_tol:
                continue
            nk = np.array([-uk[1], uk[0]])
            tol = max(1.5, 0.02 * length[i])
            if abs(float(a @ nk) - rhos[k]) > tol or abs(float(b @ nk) - rhos[k]) > tol:
                continue
            ta, tb = sorted((float(a @ uk), float(b @ uk)))
            t0, t1 = spans[k]
            if ta - t1 > 0.5 * (t1 - t0) + 6 or t0 - tb > 0.5 * (t1 - t0) + 6:
                continue
            spans[k] = [min(t0, ta), max(t1, tb)]
            merged = True
            break
        if not merged:
            n = np.array([-u[1], u[0]])
            us.append(u)
            rhos.append(float(a @ n))
            ta, tb = sorted((float(a @ u), float(b @ u)))
            spans.append([ta, tb])
    if not us:
        return _no_lines()
    u_arr = np.array(us, np.float32)
    span = np.array(spans, np.float32)
    lines = Lines(u_arr, np.stack([-u_arr[:, 1], u_arr[:, 0]], axis=1), np.array(rhos, np.float32), span[:, 0], span[:, 1])
    keep_long = np.flatnonzero(lines.length >= min_length)
    keep_long = keep_long[np.argsort(-lines.length[keep_long])][:80]  # the longest: a cloth makes hundreds
    return Lines(lines.u[keep_long], lines.n[keep_long], lines.rho[keep_long], lines.t0[keep_long], lines.t1[keep_long],
                 np.full(len(keep_long), -1, np.intp))


def _no_lines() -> Lines:
    z = np.zeros(0, np.float32)
    return Lines(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32), z, z, z, np.zeros(0, np.intp))


def _with_far_sides(lines: Lines, gx: FloatArray, gy: FloatArray, min_side: float, max_side: float,
                    per_line: int = 3, min_profile: float = 0.6, from_length: float | None = None) -> Lines:
    """``lines`` and, for each of the longest, the parallel lines a card side away (either way)
    along which the image is an edge over most of the line's extent: a card's far side that LSD
    saw only in pieces (a speckled table's grain, a shaded side).  From lines at least
    ``from_length`` long (default ``min_side``)."""
    h, w = gx.shape
    extra: list[tuple[FloatArray, FloatArray, float, float, float, int]] = []
    offsets = np.concatenate([-np.arange(min_side, max_side, dtype=np.float32), np.arange(min_side, max_side, dtype=np.float32)])
    for i in np.argsort(-lines.length)[:30].tolist():
        if lines.length[i] < (min_side if from_length is None else from_length):
            continue
        u, n = lines.u[i], lines.n[i]
        ts = np.linspace(lines.t0[i], lines.t1[i], 48, dtype=np.float32)[4:-4]
        base = u[None, :] * ts[:, None] + n[None, :] * lines.rho[i]  # (T, 2)
        pts = base[None, :, :] + offsets[:, None, None] * n[None, None, :]  # (D, T, 2)
        inside = (pts[..., 0] >= 0) & (pts[..., 0] <= w - 1) & (pts[..., 1] >= 0) & (pts[..., 1] <= h - 1)
        x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
        y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
        g0, g1 = gx[y, x], gy[y, x]
        across = g0 * n[0] + g1 * n[1]
        mag = np.hypot(g0, g1)
        aligned = (np.abs(across) >= 0.85 * mag) & (mag >= 3.0) & inside
        for sign_hits in (aligned & (across > 0), aligned & (across < 0)):
            # within a pixel of the offset (a side is not exactly parallel)
            near = sign_hits.copy()
            near[1:] |= sign_hits[:-1]
            near[:-1] |= sign_hits[1:]
            profile = near.mean(axis=1)
            for half in (offsets < 0, offsets > 0):
                idx = np.flatnonzero(half)
                prof = profile[idx]
                peaks = [k for k in range(len(prof)) if prof[k] >= min_profile
                         and prof[k] >= prof[max(0, k - 3) : k + 4].max()]
                for k in sorted(peaks, key=lambda k: -prof[k])[:per_line]:
                    extra.append((u, n, float(lines.rho[i] + offsets[idx[k]]), float(lines.t0[i]), float(lines.t1[i]), i))
    if not extra:
        return lines
    return Lines(np.concatenate([lines.u, np.array([e[0] for e in extra], np.float32)]),
                 np.concatenate([lines.n, np.array([e[1] for e in extra], np.float32)]),
                 np.concatenate([lines.rho, np.array([e[2] for e in extra], np.float32)]),
                 np.concatenate([lines.t0, np.array([e[3] for e in extra], np.float32)]),
                 np.concatenate([lines.t1, np.array([e[4] for e in extra], np.float32)]),
                 np.concatenate([lines.partner, np.array([e[5] for e in extra], np.intp)]))


def _rectangles(lines: Lines, min_side: float, max_side: float, aspect: tuple[float, float], gx: FloatArray,
                gy: FloatArray, cross: float = 0.6) -> list[FloatArray]:
    """Quads from two parallel lines a card side apart, closed at both ends by a perpendicular
    line between them or where the two sides end (corners where the lines meet: a card seen a
    little obliquely is not quite a rectangle)."""
    cos_par = np.cos(np.deg2rad(PARALLEL_DEG))
    dots = np.abs(lines.u @ lines.u.T)
    points = lines.n * lines.rho[:, None]  # a point of each line
    mids = lines.u * ((lines.t0 + lines.t1) / 2)[:, None] + points
    out: list[FloatArray] = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            if dots[i, j] < cos_par or lines.partner[i] >= 0 or lines.partner[j] not in (-1, i):
                continue
            u = lines.u[i] if float(lines.u[i] @ lines.u[j]) > 0 else -lines.u[i]
            nrm = lines.n[i]
            ri = float(lines.rho[i])
            rj = float(mids[j] @ nrm)
            sep = abs(rj - ri)
            if not min_side <= sep <= max_side / aspect[0]:
                continue
            # both sides' extents along u (line j's in line i's frame)
            si = np.sort(np.array([lines.u[i] * t + points[i] for t in (lines.t0[i], lines.t1[i])]) @ u)
            sj = np.sort(np.array([lines.u[j] * t + points[j] for t in (lines.t0[j], lines.t1[j])]) @ u)
            overlap = min(si[1], sj[1]) - max(si[0], sj[0])
            if overlap < -0.5 * sep:
                continue  # side pieces far apart along the sides: not one card's two sides
            lo_t, hi_t = float(min(si[0], sj[0])), float(max(si[1], sj[1]))
            centre = nrm * (ri + rj) / 2
            # where the sides end, and edges across the strip between them near or beyond that
            # (a card's rounded corner ends its straight sides short of the card's ends, and a
            # side seen in pieces may end well short of them)
            reach = aspect[1] * sep
            found_ends = _cross_edges(u, nrm, ri, rj, (lo_t - reach, hi_t + reach), gx, gy, cross)
            ends = [(t, u * t + centre, nrm) for t in [lo_t, hi_t, *found_ends]]
            # perpendicular lines between the two, near or beyond where the sides end
            for k in np.flatnonzero((dots[i] <= np.sin(np.deg2rad(PARALLEL_DEG))) & (lines.partner < 0)).tolist():
                t = float(mids[k] @ u)
                if not lo_t - 0.3 * sep <= t <= hi_t + 0.3 * sep:
                    continue
                across = np.sort(np.array([lines.u[k] * tk + points[k] for tk in (lines.t0[k], lines.t1[k])]) @ nrm)
                cover = min(across[1], max(ri, rj)) - max(across[0], min(ri, rj))
                if cover >= 0.4 * sep:
                    ends.append((t, mids[k], lines.u[k]))
            ends.sort(key=lambda e: e[0])
            for a in range(len(ends)):
                for b in range(a + 1, len(ends)):
                    length = ends[b][0] - ends[a][0]
                    if length < min_side:
                        continue
                    ratio = max(length, sep) / min(length, sep)
                    if not aspect[0] <= ratio <= aspect[1] or max(length, sep) > max_side:
                        continue
                    corners = [_meet(points[side], lines.u[side], end[1], end[2])
                               for side, end in ((i, ends[a]), (i, ends[b]), (j, ends[b]), (j, ends[a]))]
                    out.append(np.array(corners, np.float32))
    return out


def _cross_edges(u: FloatArray, nrm: FloatArray, ri: float, rj: float, span: tuple[float, float], gx: FloatArray,
                 gy: FloatArray, min_profile: float = 0.6, most: int = 6) -> list[float]:
    """Positions along ``u`` within ``span`` where the strip between the parallel lines at
    ``ri`` and ``rj`` (offsets along ``nrm``) is crossed by an edge over most of its width."""
    h, w = gx.shape
    ts = np.arange(span[0], span[1], 1.0, dtype=np.float32)
    ss = np.linspace(0.12, 0.88, 16, dtype=np.float32) * (rj - ri) + ri
    pts = u[None, None, :] * ts[:, None, None] + nrm[None, None, :] * ss[None, :, None]  # (T, S, 2)
    inside = (pts[..., 0] >= 0) & (pts[..., 0] <= w - 1) & (pts[..., 1] >= 0) & (pts[..., 1] <= h - 1)
    x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
    g0, g1 = gx[y, x], gy[y, x]
    along = g0 * u[0] + g1 * u[1]
    aligned = (np.abs(along) >= 0.85 * np.hypot(g0, g1)) & (np.abs(along) >= 3.0) & inside
    out: list[tuple[float, float]] = []
    for hits in (aligned & (along > 0), aligned & (along < 0)):
        near = hits.copy()
        near[1:] |= hits[:-1]
        near[:-1] |= hits[1:]
        prof = near.mean(axis=1)
        out += [(float(prof[k]), float(ts[k])) for k in range(len(prof))
                if prof[k] >= min_profile and prof[k] >= prof[max(0, k - 3) : k + 4].max()]
    return [t for _, t in sorted(out, reverse=True)[:most]]


def _meet(p: FloatArray, d: FloatArray, q: FloatArray, e: FloatArray) -> FloatArray:
    """Where the line through ``p`` along ``d`` meets the line through ``q`` along ``e``
    (nearly perpendicular here)."""
    det = float(d[0] * -e[1] + e[0] * d[1])
    r = q - p
    s = float(r[0] * -e[1] + e[0] * r[1]) / det
    out: FloatArray = (p + s * d).astype(np.float32)
    return out


def _side_support(quads: FloatArray, gray: FloatArray, gx: FloatArray, gy: FloatArray, min_grad: float = 3.0,
                  min_step: float = 3.0, samples: int = 32) -> FloatArray:
    """(k, 4): per quad and side, the fraction of the side (its corners' tenth at each end left
    out) where the gradient within a pixel of it points across the side with the side's
    prevailing sign, and the image a few px inside differs from the image a few px outside the
    same way: a step from card to table, not a thin line (a paper's grid line crossed at a
    slant, a drawn border) with the same on both sides."""
    h, w = gx.shape
    q = quads.astype(np.float32)  # (k, 4, 2)
    a, b = q, np.roll(q, -1, axis=1)
    length = np.maximum(np.linalg.norm(b - a, axis=2, keepdims=True), 1e-3)
    u = (b - a) / length
    n = np.stack([-u[..., 1], u[..., 0]], axis=-1)
    outward = np.sign(np.einsum("ksd,ksd->ks", a - q.mean(axis=1, keepdims=True), n))[..., None]
    n = n * np.where(outward == 0, 1.0, outward)
    ts = np.linspace(0.1, 0.9, samples, dtype=np.float32)
    offsets = np.array([-1.0, 0.0, 1.0], np.float32)
    # (k, 4, offsets, samples, 2)
    on_side = a[:, :, None, None, :] + (ts[None, None, None, :, None] * (b - a)[:, :, None, None, :])
    pts = on_side + offsets[None, None, :, None, None] * n[:, :, None, None, :]
    x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
    g0, g1 = gx[y, x], gy[y, x]
    across = g0 * n[:, :, None, None, 0] + g1 * n[:, :, None, None, 1]
    mag = np.hypot(g0, g1)
    aligned = (np.abs(across) >= 0.85 * mag) & (mag >= min_grad)
    # outward minus inward, 3 px either side: (k, 4, 1, samples)
    step = _sample(gray, on_side + 3 * n[:, :, None, None, :]) - _sample(gray, on_side - 3 * n[:, :, None, None, :])
    # a card's blank margin runs inside each side: the image just inside is about one grey
    # along most of the side (a side drawn along a row of pips or through lace is not)
    inner = _sample(gray, on_side - 3 * n[:, :, None, None, :])[:, :, 0]  # (k, 4, samples)
    plain = (np.abs(inner - np.median(inner, axis=2, keepdims=True)) <= MARGIN_GREY).mean(axis=2) >= MARGIN_PLAIN
    # and one stock all round: the margins of the four sides about one grey (a quad closed by a
    # table's edge has table inside some sides and card inside others)
    medians = np.median(inner, axis=2)
    plain &= (medians.max(axis=1) - medians.min(axis=1) <= MARGIN_SPREAD)[:, None]
    pos = (aligned & (across > 0) & (step >= min_step)).any(axis=2).mean(axis=2) * plain
    neg = (aligned & (across < 0) & (step <= -min_step)).any(axis=2).mean(axis=2) * plain
    # either sign, side by side: a shaded table is darker than the card on one side and lighter
    # on another
    out: FloatArray = np.maximum(pos, neg).astype(np.float32)
    return out


def _tint_steps(quads: FloatArray, tint: FloatArray, offset: float = TINT_OFFSET, samples: int = 24) -> FloatArray:
    """(k, 4): per quad and side, the fraction of the side (its corners' tenth at each end left
    out) where the saturation ``offset`` px inside exceeds that ``offset`` px outside by
    :data:`TINT_STEP` or more."""
    q = quads.astype(np.float32)
    a, b = q, np.roll(q, -1, axis=1)
    u = (b - a) / np.maximum(np.linalg.norm(b - a, axis=2, keepdims=True), 1e-3)
    n = np.stack([-u[..., 1], u[..., 0]], axis=-1)
    outward = np.sign(np.einsum("ksd,ksd->ks", a - q.mean(axis=1, keepdims=True), n))[..., None]
    n = n * np.where(outward == 0, 1.0, outward)
    ts = np.linspace(0.1, 0.9, samples, dtype=np.float32)
    on_side = a[:, :, None, :] + ts[None, None, :, None] * (b - a)[:, :, None, :]  # (k, 4, samples, 2)
    shift = (offset * n[:, :, None, :]).astype(np.float32)
    inside, outside = _sample(tint, (on_side - shift).astype(np.float32)), _sample(tint, (on_side + shift).astype(np.float32))
    out: FloatArray = (np.subtract(inside, outside) >= TINT_STEP).mean(axis=2).astype(np.float32)
    return out


def _sample_tint(image: Image) -> FloatArray:
    """The white-balanced saturation (``segmentation.white_balanced_saturation``), blurred
    over a JPEG's colour noise."""
    sat = white_balanced_saturation(image).astype(np.float32)
    out: FloatArray = np.asarray(cv2.GaussianBlur(sat, (0, 0), 1.5), np.float32)
    return out


def _nested(a: FloatArray, b: FloatArray, inside: float = 0.85, min_ratio: float = 0.35) -> bool:
    """Whether the smaller of two quads lies inside the larger and is a good part of it: one
    card and a quad around it closed by a straight edge beyond it (a table's edge), not a card
    and a pip box inside it."""
    area_a, area_b = float(cv2.contourArea(a)), float(cv2.contourArea(b))
    small, large = (a, b) if area_a <= area_b else (b, a)
    lo, hi = min(area_a, area_b), max(area_a, area_b)
    if hi <= 0 or lo < min_ratio * hi:
        return False
    inter, _ = cv2.intersectConvexConvex(small.astype(np.float32), large.astype(np.float32))
    return float(inter) >= inside * lo


def _sample(image: FloatArray, pts: FloatArray) -> FloatArray:
    """``image`` at the nearest pixel to each point (clipped to the image)."""
    h, w = image.shape
    x = np.clip(np.rint(pts[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.intp), 0, h - 1)
    out: FloatArray = image[y, x]
    return out


def _split_inside(quad: FloatArray, lines: Lines) -> bool:
    """Whether a straight line runs through the quad's middle parallel to one of its sides for
    most of that side's length (grid lines through a block of cells)."""
    o = quad[0].astype(np.float64)
    e1, e2 = (quad[1] - quad[0]).astype(np.float64), (quad[3] - quad[0]).astype(np.float64)
    basis = np.linalg.inv(np.stack([e1, e2], axis=1))
    ends = [lines.u * t[:, None] + lines.n * lines.rho[:, None] for t in (lines.t0, lines.t1)]
    c0, c1 = ((basis @ (e - o).T) for e in ends)  # (2, m): coordinates along e1, e2 (0..1 inside)
    for ax in (0, 1):
        along0, along1, across0, across1 = c0[ax], c1[ax], c0[1 - ax], c1[1 - ax]
        mid = (across0 + across1) / 2
        span = np.clip(np.maximum(along0, along1), 0, 1) - np.clip(np.minimum(along0, along1), 0, 1)
        split = (np.abs(across1 - across0) <= 0.05) & (mid >= SPLIT_MARGIN) & (mid <= 1 - SPLIT_MARGIN) & (span >= SPLIT_LENGTH)
        if split.any():
            return True
    return False


def _same_card(a: FloatArray, b: FloatArray) -> bool:
    """Two quads at one place and of about one size (one card's quad found twice)."""
    sa, sb = mean_sides(a), mean_sides(b)
    near = float(np.hypot(*(a.mean(axis=0) - b.mean(axis=0)))) < 0.3 * min(sa[0], sb[0])
    return near and 0.75 <= sa[1] / sb[1] <= 1.33

