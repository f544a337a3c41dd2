"""The card finder: one frame's pass over all hypothesis generators, and the card size it keeps
between frames (see the package docstring for the method)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import RefereeError
from referee.vision.card_size import CardSize
from referee.vision.detections import Detections, FloatArray, Image
from referee.vision.finder.blobs import blob_hypotheses
from referee.vision.finder.chroma import chroma_card_hypotheses
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.courts import strip_card_hypotheses, thin_card_hypotheses
from referee.vision.finder.darker import darker_card_hypotheses
from referee.vision.finder.edge_blobs import edge_blob_hypotheses
from referee.vision.finder.edges import edge_card_hypotheses
from referee.vision.finder.hypothesis import Hypothesis, new_only
from referee.vision.finder.lines import LineCache, line_card_hypotheses
from referee.vision.finder.quad import portrait_order, rectify
from referee.vision.finder.segmentation import (
    binarize,
    filled_with_outlines,
    otsu_thresholds,
    whiteness,
)
from referee.vision.finder.split_cache import SplitCache
from referee.vision.refine import RefineCache, RefineConfig, refine_quads, white_gains


class FrameError(RefereeError, ValueError):
    """A frame that is not an 8-bit BGR image."""


@dataclass
class CardFinder:
    """``CardFinder().find(bgr_image) -> Detections`` (quads in image px, crops, groups).

    Keeps the card size between frames (cards do not change size): :class:`CardSize`.
    """

    config: FinderConfig = field(default_factory=FinderConfig)
    sizes: CardSize = field(default_factory=CardSize)
    _splits: SplitCache = field(default_factory=lambda: SplitCache())
    _refined: RefineCache = field(default_factory=RefineCache)
    _lines: LineCache = field(default_factory=LineCache)
    #: the last frame's hypothesis kinds by quad centre (rounded image px; a fitted quad under
    #: its fitted and its first centre): diagnostics, and which photo detections are a card's
    #: own outline (``one_reading.one_reading``)
    last_kinds: dict[tuple[int, int], str] = field(default_factory=dict)
    #: (height, width) of the last frame's work image: diagnostics
    last_work_shape: tuple[int, int] = (0, 0)

    def find(self, image: Image, focus: FloatArray | None = None, cut: bool = True) -> Detections:
        """Card quads and crops in ``image``.  ``focus`` (a polygon in image pixels, e.g. the
        layout's play area) limits the costly splitting of overlapping cards to blobs that
        touch it; single cards are found everywhere.  ``cut=False``: no crops yet (the caller
        drops some quads first, then :meth:`cut` the rest)."""
        _check_frame(image)
        cfg = self.config
        scale = work_scale(image.shape[:2], cfg)
        focus_work = None if focus is None else (np.asarray(focus, np.float32) * scale).reshape(-1, 1, 2)
        small = np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
        self.last_work_shape = (small.shape[0], small.shape[1])
        white = whiteness(small, cfg)
        thresholds = otsu_thresholds(white, cfg)
        hyps: list[Hypothesis] = []
        for i, thr in enumerate(thresholds):
            raw = binarize(white, thr)
            mask, outlines = filled_with_outlines(raw)
            if i == 0:
                short, long_ = self.sizes.expected(image.shape[0], scale, cfg, raw, mask, outlines)
            k = min(25, max(3, round(cfg.open_frac * short))) | 1  # capped: an ellipse's cost grows as k^2
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            opened = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), np.uint8)
            known = self.sizes.size is not None or cfg.card_height is not None
            fit = None if self.sizes.observed else self.sizes.fitted
            self._splits.pass_no = i
            more = blob_hypotheses(opened, short, long_, self._split_config(), known, focus_work, white, fit, self._splits)
            more += thin_card_hypotheses(mask, short, long_, more, first_group=len(more), outlines=outlines)
            if focus_work is not None:
                more += strip_card_hypotheses(mask, opened, short, long_, focus_work, first_group=len(more))
            hyps += new_only(more, hyps, short, first_group=len(hyps))
        light_table = float(np.count_nonzero(white >= thresholds[0])) > cfg.light_table_frac * white.size
        if cfg.edge_regions or (cfg.edge_regions is None and light_table):
            hyps += edge_card_hypotheses(small, hyps, cfg, first_group=len(hyps))
        known = self.sizes.observed or cfg.card_height is not None
        if cfg.edge_blobs or (cfg.edge_blobs is None and light_table and known and cfg.split_when_still and not cfg.edge_regions):
            hyps += edge_blob_hypotheses(small, hyps, short, long_, cfg, focus_work, first_group=len(hyps))
        if cfg.edge_regions:  # photos only (``process_still``): the live loop's cost stays as it is
            hyps += darker_card_hypotheses(white, thresholds, hyps, cfg, first_group=len(hyps))
        if cfg.line_regions or (cfg.line_regions is None and cfg.edge_regions):
            # of the card's size once a read or the layout gave it; any size at a photo's first look
            hyps += line_card_hypotheses(image, scale, hyps, cfg, (short, long_) if known else None, len(hyps), self._lines)
        if cfg.chroma_regions:  # a photo's very last look only (``process_still``)
            hyps += chroma_card_hypotheses(image, scale, hyps, cfg, len(hyps))
        self._splits.roll()
        hyps = sorted(hyps, key=lambda h: -h.score)[: cfg.max_candidates]
        self.last_kinds = {}
        if not hyps:
            return Detections.empty()
        quads: FloatArray = (np.stack([portrait_order(h.quad) for h in hyps]) / scale).astype(np.float32)
        self.last_kinds = {_key(q): h.kind for q, h in zip(quads, hyps, strict=True)}
        groups = np.array([h.group for h in hyps], np.int32)
        strips = np.array([h.kind == "strip" for h in hyps])
        if strips.any() and not (cfg.refine is not None and (cfg.refine_live or not cfg.split_when_still)):
            # a strip gives a card's edge, not where along it the card lies: its sides are fitted
            quads[strips] = refine_quads(image, quads[strips], white_gains(small), cfg.saturation_weight,
                                         cfg.refine or RefineConfig(), self.sizes.size)[0]
        if cfg.refine is not None and (cfg.refine_live or not cfg.split_when_still):
            unrefined = quads
            quads = self._refined.refine(image, quads, white_gains(small), cfg.saturation_weight, cfg.refine, self.sizes.size)
            keep_raw = cfg.keep_unrefined if cfg.keep_unrefined is not None else cfg.upper_threshold
            if keep_raw:
                quads, groups = _with_unrefined(quads, unrefined, groups)
            # the fitted quads by their own centres too: what each detection was found as
            self.last_kinds.update({_key(q): h.kind for q, h in zip(quads, hyps, strict=False)})
        found = Detections(quad=quads.astype(np.float32), group=groups)
        return self.cut(image, found) if cut else found

    def cut(self, image: Image, dets: Detections) -> Detections:
        """``dets`` with the rectified crop of each quad (``FinderConfig.crop_size``)."""
        return replace(dets, crops=[rectify(image, q, self.config.crop_size) for q in dets.quad])

    def _split_config(self) -> FinderConfig:
        """Outline splitting needs a card size within ~15%: the layout's, the recogniser's, or
        one fitted over a live table's frames.  A single photo's first look guesses the size
        from blobs, and outlines then fit a court card's printed frame as a card (measured on
        the pinochle photos: precision 87% -> 79%), so it splits by corners only until a read
        card gives the size (``FramePipeline.process_still`` looks again then)."""
        cfg = self.config
        if cfg.split == "corners" or self.sizes.observed or cfg.card_height is not None or cfg.split_when_still:
            return cfg
        return replace(cfg, split="corners")

    def reset(self) -> None:
        """Forget the card size (a new table, or an unrelated photo)."""
        self.sizes.reset()
        self._splits = SplitCache()
        self._refined = RefineCache()

    def kind_of(self, quad: FloatArray) -> str:
        """How the last frame's hypothesis at ``quad`` (image px) was found (``Hypothesis.kind``;
        "" when it is not one of them)."""
        return self.last_kinds.get(_key(quad), "")

    @property
    def observed(self) -> bool:
        """Whether the card size comes from cards the recogniser confirmed."""
        return self.sizes.observed

    @property
    def measured(self) -> bool:
        """Whether the size has been measured on a card's edges (``card_size.py``), not only
        taken from quads."""
        return self.sizes.measured

    @property
    def card_size(self) -> tuple[float, float] | None:
        """(short, long) card side in image pixels, once measured."""
        return self.sizes.size

    def observe(self, quads: FloatArray, image: Image | None = None) -> bool:
        """Learn the card size from quads the classifier confirmed as cards (image px), with
        ``image`` (the live loop) measured on the card edges under them
        (:meth:`CardSize.observe`).  Returns whether the size was learned from them."""
        lo, hi = self.config.aspect_range
        return self.sizes.observe(quads, image, (lo, min(hi, self.config.size_max_aspect)))


def work_scale(shape: tuple[int, ...], cfg: FinderConfig) -> float:
    """Image px -> work px: the image at ``work_width`` wide, but never taller than
    ``max_work_aspect`` times that (the finder's cost grows with the work image's pixels)."""
    height, width = shape[0], shape[1]
    return min(cfg.work_width / width, cfg.max_work_aspect * cfg.work_width / height)


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


def _check_frame(image: object) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise FrameError(f"expected a BGR uint8 image (H, W, 3), got {type(image).__name__} {shape}")
    if image.shape[0] < 32 or image.shape[1] < 32:
        raise FrameError(f"frame too small to hold a card: {image.shape[1]}x{image.shape[0]}")
