"""Find card-sized pieces of white card stock in a frame: quads plus rectified portrait crops.

Why this method (measured on ``finder_scenes`` and simulator frames, see README "Table vision"):
plain contour finding on edges drowns in the lines of check and stripe cloths.  Card stock is
bright *and* unsaturated, which a red/white check shares only in small squares and a stripe
cloth only in thin bands, so we

1. segment "whiteness" (``min(B,G,R) - k * saturation``, Otsu threshold clamped to a sane
   range) at a reduced working width (640 px: ~1 ms per step instead of ~4);
2. fill the holes the card figures leave, then open with a kernel ~15% of a card's short side,
   which erases check squares and stripe bands glued to a card while a card survives;
3. take each blob: a blob that looks like one card (rectangular, card aspect, card area) gives
   its own quad; any other blob (overlapping trick cards, a card touching a white stripe) is
   explained by *card hypotheses* grown from its right-angle corners with the card size known
   from the single cards (or the layout).  A convex corner of a union of cards is always a
   corner of one of them, so every card with one visible corner gets a hypothesis; hypotheses
   are scored by how much of them is white and how much of their outline is a blob border,
   then accepted greedily while they explain new area;
4. a rectangle one card wide but only part of a card long (the briscola half under the stock)
   is extended both ways to a full card; the two hypotheses share a ``group`` and the
   classifier keeps the better one.

The finder over-proposes on purpose: the classifier's ``back`` class (face-down cards, cloth,
the stock) and its confidence are the precision stage (``referee.vision.pipeline``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import RefereeError
from referee.vision.card_size import CardSizeModel
from referee.vision.detections import Detections, FloatArray, Image
from referee.vision.outline import SizeMemo, outline_quads
from referee.vision.refine import RefineCache, RefineConfig, refine_quads, white_gains

Mask = npt.NDArray[np.uint8]
#: OpenCV contours (its stubs type them loosely)
Contour = npt.NDArray[Any]


class FrameError(RefereeError, ValueError):
    """A frame that is not an 8-bit BGR image."""


@dataclass(frozen=True)
class FinderConfig:
    """Knobs of :class:`CardFinder`; defaults suit a 1280x720 top-down table view."""

    work_width: int = 640
    #: (w, h) of the rectified portrait crops: the classifier's input size.
    crop_size: tuple[int, int] = (64, 112)
    #: Card long side in full-frame pixels when the layout knows it; None = estimate per frame.
    card_height: float | None = None
    #: Fallback card long side as a fraction of the frame height before any card was measured.
    default_height_frac: float = 0.17
    aspect_range: tuple[float, float] = (1.25, 2.2)
    saturation_weight: float = 1.5
    #: The Otsu threshold on whiteness is clamped into this range (dark room .. white cloth).
    white_threshold: tuple[int, int] = (80, 200)
    min_coverage: float = 0.9
    #: A corner hypothesis scoring this (fully white, outline mostly free) is accepted at once.
    sure_score: float = 1.1
    #: Opening kernel as a fraction of the card's short side: erases check squares and stripe
    #: bands narrower than that (glued to a card or not) while whole cards survive.
    open_frac: float = 0.3
    #: Corner hypotheses also come from the blob opened with this (wider) disc.
    smooth_corners: bool = True
    smooth_open_frac: float = 0.5
    max_candidates: int = 24
    #: Also look with a second, higher threshold (Otsu among the brighter pixels): cards on a
    #: light table. Doubles the segmentation work, so it is for photos (``referee detect``).
    upper_threshold: bool = False
    #: No card covers more than this fraction of the frame (a white table or board would).
    max_card_frac: float = 0.3
    #: Also propose card-shaped regions closed by edges (a white card on a white or light
    #: table has no whiteness contrast, but it has an outline).  None = only when the table
    #: looks light (more than ``light_table_frac`` of the frame passes as card stock).
    edge_regions: bool | None = None
    light_table_frac: float = 0.3
    #: Fraction of a blob that must be non-white printing for it to count as a card when
    #: measuring the card size (a white check square has none).
    min_ink: float = 0.02
    #: Blobs larger than this many cards are cloth (a bright table), not cards.
    max_blob_cards: float = 8.0
    #: How blobs of overlapping cards are split: "corners" (rectangles grown from the blob's
    #: right-angle corners), "outline" (card outlines inside the blob, ``outline.py``), or
    #: "both" (outline rectangles, then corner rectangles not already proposed).
    split: str = "both"
    #: Split a blob by outlines only once it is the same in two frames running (the live loop:
    #: the tracker takes still cards only, and splitting costs ~10x the rest of a frame); off
    #: for single photos.
    split_when_still: bool = False
    #: Fit every quad's sides to the card edges in the full frame (``refine.py``); None = off.
    refine: RefineConfig | None = field(default_factory=RefineConfig)
    #: Refine in the live loop too (``split_when_still``).  Off: on simulated deals
    #: (``vision_e2e.py --seeds 2``, 10 deals) it made 2 more trick winners right but 3 refused
    #: questions and 7 false violation calls (0 without), as the tracker and arbiter were tuned
    #: on the unrefined quads; single frames and photos (``referee detect``) gain clearly.
    refine_live: bool = False
    #: Also propose the unrefined quad where the fit moved it, as an alternative for the same
    #: card (the classifier keeps the better read).  On photos the size is a guess at first and
    #: a quad the wrong size can have its sides fitted onto the printed figures inside the
    #: card.  None = with ``upper_threshold`` (single photos: twice the crops to read).
    keep_unrefined: bool | None = None


@dataclass(frozen=True)
class _Hypothesis:
    quad: FloatArray  # (4, 2) work-scale corners, c0 + u*a, + v*b ...
    score: float
    group: int
    #: how it was found: "single"/"edge" (its own outline: measures the card size) or
    #: "partial"/"outline"/"corner" (built from the expected card size)
    kind: str = ""


@dataclass
class CardFinder:
    """``CardFinder().find(bgr_image) -> Detections`` (quads in image px, crops, groups).

    Keeps a running estimate of the card size between frames (cards do not change size).
    """

    config: FinderConfig = field(default_factory=FinderConfig)
    _card_size: tuple[float, float] | None = None  # (short, long) in full-frame px
    _observed: bool = False  # the size came from classified cards: trust it over blob shapes
    _fitted: SizeMemo = field(default_factory=SizeMemo)  # the size fitted to a trick's outlines
    _splits: SplitCache = field(default_factory=lambda: SplitCache())
    _refined: RefineCache = field(default_factory=RefineCache)
    _sizes: CardSizeModel = field(default_factory=CardSizeModel)  # measured on card edges (live)
    #: the last frame's hypothesis kinds by quad centre (rounded image px): diagnostics
    last_kinds: dict[tuple[int, int], str] = field(default_factory=dict)

    def find(self, image: Image, focus: FloatArray | None = None) -> Detections:
        """Card quads and crops in ``image``.  ``focus`` (a polygon in image pixels, e.g. the
        layout's play area) limits the costly splitting of overlapping cards to blobs that
        touch it; single cards are found everywhere."""
        _check_frame(image)
        cfg = self.config
        scale = cfg.work_width / image.shape[1]
        focus_work = None if focus is None else (np.asarray(focus, np.float32) * scale).reshape(-1, 1, 2)
        small = np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
        white = whiteness(small, cfg)
        thresholds = _thresholds(white, cfg)
        hyps: list[_Hypothesis] = []
        for i, thr in enumerate(thresholds):
            raw = _binary(white, thr)
            mask = fill_holes(raw)
            if i == 0:
                short, long_ = self._expected_size(image, raw, mask, scale)
            k = min(25, max(3, round(cfg.open_frac * short))) | 1  # capped: an ellipse's cost grows as k^2
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            opened = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), np.uint8)
            known = self._card_size is not None or cfg.card_height is not None
            fit = None if self._observed else self._fitted
            self._splits.pass_no = i
            more = _hypotheses(opened, short, long_, self._split_config(), known, focus_work, white, fit, self._splits)
            more += _thin_card_hypotheses(mask, short, long_, more, first_group=len(more))
            if focus_work is not None:
                more += _strip_card_hypotheses(mask, opened, short, long_, focus_work, first_group=len(more))
            hyps += _new_only(more, hyps, short, first_group=len(hyps))
        light_table = float(np.count_nonzero(white >= thresholds[0])) > cfg.light_table_frac * white.size
        if cfg.edge_regions or (cfg.edge_regions is None and light_table):
            hyps += _edge_card_hypotheses(small, hyps, cfg, first_group=len(hyps))
        self._splits.roll()
        hyps = sorted(hyps, key=lambda h: -h.score)[: cfg.max_candidates]
        self.last_kinds = {}
        if not hyps:
            return Detections.empty()
        quads = np.stack([_portrait_order(h.quad) for h in hyps]) / scale
        self.last_kinds = {_key(q): h.kind for q, h in zip(quads, hyps, strict=True)}
        groups = np.array([h.group for h in hyps], np.int32)
        strips = np.array([h.kind == "strip" for h in hyps])
        if strips.any() and not (cfg.refine is not None and (cfg.refine_live or not cfg.split_when_still)):
            # a strip gives a card's edge, not where along it the card lies: its sides are fitted
            quads[strips] = refine_quads(image, quads[strips], white_gains(small), cfg.saturation_weight,
                                         cfg.refine or RefineConfig(), self._card_size)[0]
        if cfg.refine is not None and (cfg.refine_live or not cfg.split_when_still):
            raw = quads
            quads = self._refined.refine(image, quads, white_gains(small), cfg.saturation_weight, cfg.refine, self._card_size)
            keep_raw = cfg.keep_unrefined if cfg.keep_unrefined is not None else cfg.upper_threshold
            if keep_raw:
                quads, groups = _with_unrefined(quads, raw, groups)
        crops = [rectify(image, q, cfg.crop_size) for q in quads]
        return Detections(quad=quads.astype(np.float32), crops=crops, group=groups)

    def _split_config(self) -> FinderConfig:
        """Outline splitting needs a card size within ~15%: the layout's, the recogniser's, or
        one fitted over a live table's frames.  A single photo's first look guesses the size
        from blobs, and outlines then fit a court card's printed frame as a card (measured on
        the pinochle photos: precision 87% -> 79%), so it splits by corners only until a read
        card gives the size (``FramePipeline.process_still`` looks again then)."""
        cfg = self.config
        if cfg.split == "corners" or self._observed or cfg.card_height is not None or cfg.split_when_still:
            return cfg
        return replace(cfg, split="corners")

    def reset(self) -> None:
        """Forget the card size (a new table, or an unrelated photo)."""
        self._card_size = None
        self._observed = False
        self._fitted = SizeMemo()
        self._splits = SplitCache()
        self._refined = RefineCache()
        self._sizes.reset()

    @property
    def observed(self) -> bool:
        """Whether the card size comes from cards the recogniser confirmed."""
        return self._observed

    @property
    def measured(self) -> bool:
        """Whether the size has been measured on a card's edges (``card_size.py``), not only
        taken from quads."""
        return self._sizes.size is not None

    @property
    def card_size(self) -> tuple[float, float] | None:
        """(short, long) card side in image pixels, once measured."""
        return self._card_size

    def observe(self, quads: FloatArray, image: Image | None = None) -> bool:
        """Learn the card size from quads the classifier confirmed as cards (image px).

        With ``image`` (the live loop) the size is measured on the card edges under the quads
        (``card_size.py``: a quad built at the expected size cannot confirm that size); once
        a card has been measured so, quads alone no longer move it.  Without, or until then,
        quads of a card's shape (a sure read of a badly cut quad must not set the size) are
        blended in.  Returns whether the size was learned from them.
        """
        q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        if image is not None:
            measured = self._sizes.update(image, q)
            if measured is not None:
                self._card_size, self._observed = measured, True
                return True
        a = np.linalg.norm(q[:, 1] - q[:, 0], axis=1)
        b = np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
        short, long_ = np.minimum(a, b), np.maximum(a, b)
        lo, hi = self.config.aspect_range
        ok = (short > 0) & (long_ >= lo * short) & (long_ <= min(hi, 2.0) * short)
        if not ok.any():
            return False
        size = (float(np.median(short[ok])), float(np.median(long_[ok])))
        self._card_size = size if not self._observed or self._card_size is None else _blend(self._card_size, size, 0.3)
        self._observed = True
        return True

    def _expected_size(self, image: Image, raw: Mask, mask: Mask, scale: float) -> tuple[float, float]:
        """Card (short, long) side in work px: layout, else confirmed cards, else single blobs."""
        cfg = self.config
        if cfg.card_height is not None:
            long_ = cfg.card_height * scale
            return long_ / 1.6, long_
        if not self._observed:
            measured = _single_card_sizes(raw, mask, cfg)
            if measured:
                s, l_ = np.median(np.array(measured), axis=0)
                size = (float(s) / scale, float(l_) / scale)
                # smooth: one odd blob must not resize everything
                self._card_size = size if self._card_size is None else _blend(self._card_size, size, 0.7)
        if self._card_size is not None:
            return self._card_size[0] * scale, self._card_size[1] * scale
        long_ = cfg.default_height_frac * image.shape[0] * scale
        return long_ / 1.6, long_


def _with_unrefined(refined: FloatArray, raw: FloatArray, groups: npt.NDArray[np.int32]) -> tuple[FloatArray, npt.NDArray[np.int32]]:
    """The refined quads, then the raw ones the fit moved by more than 2% of their size, each
    in its refined quad's group."""
    size = np.linalg.norm(raw[:, 2] - raw[:, 1], axis=1)
    moved = np.linalg.norm(refined - raw, axis=2).max(axis=1) > 0.02 * np.maximum(size, 1.0)
    quads: FloatArray = np.concatenate([refined, raw[moved]]).astype(np.float32)
    return quads, np.concatenate([groups, groups[moved]]).astype(np.int32)


