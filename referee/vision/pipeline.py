"""One frame in, identified face-up cards out: finder -> classifier -> one card per physical card.

The same :class:`FramePipeline` runs in ``referee detect``, ``referee watch`` and ``referee demo``::

    from referee.recognition import CardClassifier
    pipe = FramePipeline.create(CardClassifier.load("italian", threads=1))
    dets = pipe.process(bgr_image)          # Detections: card, confidence, top, quad
    [(d["card"], d["confidence"]) for d in dets.to_json()]

Precision comes from the classifier: the finder over-proposes (card backs with white borders,
ArUco markers, cloth squares) and anything classified ``back`` is dropped; of the alternative
hypotheses for one card (same ``group``) the most confident card wins; two hypotheses of the
same card code on top of each other are one card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

from referee.cards import BACK, parse_card
from referee.vision.card_size import prior_quad
from referee.vision.detections import BoolArray, Detections, FloatArray, Image
from referee.vision.finder import CardFinder, FinderConfig, portrait_order, rectify
from referee.vision.stock_card import stock_card_quads
from referee.vision.table_scale import MIN_CARD_PX


class PredictionLike(Protocol):
    @property
    def card(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def top(self) -> list[tuple[str, float]]: ...


@dataclass(frozen=True)
class Read:
    """A plain :class:`PredictionLike` (stand-in recognisers, template matching, tests)."""

    card: str
    confidence: float
    top: list[tuple[str, float]]


class Recogniser(Protocol):
    """What the pipeline needs of ``referee.recognition.CardClassifier`` (fakes in tests)."""

    @property
    def input_size(self) -> tuple[int, int]: ...

    def classify(self, crops: Sequence[Image]) -> Sequence[PredictionLike]: ...


class ZoneMap(Protocol):
    """What the pipeline needs of ``referee.vision.layout.TableLayout``."""

    def zone_of(self, image_point: Sequence[float]) -> str: ...


@dataclass
class FramePipeline:
    finder: CardFinder
    classifier: Recogniser
    #: drop reads below this (they are rarely right and the tracker votes over frames anyway)
    min_confidence: float = 0.3
    #: when set, cards outside the mat (markers, the players' own laps) are ignored
    layout: ZoneMap | None = None
    #: reuse last frame's read of a card whose crop has not changed (live loop); None = off
    cache: ReadCache | None = None
    #: ``min_confidence`` for a single photo (:meth:`process_still`)
    still_min_confidence: float = 0.4
    #: ``min_confidence`` for the briscola under the stock (its hypotheses are blind guesses)
    stock_min_confidence: float = 0.6
    #: a photo's card is at least this share of the recogniser's rated :data:`MIN_CARD_PX` tall;
    #: a card-shaped box smaller than that is a pip or a print detail (a photo's edge regions
    #: close around single pips of a card itself too small to be found whole)
    min_card_share: float = 0.5
    #: how many of each card the deck holds (:attr:`referee.cards.Deck.copies`: binocolo's two);
    #: with one, two reads of the same card on each other in a photo are one card
    copies: int = 1

    @classmethod
    def create(
        cls, classifier: Recogniser, layout: ZoneMap | None = None, config: FinderConfig | None = None
    ) -> FramePipeline:
        cfg = config or FinderConfig(split_when_still=True)  # frames of a video by default
        cfg = replace(cfg, crop_size=tuple(classifier.input_size))  # type: ignore[arg-type]
        return cls(CardFinder(cfg), classifier, layout=layout)

    def process(self, image: Image) -> Detections:
        dets = self.finder.find(image, focus=self._play_area())
        if self.layout is not None and len(dets):
            zones = [self.layout.zone_of(tuple(c)) for c in dets.centers]
            keep = np.array([z != "outside" for z in zones]) & ~self._on_markers(dets)
            dets = dets[keep]
        stock = self._stock_card(image)
        first_stock = int(dets.group.max()) + 1 if len(dets) else 0
        found = identify(_with_stock_card(dets, stock), self.classifier, self.min_confidence, self.cache)
        if not len(stock):
            return found
        # a crop half over the stock's back can read as some card: only a sure read counts
        return found[(found.group < first_stock) | (found.confidence >= self.stock_min_confidence)]

    def _stock_card(self, image: Image) -> Detections:
        """Hypotheses of the briscola under the stock (``stock_card.py``): the finder sees
        stock and briscola as one blob; none when the layout has no stock zone."""
        polygons = getattr(self.layout, "image_polygons", None)
        zone = None if polygons is None else polygons().get("stock")
        if zone is None or len(zone) < 3:
            return Detections.empty()
        cfg = self.finder.config
        quads = stock_card_quads(image, np.asarray(zone, np.float32), cfg, self.finder.card_size)
        if not len(quads):
            return Detections.empty()
        ordered = np.stack([portrait_order(q) for q in quads])
        # one group: alternatives for one card, the classifier's most confident read wins
        return Detections(
            quad=ordered, crops=[rectify(image, q, cfg.crop_size) for q in ordered], group=np.zeros(len(quads), np.int32)
        )

    def process_still(self, image: Image, sure: float = 0.8) -> Detections:
        """One photo with no history (``referee detect``): the card size is unknown, so
        read it from the cards the recogniser is sure of and look again at that size; with no
        sure card, also try the larger cards of a close-up photo."""
        self.finder.reset()
        live, floor = self.finder.config, self.min_confidence
        # no time limit here, and no earlier frame to wait for: split overlapping cards at once
        # and cards of any print, up to the tall narrow Trevisane-family scans (aspect ~2.2);
        # and a close card up to most of the photo (a table filling the frame runs along its
        # border: FinderConfig.max_border_frac)
        self.finder.config = replace(live, upper_threshold=True, edge_regions=True, split_when_still=False,
                                     aspect_range=(live.aspect_range[0], max(live.aspect_range[1], 2.4)), max_card_frac=0.85,
                                     size_max_aspect=max(live.size_max_aspect, 2.4))
        # and no later frames to vote over a weak read (measured on the photos: 0.4 keeps
        # pinochle's precision at 87% with the outline splits, 0.5 costs epfl 4% of its reads)
        self.min_confidence = max(floor, self.still_min_confidence)
        try:
            found = self._still_sizes(image, sure)
            wide = min(image.shape[1], 2 * live.work_width)
            if (found.confidence >= sure).any() or wide <= live.work_width:
                return found
            # no sure card: cards may be small in a wide frame (a card 80 px tall in the box
            # camera's 1280x720 is 40 px at the work width, where a 2 of spade's swords cut
            # its white apart): one more look at up to twice the width, at the sizes its blobs give
            self.finder.config = replace(self.finder.config, work_width=wide)
            closer = self._still_sizes(image, sure, priors=())
            return closer if (closer.confidence >= sure).any() else found
        finally:
            self.finder.config, self.min_confidence = live, floor

    def find_card_size(self, image: Image, priors: Sequence[float] = (0.12, 0.24), sure: float = 0.8) -> Detections:
        """A live frame while the card size is still unknown: like :meth:`process_still`, with
        the size priors of a camera over a table (card long side as a fraction of the height)."""
        return self._process_still(image, sure, priors)

    def _still_sizes(self, image: Image, sure: float, priors: Sequence[float] = (0.3, 0.5, 0.65, 0.8)) -> Detections:
        """A photo's cards at every size it may hold, read as one: the size the first look
        gives (blobs, then the sure reads'), and unless a sure read is a card's own outline, each
        prior (card long side as a fraction of the height, up to a close-up card ~0.8 of it),
        resolved by :func:`_one_reading`.

        Not the pass with the most sure confidence: a card-sized box around each pip of a large
        card reads surely as a two or an ace, so four pip boxes outweigh the one whole card
        (measured on the real Napoletane photos shrunk to 80-245 px: 4 or 5 of denari read as
        several ``denari_2``); nor only the sure reads' size, which is then the pip box's."""
        first = self.process(image)
        passes = [(first, self._outlined(first))]
        tried = [self.finder.card_size]
        confident = first[first.confidence >= sure]
        self.finder.reset()
        if len(confident) and self.finder.observe(confident.quad):
            if not _near(self.finder.card_size, tried):
                again = self.process(image)
                passes.append((again, self._outlined(again)))
            tried.append(self.finder.card_size)
        # a sure card's own outline measured the size: no size to guess (and at a guessed size
        # rectangles over part of that card read as other cards)
        measured = len(passes)
        for frac in [] if any((d.confidence[own] >= sure).any() for d, own in passes) else priors:
            self.finder.reset()
            self.finder.observe(prior_quad(image.shape, frac))
            if _near(self.finder.card_size, tried):
                continue
            tried.append(self.finder.card_size)
            again = self.process(image)
            passes.append((again, self._outlined(again)))
        found = _one_reading(passes, sure, measured, copies=self.copies)
        found = found[_long_sides(found.quad) >= MIN_CARD_PX * self.min_card_share]
        self.finder.reset()
        self.finder.observe(found[found.confidence >= sure].quad)  # keep the size that worked
        return found

    def _outlined_score(self, dets: Detections, sure: float) -> float:
        """Summed confidence of the last pass's sure reads that are a card's own outline."""
        return float(dets.confidence[(dets.confidence >= sure) & self._outlined(dets)].sum())

    def _outlined(self, dets: Detections) -> BoolArray:
        """Which detections of the last pass are a card's own outline (a blob or an edge-closed
        region of a card's shape), not a rectangle built at an assumed card size."""
        return np.array([self.finder.kind_of(q) in OWN_OUTLINE for q in dets.quad], bool)

    def _process_still(self, image: Image, sure: float, priors: Sequence[float] = (0.3, 0.5)) -> Detections:
        first = self.process(image)
        confident = first[first.confidence >= sure]
        size = self.finder.card_size
        self.finder.reset()
        if len(confident) and self.finder.observe(confident.quad):
            new = self.finder.card_size
            if size is None or new is None or abs(new[1] - size[1]) > 0.15 * size[1]:
                return _not_smaller(_merge(first, self.process(image)), new)
            return _not_smaller(first, new)
        # a size guess is borne out by sure cards whose own outline has that size, not by
        # rectangles built at the guessed size (a card merged with a check cloth's white square
        # is a 'thin' court-card hull at a size 1.5 cards tall, and reads surely as another card)
        best, best_score = first, self._outlined_score(first, sure)
        for frac in priors:
            self.finder.reset()
            self.finder.observe(prior_quad(image.shape, frac))
            again = self.process(image)
            score = self._outlined_score(again, sure)
            if score > best_score:
                best, best_score = again, score
        self.finder.reset()
        self.finder.observe(best[best.confidence >= sure].quad)  # keep the size that worked
        return best

    def _play_area(self) -> FloatArray | None:
        """The layout's play area (image px, a little enlarged): where tricks overlap."""
        polygons = getattr(self.layout, "image_polygons", None)
        if polygons is None:
            return None
        area = np.asarray(polygons().get("play"), np.float32)
        if area.ndim != 2 or len(area) < 3:
            return None
        centre = area.mean(axis=0)
        grown: FloatArray = (centre + (area - centre) * 1.2).astype(np.float32)
        return grown

    def _on_markers(self, dets: Detections) -> BoolArray:
        """The mat's white-bordered ArUco markers look like small cards to the finder."""
        to_image = getattr(self.layout, "to_image", None)
        if to_image is None:
            return np.zeros(len(dets), bool)
        from referee.vision.layout import MARKER_SIZE, marker_centres

        mat = np.array(list(marker_centres().values()), np.float64)
        centres = np.asarray(to_image(mat), np.float32)
        shifted = mat[:1] + np.array([MARKER_SIZE, 0.0])
        radius = float(np.linalg.norm(np.asarray(to_image(shifted))[0] - centres[0]))
        d = np.linalg.norm(dets.centers[:, None, :] - centres[None, :, :], axis=2)
        near: BoolArray = (d < 1.2 * radius).any(axis=1)
        return near


class ReadCache:
    """Last frame's crops and reads: a card lying still gives the same crop, so it is not
    classified again (most cards on a table lie still most of the time)."""

    def __init__(self, max_shift_px: float = 3.0, max_diff: float = 4.0) -> None:
        self.max_shift_px = max_shift_px
        self.max_diff = max_diff
        self.centres = np.zeros((0, 2), np.float32)
        self.crops: list[Image] = []
        self.preds: list[PredictionLike] = []

    def classify(self, dets: Detections, classifier: Recogniser) -> list[PredictionLike]:
        preds: list[PredictionLike | None] = [None] * len(dets)
        centres = dets.centers
        for i in range(len(dets)):
            if not len(self.centres):
                break
            dist = np.linalg.norm(self.centres - centres[i], axis=1)
            j = int(np.argmin(dist))
            if dist[j] <= self.max_shift_px and self.crops[j].shape == dets.crops[i].shape:
                diff = float(np.abs(self.crops[j].astype(np.int16) - dets.crops[i]).mean())
                if diff <= self.max_diff:
                    preds[i] = self.preds[j]
        todo = [i for i, p in enumerate(preds) if p is None]
        fresh = classifier.classify([dets.crops[i] for i in todo]) if todo else []
        for i, p in zip(todo, fresh, strict=True):
            preds[i] = p
        done = [p for p in preds if p is not None]
        self.centres, self.crops, self.preds = centres, list(dets.crops), done
        return done


def identify(
    dets: Detections, classifier: Recogniser, min_confidence: float = 0.3, cache: ReadCache | None = None
) -> Detections:
    """Classify the crops; keep one face-up card per group and per spot, crops dropped."""
    if not len(dets):
        return dets.without_crops()
    preds = cache.classify(dets, classifier) if cache is not None else list(classifier.classify(dets.crops))
    dets = dets.with_identities(
        [p.card for p in preds], [p.confidence for p in preds], [list(p.top) for p in preds]
    ).without_crops()
    keep = (dets.card != BACK) & (dets.confidence >= min_confidence)
    dets = dets[keep]
    return _dedupe(_best_per_group(dets))


def _with_stock_card(dets: Detections, stock: Detections) -> Detections:
    """The finder's hypotheses and the stock's, the stock's in a group of their own."""
    if not len(stock):
        return dets
    if not len(dets):
        return stock
    first = int(dets.group.max()) + 1
    return Detections(
        quad=np.concatenate([dets.quad, stock.quad]),
        crops=[*dets.crops, *stock.crops],
        group=np.concatenate([dets.group, stock.group + first]),
    )


def _merge(a: Detections, b: Detections) -> Detections:
    """Both passes' cards; where they overlap, the more confident read."""
    if not len(a) or not len(b):
        return a if len(a) else b
    return _overlaps_resolved(_concat(a, b))


def _overlaps_resolved(both: Detections) -> Detections:
    """Of detections whose centres lie within half a card of each other, the more confident."""
    order = np.argsort(-both.confidence)
    centres = both.centers
    sizes = np.linalg.norm(both.quad[:, 0] - both.quad[:, 1], axis=1)
    kept: list[int] = []
    for i in order.tolist():
        if all(np.linalg.norm(centres[i] - centres[j]) > 0.5 * sizes[j] for j in kept):
            kept.append(i)
    return both[np.array(sorted(kept), np.int64)]


#: hypothesis kinds that are a card's own outline (``finder.hypothesis.Hypothesis.kind``)
OWN_OUTLINE = ("single", "edge")


def _near(size: tuple[float, float] | None, sizes: Sequence[tuple[float, float] | None], tol: float = 0.15) -> bool:
    """Whether card ``size``'s long side is within ``tol`` of one of ``sizes`` (a pass at it is
    already done)."""
    return size is not None and any(s is not None and abs(size[1] - s[1]) <= tol * s[1] for s in sizes)


def _one_reading(passes: Sequence[tuple[Detections, BoolArray]], sure: float, guessed_from: int = 0,
                 pip_area: float = 0.5, inside: float = 0.7, straddle: float = 0.4, margin: float = 0.1,
                 touch: float = 0.15, part_area: float = 0.65, copies: int = 1) -> Detections:
    """The cards of several passes over one photo at different card sizes (each with which of
    its detections are a card's own outline), as one reading.

    Where a detection lies ``inside`` or more within a sure one at least 1 / ``pip_area`` its
    area, one of the two is not a card: the small one is the large card's pip or figure box,
    unless it is a sure card's own outline or read surer by over ``margin``, and then the large
    one is that card with the table around it, or a box around several cards (which reads less
    surely than each of them).  Of the rest, most confident first (a sure card's own outline as if
    ``margin`` surer): a detection whose centre lies within half a
    card of a kept one is the same card; one of another pass with ``straddle`` or more of it on
    a kept sure card, either of them at a guessed size (``passes[guessed_from:]``), is a
    rectangle over part of that card and the table beside it (within one pass, and between
    sizes measured on the photo's cards, overlapping cards are the finder's to split); in any
    pass, one read as the same card with ``touch`` or more of it on a kept one (``straddle``
    when the deck holds ``copies`` of a card: a second copy may lie on the first), or as a sure
    kept card's suit with fewer pips with ``straddle`` or more of it on it, is a second read of
    that card; none of these judges a detection by a kept box that is a part of it.  A part: a
    box at most ``part_area`` of a sure card with ``straddle`` or more of it on that card (its
    pips or half of it, and the table beside them); of the cards kept, one that is a part of a
    sure read of a kept card and reads that card's suit with fewer pips, or not surer by over
    ``margin``, is dropped (a sure card's own outline excepted).  A box at a guessed size that
    is not its own outline shows nothing of a card found at a size measured on the photo: it
    neither makes it "that card with the table around it" nor stands as a part of it, however
    surely it reads.  Then no card far smaller than
    the sure cards, those at measured sizes or outlined if any (:func:`_not_smaller`)."""
    both, outlined = passes[0]
    source = np.zeros(len(both), np.int32)
    for n, (more, own) in enumerate(passes[1:], 1):
        both, outlined = _concat(both, more), np.concatenate([outlined, own])
        source = np.concatenate([source, np.full(len(more), n, np.int32)])
    if len(both) < 2:
        return both
    areas = np.array([float(cv2.contourArea(q.astype(np.float32))) for q in both.quad])
    is_sure = both.confidence >= sure
    n = len(both)
    # on[i, j]: the fraction of i that lies on j
    on = np.array([[0.0 if i == j else _inside(both.quad[i], both.quad[j]) for j in range(n)] for i in range(n)]).reshape(n, n)
    geo = (areas[:, None] <= pip_area * areas[None, :]) & (on >= inside)
    # geo[i, j]: i lies within j, at most pip_area of it; surer[i, j]: i read surer than j by over margin
    surer = both.confidence[:, None] > both.confidence[None, :] + margin
    nested = geo & ~surer
    fewer = _fewer_pips(both.card.tolist())
    # a box inside a larger read of the same suit with more pips shows only some of that card's
    # pips (the card is partly covered: a finger, the next card of a trick), however surely it
    # reads: not a card, and no reason to drop the larger read (a box around a card reads that
    # card itself; one around two cards reads a court or another suit as often as not); but not
    # of a box that is itself a card with the table around it (a patterned cloth merges with the
    # card into such boxes, and the card inside them is the card)
    pips_of = geo & fewer & ~(outlined & is_sure)[:, None]
    geo = geo & ~pips_of
    # weak[i, j]: i is a box built at a guessed card size, j was found at a size measured on the
    # photo; read however surely, such a box shows nothing of j (a box over half of a card read
    # as an ace is no card of its own, and the card is no "card with its table around it")
    guessed = source >= guessed_from
    weak = guessed[:, None] & ~guessed[None, :] & ~outlined[:, None]
    around_card: BoolArray = np.asarray((geo & ((surer & ~weak) | outlined[:, None]) & is_sure[:, None]).any(axis=0))
    pips_of = pips_of & ~around_card[None, :]
    pip: BoolArray = np.asarray((nested & (is_sure & ~around_card)[None, :]).any(axis=1) & ~(outlined & is_sure))
    pip = pip | pips_of.any(axis=1)
    dropped = (pip | around_card).tolist()
    centres = both.centers
    shorts = np.linalg.norm(both.quad[:, 0] - both.quad[:, 1], axis=1)
    # part[i, j]: i is a box at most part_area of sure card j with straddle or more of it on j
    # (the cards of one deck are one size: a box over a card's corner or half of its pips and
    # the table beside it reads surely as a pip card as often as not)
    part = (areas[:, None] <= part_area * areas[None, :]) & (on >= straddle) & is_sure[None, :]
    # a second read of a kept card: the same card on ``touch`` or more of it where the deck
    # holds each card once; where it holds two (binocolo), on ``straddle`` or more of it, as
    # much as no second copy can lie on the first (a trick's card is read while covered by up
    # to ~40%, issue 22's contract, so less than that of it lies on the card above it); or,
    # read less surely than a sure card, some of its pips on ``straddle`` or more of it
    same = both.card[:, None] == both.card[None, :]
    same_on = touch if copies <= 1 else straddle
    again = fewer & is_sure[None, :]
    kept: list[int] = []
    # a sure card's own outline comes before a box built at a card size that is not surer by
    # over ``margin`` (a box from the card's side to a printed edge inside it reads another
    # card of its suit as surely as the whole card reads itself)
    own_sure = outlined & is_sure
    rank = both.confidence + margin * own_sure
    for i in np.argsort(-rank, kind="stable").tolist():
        if dropped[i]:
            continue
        # (a kept box that is a part of this one says nothing of it: this one is the card; but
        # a sure card's own outline is the card, and this one a box around it and its table)
        if any(not (part[j, i] and not own_sure[j]) and (
               np.linalg.norm(centres[i] - centres[j]) <= 0.5 * shorts[j]
               or (((source[i] != source[j] and max(source[i], source[j]) >= guessed_from and is_sure[j]) or again[i, j])
                   and on[i, j] >= straddle)
               or (same[i, j] and on[i, j] >= same_on))
               for j in kept):
            continue
        kept.append(i)
    # (a card kept is also where its other sure reads lie: a second read of it may sit better)
    cards = [j for j in range(n) if not dropped[j] and any(same[j, k] for k in kept)]
    kept = [i for i in kept if own_sure[i] or not any(part[i, j] and (fewer[i, j] or not surer[i, j] or weak[i, j])
                                                      for j in cards)]
    kept = sorted(kept)
    found = both[np.array(kept, np.int64)]
    # the card size: the sure cards found at sizes measured on the photo or by their own outline
    # (or read as the same card at its place at such a size), if any (a sure box built at a guessed size says nothing of the size, and with one card
    # beside it the median is their mean)
    sure_kept = [k for k, i in enumerate(kept) if is_sure[i]]
    # (a card read surely at a measured size too, where it is kept at a guessed one, was measured)
    measured = ~guessed | outlined
    twin: BoolArray = np.asarray(np.array([[measured[j] and is_sure[j] and same[i, j] and np.linalg.norm(centres[i] - centres[j]) <= 0.5 * shorts[j]
                      for j in range(n)] for i in range(n)], bool).reshape(n, n).any(axis=1))
    measured_sure = [k for k in sure_kept if measured[kept[k]] or twin[kept[k]]]
    surest = found[np.array(measured_sure or sure_kept, np.int64)]
    if not len(surest):
        return found
    sides = np.sort(np.stack([np.linalg.norm(surest.quad[:, 1] - surest.quad[:, 0], axis=1),
                              np.linalg.norm(surest.quad[:, 2] - surest.quad[:, 1], axis=1)], axis=1), axis=1)
    return _not_smaller(found, (float(np.median(sides[:, 0])), float(np.median(sides[:, 1]))))


def _long_sides(quads: FloatArray) -> FloatArray:
    """The longer of each quad's two adjacent sides (px)."""
    if not len(quads):
        return np.zeros(0, np.float32)
    out: FloatArray = np.maximum(np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1),
                                 np.linalg.norm(quads[:, 2] - quads[:, 1], axis=1)).astype(np.float32)
    return out


