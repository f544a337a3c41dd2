"""The card's size in the frame, estimated in one place (:class:`CardSize`).

Everything that needs the card's size (the finder cutting quads and splitting tricks, the
stock-card search, the photo reader's and the live loop's searches for a size, the tracker's
distances) reads it here.  Its sources, strongest first: the layout (a fixed card height); the
card edges of sure reads (:class:`EdgeSizes`, the live loop); quads the recogniser confirmed,
or a size a caller assumes to try it; single printed cards' blobs, until a card is confirmed;
a fraction of the frame height.  The size the outline splitter fitted to a trick's edges
(:class:`SizeMemo`) and the tracker's size of recent reads (:class:`ReadSizes`) live here too.

**Edges, not quads.**  Why not the sure reads' quads themselves: most quads of a trick are
*built* at the expected card size (outline and corner rectangles, the briscola extended from its visible part), so a
sure read of one only confirms the size it was built with, and a sure read of a badly cut
quad moves it.  Measured on a simulated deal (briscola-2 seed 2, Napoletane print of aspect
1.38 on the check cloth): learning from the quads let the size wander from 73x102 px to
62x92 (aspect 1.5); the trick quads then cut the card's outer pips off and coppe_5 was read
as coppe_3 surely, frame after frame.  Fitting the four sides of a sure quad to the card's
edges (``refine.card_sizes``) measures the card itself, within 3% on every print and cloth
of ``vision_e2e.py`` (the low-resolution prints' soft edges read ~3% small), so the size
follows the cards whatever their aspect (Italian and French prints run from 1.35 to 1.75).

The size is the median of the last ``window`` measurements: one odd card (a quad over two
cards whose outer edges happen to fit) does not move it.  Until a card has been measured,
:class:`CardSize` keeps its guess (blob shapes, size priors, sure reads' quads).

**Before the first measurement** the quads are cut at that guess, and a guess far off (the
first sure read was an arm, or a card held up near the camera) cuts every card's quad so wrong
that no side lies within the fit's reach of its edge: nothing is ever measured and the guess
stays.  Measured on a simulated deal (briscola-chiamata seed 1, Trevisane on the check
cloth): starting it from 72x132 or 98x173 px for cards of 55x99 put off
the first measurement from 13.7 s to 29-32 s of the deal and cost 12-13 operator questions
instead of 1 (with what follows, and the live loop's search for a size no sure read confirms,
``live.LOST_FRAMES``: 5 and 2).  So until something is measured, the sure quad of a card lying still is also
tried rescaled about its centre and about each corner (``bootstrap_scales``: the fit's reach of
12% of the long side a side covers the steps between them), and such measurements count only
once two cards, apart, agree (``agree``) and show a card's white margin inside the fitted sides
(``min_margin``): a rescaled quad can fit something that is not one card (a held card half under
the hand measured 54x75 px for 55x99 cards; a rectangle of check squares 118x166 px).  The
margin test applies to every fit, the ordinary ones too: four sides can lie on the edges of a
check cloth's squares.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import FloatArray, Image
from referee.vision.refine import measured_sizes, white_gains, white_margin

if TYPE_CHECKING:
    from referee.vision.finder.config import FinderConfig
    from referee.vision.finder.quad import Contour

#: (short, long) card side
Size = tuple[float, float]
Mask = npt.NDArray[np.uint8]


@dataclass
class CardSize:
    """The card size (short, long) in image px: ``size`` once anything gave one.

    ``expected(...)`` is the size to cut quads at this frame (work px), ``observe(quads,
    image)`` learns from sure reads, ``reset()`` forgets it all (a new table, another photo).
    """

    size: Size | None = None
    #: the size came from confirmed cards (or an assumed size): trust it over blob shapes
    observed: bool = False
    edges: EdgeSizes = field(default_factory=lambda: EdgeSizes())  # measured on card edges (live)
    fitted: SizeMemo = field(default_factory=lambda: SizeMemo())  # fitted to a trick's outlines

    @property
    def measured(self) -> bool:
        """Whether the size has been measured on a card's edges, not only taken from quads."""
        return self.edges.size is not None

    def reset(self) -> None:
        self.size = None
        self.observed = False
        self.fitted = SizeMemo()
        self.edges.reset()

    def expected(self, frame_height: int, scale: float, cfg: FinderConfig, raw: Mask, filled: Mask,
                 outlines: Sequence[Contour] | None = None) -> Size:
        """Card (short, long) side in work px (image px times ``scale``): the layout's, else
        confirmed cards', else single printed cards' blobs in the work-scale whiteness mask
        (``raw``; ``filled``: its holes filled, ``outlines`` its blobs' when traced already;
        :func:`blob_card_sizes`), else a fraction of
        the frame height."""
        if cfg.card_height is not None:
            long_ = cfg.card_height * scale
            return long_ / 1.6, long_
        if not self.observed:
            measured = blob_card_sizes(raw, filled, cfg, outlines)
            if measured:
                s, l_ = np.median(np.array(measured), axis=0)
                size = (float(s) / scale, float(l_) / scale)
                # smooth: one odd blob must not resize everything
                self.size = size if self.size is None else _blend(self.size, size, 0.7)
        if self.size is not None:
            return self.size[0] * scale, self.size[1] * scale
        long_ = cfg.default_height_frac * frame_height * scale
        return long_ / 1.6, long_

    def observe(self, quads: FloatArray, image: Image | None, aspect_range: tuple[float, float]) -> bool:
        """Learn the size from quads the classifier confirmed as cards (image px).

        With ``image`` (the live loop) the size is measured on the card edges under the quads
        (a quad built at the expected size cannot confirm that size); once a card has been
        measured so, quads alone no longer move it.  Without, or until then, quads of a card's
        shape (a sure read of a badly cut quad must not set the size) are blended in.  Returns
        whether the size was learned from them.
        """
        q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        if image is not None:
            measured = self.edges.update(image, q)
            if measured is not None:
                self.size, self.observed = measured, True
                return True
        a = np.linalg.norm(q[:, 1] - q[:, 0], axis=1)
        b = np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
        short, long_ = np.minimum(a, b), np.maximum(a, b)
        lo, hi = aspect_range
        ok = (short > 0) & (long_ >= lo * short) & (long_ <= hi * short)
        if not ok.any():
            return False
        size = (float(np.median(short[ok])), float(np.median(long_[ok])))
        self.size = size if not self.observed or self.size is None else _blend(self.size, size, 0.3)
        self.observed = True
        return True