def _key(quad: FloatArray) -> tuple[int, int]:
    centre = np.asarray(quad, np.float32).reshape(4, 2).mean(axis=0)
    return round(float(centre[0])), round(float(centre[1]))


def _blend(old: tuple[float, float], new: tuple[float, float], w: float) -> tuple[float, float]:
    return (1 - w) * old[0] + w * new[0], (1 - w) * old[1] + w * new[1]


def _check_frame(image: object) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise FrameError(f"expected a BGR uint8 image (H, W, 3), got {type(image).__name__} {shape}")
    if image.shape[0] < 32 or image.shape[1] < 32:
        raise FrameError(f"frame too small to hold a card: {image.shape[1]}x{image.shape[0]}")


def whiteness(small: Image, cfg: FinderConfig) -> Image:
    """How much each pixel looks like card stock: bright and unsaturated (0..255)."""
    b, g, r = cv2.split(_white_balanced(small))
    lo = cv2.min(b, cv2.min(g, r))
    hi = cv2.max(b, cv2.max(g, r))
    sat = cv2.subtract(hi, lo)
    return np.asarray(cv2.addWeighted(lo, 1.0, sat, -cfg.saturation_weight, 0), np.uint8)  # saturates at 0


def _thresholds(white: Image, cfg: FinderConfig) -> list[float]:
    """Otsu's threshold, and with ``upper_threshold`` a second Otsu among the brighter pixels:
    on a light table the first split is printing vs everything, the second card vs table."""
    otsu, _ = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    first = float(np.clip(otsu, *cfg.white_threshold))
    if not cfg.upper_threshold:
        return [first]
    upper = white[white > first]
    if upper.size < 100:
        return [first]
    second, _ = cv2.threshold(upper.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return [first, float(second)] if float(second) > first + 10 else [first]


def _binary(white: Image, thr: float) -> Mask:
    _, mask = cv2.threshold(white, thr, 255, cv2.THRESH_BINARY)
    # A card's thin white margin outside its printed frame line must stay one closed ring.
    return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), np.uint8)