def _fewer_pips(cards: Sequence[str]) -> BoolArray:
    """``[i, j]``: cards ``i`` and ``j`` are pip cards (no court, no back) of one suit and ``i``
    has fewer pips."""
    def pips(code: str) -> tuple[str, int] | None:
        if code in ("", BACK):
            return None
        card = parse_card(code)
        count = {"A": 1}.get(card.rank) or (int(card.rank) if card.rank.isdigit() else 0)
        return (card.suit, count) if 0 < count <= (7 if card.italian else 10) else None

    counts = [pips(str(c)) for c in cards]
    out: BoolArray = np.array([[a is not None and b is not None and a[0] == b[0] and a[1] < b[1] for b in counts]
                               for a in counts], bool).reshape(len(counts), len(counts))
    return out


def _concat(a: Detections, b: Detections) -> Detections:
    if not len(a) or not len(b):
        return a if len(a) else b
    return Detections(
        quad=np.concatenate([a.quad, b.quad]),
        group=np.arange(len(a) + len(b), dtype=np.int32),
        card=np.concatenate([a.card, b.card]),
        confidence=np.concatenate([a.confidence, b.confidence]),
        top=[*a.top, *b.top],
    )


def _not_smaller(dets: Detections, size: tuple[float, float] | None, frac: float = 0.4) -> Detections:
    """The detections at least ``frac`` of the card area ``size`` (short, long) the sure reads
    gave: the cards of one deck are one size, and a card-shaped box far smaller than a sure
    card is a pip, a print detail or a patch of the table.  Only smaller ones are dropped: a
    sure read can itself be a box around a large card's pip."""
    if size is None or not len(dets):
        return dets
    areas = np.array([float(cv2.contourArea(q.astype(np.float32))) for q in dets.quad])
    return dets[areas >= frac * size[0] * size[1]]