def blob_card_sizes(raw: Mask, filled: Mask, cfg: FinderConfig, outlines: Sequence[Contour] | None = None) -> list[Size]:
    """(short, long) of blobs that look like one card *and* have printing inside.

    The printing test (holes in the raw whiteness) is what tells a card from a white check
    square or a paper napkin of card shape: blank white is cloth, a card always has pips.
    """
    sizes: list[Size] = []
    if outlines is None:
        outlines = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
    for c in outlines:
        area = cv2.contourArea(c)
        if area < 150 or area > cfg.max_card_frac * raw.size:  # a white board is not a card
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(c)
        s, l_ = min(w, h), max(w, h)
        if not (s > 0 and cfg.aspect_range[0] <= l_ / s <= cfg.aspect_range[1] and area >= 0.85 * w * h):
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        blob = filled[y : y + bh, x : x + bw] > 0
        ink = float(np.count_nonzero(blob & (raw[y : y + bh, x : x + bw] == 0))) / max(1, int(np.count_nonzero(blob)))
        if ink >= cfg.min_ink:
            sizes.append((s, l_))
    return sizes


def prior_quad(shape: tuple[int, ...], frac: float) -> FloatArray:
    """A card-shaped quad whose long side is ``frac`` of the frame height: a size to try
    (:meth:`CardSize.observe` it) when nothing has given one."""
    h = frac * shape[0]
    w = h / 1.6
    return np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32)


def _blend(old: Size, new: Size, w: float) -> Size:
    return (1 - w) * old[0] + w * new[0], (1 - w) * old[1] + w * new[1]


@dataclass
class SizeMemo:
    """The card size the outline splitter fitted on an earlier frame (work px), reused while
    the expected size it was fitted from stays within 10%: fitting costs several times the
    rest of the split."""

    expected: Size | None = None
    fitted: Size | None = None

    def lookup(self, short: float, long_: float) -> Size | None:
        if self.expected is None or abs(self.expected[1] - long_) > 0.1 * long_:
            return None
        return self.fitted


class ReadSizes:
    """The tracker's card size: the median long side of the last ``window`` reads (px), 0.0
    before any."""

    def __init__(self, window: int = 300) -> None:
        self._sizes: deque[float] = deque(maxlen=window)
        self.size = 0.0

    def add(self, long_sides: Iterable[float]) -> float:
        """Take this frame's reads' long sides; returns :attr:`size`."""
        self._sizes.extend(float(v) for v in long_sides)
        self.size = float(np.median(self._sizes)) if self._sizes else 0.0
        return self.size