def whiteness_mask(small: Image, cfg: FinderConfig) -> Mask:
    """255 where the pixel looks like card stock (Otsu on :func:`whiteness`); holes not filled."""
    white = whiteness(small, cfg)
    return _binary(white, _thresholds(white, cfg)[0])


def _new_only(more: list[_Hypothesis], found: list[_Hypothesis], short: float, first_group: int) -> list[_Hypothesis]:
    """Hypotheses of a second threshold that are not already proposed, regrouped after ``found``."""
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[_Hypothesis] = []
    groups: dict[int, int] = {}
    for h in more:
        c = h.quad.mean(axis=0)
        if any(float(np.hypot(*(c - o))) < 0.3 * short for o in centres):
            continue
        group = groups.setdefault(h.group, first_group + len(groups))
        out.append(_Hypothesis(h.quad, h.score, group, h.kind))
    return out


def _white_balanced(small: Image) -> Image:
    """Scale the channels so the brightest pixels are neutral: under warm light card stock is
    cream, and its "saturation" would otherwise count against it."""
    gains = white_gains(small)
    if float(gains.max()) == 1.0:  # already neutral: skip the multiply
        return small
    return np.asarray(cv2.transform(small, np.diag(gains).astype(np.float32)), np.uint8)


def fill_holes(mask: Mask) -> Mask:
    """Figures and pips are holes in a card's white: fill every hole of every blob."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled


def _single_card_sizes(raw: Mask, filled: Mask, cfg: FinderConfig) -> list[tuple[float, float]]:
    """(short, long) of blobs that look like one card *and* have printing inside.

    The printing test (holes in the raw whiteness) is what tells a card from a white check
    square or a paper napkin of card shape: blank white is cloth, a card always has pips.
    """
    sizes = []
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
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


def _hypotheses(
    mask: Mask, short: float, long_: float, cfg: FinderConfig, size_known: bool = True,
    focus: Contour | None = None, white: Image | None = None, fit: SizeMemo | None = None,
    cache: SplitCache | None = None,
) -> list[_Hypothesis]:
    out: list[_Hypothesis] = []
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    card_area = short * long_
    for contour in contours:
        area = cv2.contourArea(contour)
        # Too small for a card, or a bright cloth region (a trick is at most ~5 cards' area).
        if not (0.25 * card_area <= area <= cfg.max_blob_cards * card_area):
            continue
        if not size_known and area > cfg.max_card_frac * mask.size:
            continue
        single = _single_card_quad(contour, area, short, long_, cfg, size_known)
        if single is not None:
            out.append(_Hypothesis(single, 2.0, len(out), "single"))
            continue
        partial = _partial_card_quads(contour, area, short, long_)
        if partial:
            group = len(out)
            out.extend(_Hypothesis(q, 1.0, group, "partial") for q in partial)
            continue
        # Smaller than a card, or ragged: cloth pattern (check squares), not cards.
        if area < 0.7 * card_area or cv2.contourArea(cv2.convexHull(contour)) > 1.8 * area:
            continue
        if focus is not None and not _touches(focus, contour):
            continue  # overlapping cards outside the play area are piles, not tricks
        key = (*cv2.boundingRect(contour), round(area), round(short), round(long_))
        split = cache.get(key, white) if cache is not None else None
        if split is None and cache is not None and cfg.split_when_still and not cache.was_seen(key):
            # first sight of this blob (a card arriving, a hand passing): only the cheap
            # corner rectangles; the outlines once it lies still (plays need still cards)
            split = _corner_hypotheses(mask, contour, short, long_, cfg, 0)
        elif split is None:
            split = _split_blob(mask, white, contour, short, long_, cfg, 0, size_known, fit)
            if cache is not None:
                cache.put(key, white, split)
        out.extend(_Hypothesis(h.quad, h.score, h.group + len(out), h.kind) for h in split)
    return out


class SplitCache:
    """Last frame's splits of overlapping-card blobs: a trick lying still gives the same blob
    (box and area within a pixel or two of noise, same whiteness), so it is not split again
    (splitting costs ~10x the rest of a frame; a trick lies still most of the time)."""

    def __init__(self, max_diff: float = 3.0) -> None:
        self.max_diff = max_diff
        self.pass_no = 0
        # (pass, x, y, w, h, area, short, long) -> (whiteness in the box, hypotheses)
        self.prev: dict[tuple[int, ...], tuple[Image, list[_Hypothesis]]] = {}
        self.now: dict[tuple[int, ...], tuple[Image, list[_Hypothesis]]] = {}
        self.seen_prev: set[tuple[int, ...]] = set()
        self.seen_now: set[tuple[int, ...]] = set()

    def _match(self, key: tuple[int, ...], keys: Iterable[tuple[int, ...]]) -> tuple[int, ...] | None:
        full = (self.pass_no, *key)
        for k in keys:
            if k[0] == full[0] and k[6:] == full[6:] and max(abs(a - b) for a, b in zip(k[1:5], full[1:5], strict=True)) <= 2 \
                    and abs(k[5] - full[5]) <= 0.03 * full[5]:
                return k
        return None

    def was_seen(self, key: tuple[int, ...]) -> bool:
        """Whether the same blob was in the last frame (and note it is in this one)."""
        self.seen_now.add((self.pass_no, *key))
        return self._match(key, self.seen_prev) is not None

    def get(self, key: tuple[int, ...], white: Image | None) -> list[_Hypothesis] | None:
        k = self._match(key, self.prev)
        if k is None or white is None:
            return None
        roi, hyps = self.prev[k]
        x, y, w, h = k[1:5]
        if float(np.abs(white[y : y + h, x : x + w].astype(np.int16) - roi).mean()) > self.max_diff:
            return None
        self.now[k] = (roi, hyps)
        self.seen_now.add((self.pass_no, *key))
        return hyps

    def put(self, key: tuple[int, ...], white: Image | None, hyps: list[_Hypothesis]) -> None:
        self.seen_now.add((self.pass_no, *key))
        if white is not None:
            x, y, w, h = key[:4]
            self.now[(self.pass_no, *key)] = (white[y : y + h, x : x + w].copy(), hyps)

    def roll(self) -> None:
        """End of a frame: its blobs and splits become the ones to compare with."""
        self.prev, self.now = self.now, {}
        self.seen_prev, self.seen_now = self.seen_now, set()

    def clear(self) -> None:
        self.prev, self.now = {}, {}
        self.seen_prev, self.seen_now = set(), set()


def _split_blob(
    mask: Mask, white: Image | None, contour: Contour, short: float, long_: float,
    cfg: FinderConfig, first_group: int, size_known: bool, fit: SizeMemo | None,
) -> list[_Hypothesis]:
    """Card hypotheses for a blob of overlapping cards (see ``FinderConfig.split``)."""
    if white is None or cfg.split == "corners":
        return _corner_hypotheses(mask, contour, short, long_, cfg, first_group)
    blob = np.zeros_like(mask)
    cv2.drawContours(blob, [contour], -1, 255, cv2.FILLED)
    found = outline_quads(white, blob, short, long_, size_known=size_known, fit=fit)
    # outline scores are 0.3..0.9; rank them with the corner method's clean cards (~1..1.5)
    out = [_Hypothesis(q, 0.6 + s, first_group + i, "outline") for i, (s, q) in enumerate(found)]
    if cfg.split == "outline":
        return out
    # Corner rectangles too, even where the outlines explain the blob: on a cloth of large
    # white squares the outlines also fit the squares' grid (measured: dropping them loses
    # 2% of trick cards); the classifier picks per card.
    corner = _corner_hypotheses(mask, contour, short, long_, cfg, first_group + len(out))
    # only corner rectangles that are not (nearly) an outline one: a wrong outline rectangle
    # near a card must not hide the right corner one
    return out + [h for h in corner if all(_corner_gap(h.quad, o.quad) > 0.15 * short for o in out)]


def _corner_gap(a: FloatArray, b: FloatArray) -> float:
    """Largest distance from a corner of ``a`` to the nearest corner of ``b``."""
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    return float(d.min(axis=1).max())


def _edge_card_hypotheses(
    small: Image, found: list[_Hypothesis], cfg: FinderConfig, first_group: int
) -> list[_Hypothesis]:
    """Card-shaped regions enclosed by image edges, not already proposed by whiteness."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 40, 120)
    regions = cv2.bitwise_not(cv2.dilate(edges, np.ones((3, 3), np.uint8)))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(regions, connectivity=4)
    frame_area = small.shape[0] * small.shape[1]
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[_Hypothesis] = []
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
        quad = _four_corners(contour)
        # The region lies inside the dilated outline: grow it back by the dilation.
        centre = quad.mean(axis=0)
        quad = (centre + (quad - centre) * (1 + 3.0 / max(s_, 1.0))).astype(np.float32)
        if any(np.hypot(*(c - centre)) < 0.3 * s_ for c in centres):
            continue
        out.append(_Hypothesis(quad, 1.5, first_group + len(out), "edge"))
        centres.append(centre)
    return out