def _best_per_group(dets: Detections) -> Detections:
    best: dict[int, int] = {}
    for i, g in enumerate(dets.group.tolist()):
        if g not in best or dets.confidence[i] > dets.confidence[best[g]]:
            best[g] = i
    return dets[np.array(sorted(best.values()), np.int64)]


def _dedupe(dets: Detections, same_card: float = 0.7, pip_area: float = 0.5) -> Detections:
    """Same card code twice with close centres is one card (two hypotheses of one blob); so is
    a quad lying ``same_card`` or more inside a more confident one, whatever its read (cards on
    a table overlap by ~40%; a rectangle inside a card is its printed frame or a figure box).
    A quad at most ``pip_area`` the area of an accepted card it lies inside is not a card
    either, however confident its read: the cards of one deck are one size, and a card-shaped
    box around a pip of a large card (a close camera) reads as a two or an ace."""
    if len(dets) < 2:
        return dets
    order = np.argsort(-dets.confidence)
    centres = dets.centers
    sizes = np.linalg.norm(dets.quad[:, 0] - dets.quad[:, 1], axis=1)
    kept: list[int] = []
    for i in order.tolist():
        if all(
            (dets.card[i] != dets.card[j] or np.linalg.norm(centres[i] - centres[j]) > 0.6 * sizes[j])
            and _inside(dets.quad[i], dets.quad[j]) < same_card
            for j in kept
        ):
            kept.append(i)
    areas = [float(cv2.contourArea(q.astype(np.float32))) for q in dets.quad]
    kept = [i for i in kept if not any(
        areas[i] <= pip_area * areas[j] and _inside(dets.quad[i], dets.quad[j]) >= same_card for j in kept if j != i
    )]
    return dets[np.array(sorted(kept), np.int64)]


def _inside(a: FloatArray, b: FloatArray) -> float:
    """Fraction of convex quad ``a`` that lies inside convex quad ``b``."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    area = float(cv2.contourArea(a32))
    return float(inter) / area if area > 0 else 0.0