@dataclass
class EdgeSizes:
    """``edges.update(image, sure_quads)`` -> (short, long) in image px, or None until measured."""

    #: measurements the median runs over (a few cards' worth: each card is measured once
    #: while it lies still)
    window: int = 24
    #: a quad within this many px (every corner) of one measured on the last call is the same
    #: card lying still: not measured again
    same_px: float = 1.0
    #: while nothing is measured: the scales (about its centre and about each corner) a still sure
    #: quad is tried at; () = off
    bootstrap_scales: tuple[float, ...] = (0.5, 0.6, 0.72, 0.86, 1.2, 1.45)
    #: bootstrap measurements count once two of cards at least half a card width apart agree
    #: within this fraction
    agree: float = 0.08
    #: a fit must show a card's white margin inside its sides (``refine.white_margin``): four
    #: sides fitted to a check cloth's square edges are not a card
    min_margin: float = 0.8
    _sizes: deque[tuple[float, float]] = field(default_factory=deque)
    _last: FloatArray = field(default_factory=lambda: np.zeros((0, 4, 2), np.float32))
    #: bootstrap measurements: (short, long, centre x, centre y)
    _pending: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: centres of the still quads tried rescaled (each card lying still is tried once)
    _tried: list[tuple[float, float]] = field(default_factory=list)

    @property
    def size(self) -> tuple[float, float] | None:
        """Median (short, long) of the recent measurements; None before the first."""
        if not self._sizes:
            return None
        a = np.array(self._sizes, np.float64)
        return float(np.median(a[:, 0])), float(np.median(a[:, 1]))

    def update(self, image: Image, quads: FloatArray) -> tuple[float, float] | None:
        """Measure the cards under ``quads`` (sure reads, image px) that were not measured on
        the last call; returns :attr:`size`."""
        q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        fresh, still = q, q[:0]
        if len(q) and len(self._last):
            gap = np.abs(q[:, None] - self._last[None]).max(axis=(2, 3)).min(axis=1)
            fresh, still = q[gap > self.same_px], q[gap <= self.same_px]
        self._last = q
        gains = None
        if len(fresh):
            gains = white_gains(image[::2, ::2])
            sizes, _, corners = measured_sizes(image, fresh, gains)
            for (short, long_), margin in zip(sizes.tolist(), white_margin(image, corners, gains).tolist(), strict=True):
                if margin >= self.min_margin:
                    self._add((short, long_))
        if not self._sizes and self.bootstrap_scales and len(still):
            # a card lying still on the table (a held card moves, and a hand may cover part of it)
            untried = still[[not self._was_tried(c) for c in still.mean(axis=1)]]
            if len(untried):
                self._tried += [(float(x), float(y)) for x, y in untried.mean(axis=1)]
                del self._tried[:-256]
                gains = white_gains(image[::2, ::2]) if gains is None else gains
                self._pending += self._rescaled(image, untried, gains)
                for size in _agreeing(self._pending, self.agree):
                    self._add(size)
        return self.size

    def _was_tried(self, centre: FloatArray) -> bool:
        return any(abs(x - float(centre[0])) <= 3 * self.same_px and abs(y - float(centre[1])) <= 3 * self.same_px
                   for x, y in self._tried)

    def _add(self, size: tuple[float, float]) -> None:
        self._sizes.append(size)
        if len(self._sizes) > self.window:
            self._sizes.popleft()

    def _rescaled(self, image: Image, quads: FloatArray, gains: FloatArray) -> list[tuple[float, float, float, float]]:
        """One measurement per quad that fits the card's edges at one of the bootstrap scales,
        about its centre or about one of its corners (a quad built from one corner of a card at
        the wrong size lies off the card's centre too): the first fit at the scale nearest 1,
        the least change to the quad the recogniser read."""
        found: dict[int, tuple[float, float, float, float]] = {}
        centres = quads.mean(axis=1)
        anchors = np.concatenate([quads.mean(axis=1, keepdims=True), quads], axis=1)  # (N, 5, 2)
        for scale in sorted(self.bootstrap_scales, key=lambda f: abs(np.log(f))):
            for a in range(anchors.shape[1]):
                left = [i for i in range(len(quads)) if i not in found]
                if not left:
                    return list(found.values())
                pivot = anchors[left, a][:, None]
                scaled = (pivot + (quads[left] - pivot) * scale).astype(np.float32)
                sizes, fitted, corners = measured_sizes(image, scaled, gains)
                white = white_margin(image, corners, gains)
                for size, j, margin in zip(sizes.tolist(), fitted.tolist(), white.tolist(), strict=True):
                    if margin < self.min_margin:
                        continue
                    cx, cy = centres[left[j]].tolist()
                    found[left[j]] = (size[0], size[1], cx, cy)
        return list(found.values())

    def reset(self) -> None:
        self._sizes.clear()
        self._pending.clear()
        self._tried.clear()
        self._last = np.zeros((0, 4, 2), np.float32)


def _agreeing(found: list[tuple[float, float, float, float]], tolerance: float) -> list[tuple[float, float]]:
    """The sizes of the largest group of ``found`` (short, long, centre) within ``tolerance``
    (both sides) of one of them, when the group holds two cards at least half a card's width
    apart (not one card measured twice); else none."""
    if len(found) < 2:
        return []
    a = np.array(found, np.float64)
    sizes, centres = a[:, :2], a[:, 2:]
    close: npt.NDArray[np.bool_] = np.asarray((np.abs(sizes[:, None] - sizes[None]) <= tolerance * sizes[None]).all(axis=2))
    best = int(close.sum(axis=0).argmax())
    group = np.flatnonzero(close[:, best])
    apart = np.linalg.norm(centres[group][:, None] - centres[group][None], axis=2).max()
    if len(group) < 2 or apart < 0.5 * sizes[best, 0]:
        return []
    return [(float(sizes[i, 0]), float(sizes[i, 1])) for i in group]