def _thin_card_hypotheses(
    mask: Mask, short: float, long_: float, found: list[_Hypothesis], first_group: int
) -> list[_Hypothesis]:
    """Cards whose white is a thin frame open on one side, from the convex hull of their blob.

    A court figure standing on a coloured band that runs off the card's bottom edge (the
    beezlie Napoletane print: every fante, cavallo and re) leaves a U of white margins: the
    hole filling cannot close it, the opening erases its thin arms, and no card of that print
    was ever found (measured: vision_e2e briscola-2 seed 2, every court card laid was asked
    about as a missed play).  The hull of the unopened blob is the card less the band: a
    rectangle one card wide and most of a card long, extended to a card's length from either
    end (one group: the classifier keeps the better crop).  Blobs merged with a cloth's white
    squares have a larger hull and are left alone; the mat's square markers have no card
    aspect.
    """
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    card_area = short * long_
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[_Hypothesis] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if not 0.2 * card_area <= area <= 1.3 * card_area or max(w, h) > 1.5 * long_:
            continue
        points = cv2.findNonZero((labels[y : y + h, x : x + w] == i).astype(np.uint8))
        hull = cv2.convexHull(points) + np.array([x, y], np.int32)
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
        s_, l_ = min(rw, rh), max(rw, rh)
        if cv2.contourArea(hull) < 0.85 * rw * rh or not (0.85 * short <= s_ <= 1.15 * short and 0.7 * long_ <= l_ <= 1.1 * long_) \
                or l_ < 1.1 * s_:
            continue
        if any(float(np.hypot(cx - c[0], cy - c[1])) < 0.3 * short for c in centres):
            continue  # a card the other paths found (its hull is its quad)
        group = first_group + len({hh.group for hh in out})
        out.extend(_Hypothesis(q, 1.0, group, "thin") for q in _extended_to_card((cx, cy), (rw, rh), angle, long_))
    return out


def _strip_card_hypotheses(
    mask: Mask, opened: Mask, short: float, long_: float, focus: Contour, first_group: int
) -> list[_Hypothesis]:
    """Cards of a trick seen only as a thin white strip along one long side.

    The same court cards as :func:`_thin_card_hypotheses`, lying in a trick: their wide white
    parts join the other cards' blob, and the opening erases the thin margin along their far
    side, which is left as a strip beside the blob.  The strip's outer edge is the card's
    edge: a card rectangle on either side of it, flush with either of its ends (one group),
    whose sides are then fitted to the card's edges (``CardFinder.find``).  Only strips that
    touch the play area (``focus``) and a blob.
    """
    resid = cv2.bitwise_and(mask, cv2.bitwise_not(cv2.dilate(opened, np.ones((3, 3), np.uint8))))
    touch = cv2.dilate(opened, np.ones((7, 7), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(resid, connectivity=8)
    out: list[_Hypothesis] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 0.04 * short * long_ or max(w, h) < 0.5 * long_:
            continue
        comp = labels[y : y + h, x : x + w] == i
        if not np.any(comp & (touch[y : y + h, x : x + w] > 0)):
            continue
        points = cv2.findNonZero(comp.astype(np.uint8)) + np.array([x, y], np.int32)
        if not _touches(focus, points):
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(points)
        s_, l_ = min(rw, rh), max(rw, rh)
        if not (0.6 * long_ <= l_ <= 1.1 * long_ and s_ <= 0.35 * short):
            continue
        t = np.deg2rad(angle)
        along_w = np.array([np.cos(t), np.sin(t)], np.float32)
        along_h = np.array([-np.sin(t), np.cos(t)], np.float32)
        axis, normal = (along_w, along_h) if rw > rh else (along_h, along_w)
        centre = np.array([cx, cy], np.float32)
        half_u, half_v = (normal * short / 2).astype(np.float32), (axis * long_ / 2).astype(np.float32)
        group = first_group + len({hh.group for hh in out})
        for side in (1.0, -1.0):
            across = centre - side * normal * s_ / 2 + side * normal * short / 2
            for end in ((1.0, -1.0) if l_ < 0.97 * long_ else (0.0,)):
                c = (across + end * axis * (long_ - l_) / 2).astype(np.float32)
                out.append(_Hypothesis(_rect(c, half_u, half_v), 0.9, group, "strip"))
    return out


def _extended_to_card(centre: tuple[float, float], size: tuple[float, float], angle: float, long_: float) -> list[FloatArray]:
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
        return [_rect(c, half_u, half_v)]
    return [_rect((c + sign * axis * (long_ - along) / 2).astype(np.float32), half_u, half_v) for sign in (1.0, -1.0)]


def _touches(polygon: Contour, contour: Contour) -> bool:
    """Whether any point of ``contour`` lies inside ``polygon`` (both in work pixels)."""
    pts = contour.reshape(-1, 2)[:: max(1, len(contour) // 16)]
    return any(cv2.pointPolygonTest(polygon, (float(x), float(y)), False) >= 0 for x, y in pts)


def _single_card_quad(
    contour: Contour,
    area: float,
    short: float,
    long_: float,
    cfg: FinderConfig,
    size_known: bool = True,
) -> FloatArray | None:
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    s, l_ = min(w, h), max(w, h)
    if s <= 0 or area < 0.86 * w * h:
        return None
    if not (cfg.aspect_range[0] <= l_ / s <= cfg.aspect_range[1]):
        return None
    if size_known and not (0.6 * short * long_ <= area <= 1.6 * short * long_):
        return None
    return _four_corners(contour)


def _four_corners(contour: Contour) -> FloatArray:
    """The blob's quad: a 4-vertex approximation of its hull (keeps perspective), else minAreaRect."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
    box: FloatArray = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)
    return box


def _partial_card_quads(contour: Contour, area: float, short: float, long_: float) -> list[FloatArray]:
    """A rectangle one card wide and 35-85% of a card long: the same card extended both ways."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
    if area < 0.72 * w * h:  # rounded corners (and the opening) weigh more on a short piece
        return []
    # Which side is the card's width: the one closest to a card's short side.  minAreaRect's
    # width runs along ``angle``, its height along ``angle + 90``.
    sides = sorted([(abs(w - short), w, h, angle), (abs(h - short), h, w, angle + 90)])
    err, across, along, ang = sides[0]
    if err > 0.2 * short or not (0.35 * long_ <= along <= 0.85 * long_):
        return []
    t = np.deg2rad(ang)
    axis = np.array([-np.sin(t), np.cos(t)], np.float32)  # direction of `along`
    normal = np.array([np.cos(t), np.sin(t)], np.float32)
    centre = np.array([cx, cy], np.float32)
    quads = []
    for sign in (1.0, -1.0):
        c = (centre + sign * axis * (long_ - along) / 2).astype(np.float32)
        quads.append(_rect(c, (normal * across / 2).astype(np.float32), (axis * long_ / 2).astype(np.float32)))
    return quads


def _rect(centre: FloatArray, half_u: FloatArray, half_v: FloatArray) -> FloatArray:
    pts = [centre - half_u - half_v, centre + half_u - half_v, centre + half_u + half_v, centre - half_u + half_v]
    return np.array(pts, np.float32)


def _corner_hypotheses(
    mask: Mask, contour: Contour, short: float, long_: float, cfg: FinderConfig, first_group: int
) -> list[_Hypothesis]:
    """Card rectangles grown from the blob's right-angle corners, accepted greedily.

    Corners with the longest visible edges go first; a corner that is already the corner of
    an accepted card is skipped (each card has four), which keeps this cheap.
    """
    explained = np.zeros_like(mask)
    accepted: list[_Hypothesis] = []
    deferred: list[tuple[float, FloatArray]] = []

    def accept(score: float, quad: FloatArray) -> None:
        if 1.0 - _fraction_set(explained, _sample_points(quad)) < 0.3:
            return  # explains nothing new: another view of an accepted card
        cv2.fillConvexPoly(explained, np.round(quad).astype(np.int32), 255)
        accepted.append(_Hypothesis(quad, score, first_group + len(accepted), "corner"))

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


def _portrait_order(quad: FloatArray) -> FloatArray:
    """Clockwise corners, short edge first, starting at the upper of the two possible corners."""
    q = quad.astype(np.float32)
    if cv2.contourArea(q, oriented=True) < 0:  # image y grows down: positive = clockwise
        q = q[::-1]
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)
    if q[2, 1] + q[3, 1] < q[0, 1] + q[1, 1]:  # the other short edge is higher: start there
        q = np.roll(q, -2, axis=0)
    return q


def rectify(image: Image, quad: FloatArray, size: tuple[int, int]) -> Image:
    """Warp the card under ``quad`` (portrait-ordered, image px) to a ``size`` = (w, h) crop."""
    w, h = size
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    crop = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(crop, np.uint8)
