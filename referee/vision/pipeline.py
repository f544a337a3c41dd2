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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

from referee.cards import BACK
from referee.recognition.black_pips import PipVote
from referee.recognition.steady_rule import SteadyRule
from referee.vision.card_size import prior_quad
from referee.vision.detections import BoolArray, Detections, FloatArray, Image
from referee.vision.finder import CardFinder, FinderConfig, portrait_order, rectify
from referee.vision.finder.config import (
    FALLBACK_FAR_FROM,
    FALLBACK_LINE_SUPPORT,
    FALLBACK_THREE_SIDES,
    FALLBACK_TINTED_SIDES,
)
from referee.vision.finder.quad import share_inside
from referee.vision.one_reading import (
    at_most_copies,
    not_smaller,
    one_reading,
    surest_at_each_place,
)
from referee.vision.steady_read import steady_reads
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
    #: ``min_confidence`` for a single photo's looks (:meth:`process_still`)
    still_min_confidence: float = 0.4
    #: what a single photo's reading reports: a read less sure than this is no card. Not the
    #: looks' floor: an unsure first read marks where a later look may read the card better
    #: (:func:`~referee.vision.one_reading.surest_at_each_place`). Measured on the real photos
    #: (2 Dec 2026): of the reads between 0.4 and 0.5, 9 of 10 were wrong (Triestine 6 of 6,
    #: EPFL 3 of 4, right by suit alone), and none of the Napoletane or pinochle reads lies there
    still_keep_confidence: float = 0.5
    #: ``min_confidence`` for the briscola under the stock (its hypotheses are blind guesses)
    stock_min_confidence: float = 0.6
    #: a photo's card is at least this share of the recogniser's rated :data:`MIN_CARD_PX` tall;
    #: a card-shaped box smaller than that is a pip or a print detail (a photo's edge regions
    #: close around single pips of a card itself too small to be found whole)
    min_card_share: float = 0.5
    #: how many of each card the deck holds (:attr:`referee.cards.Deck.copies`: binocolo's two);
    #: with one, two reads of the same card on each other in a photo are one card
    copies: int = 1
    #: the frames :meth:`process` reads are voted on by their pips where the model's JSON asks
    #: for it live (``"black_pips": {"live": true}``, :func:`clubs_by_pips`); off during a still
    #: photo's looks, which :meth:`process_still` votes on once, at the end
    pip_vote_frames: bool = True

    @classmethod
    def create(
        cls, classifier: Recogniser, layout: ZoneMap | None = None, config: FinderConfig | None = None
    ) -> FramePipeline:
        cfg = config or FinderConfig(split_when_still=True)  # frames of a video by default
        cfg = replace(cfg, crop_size=tuple(classifier.input_size))  # type: ignore[arg-type]
        return cls(CardFinder(cfg), classifier, layout=layout)

    def process(self, image: Image) -> Detections:
        dets = self.finder.find(image, focus=self._play_area(), cut=False)
        if self.layout is not None and len(dets):
            zones = [self.layout.zone_of(tuple(c)) for c in dets.centers]
            keep = np.array([z != "outside" for z in zones]) & ~self._on_markers(dets)
            dets = dets[keep]
        dets = self.finder.cut(image, dets)  # only the quads kept: those outside the mat are never read
        stock = self._stock_card(image)
        first_stock = int(dets.group.max()) + 1 if len(dets) else 0
        found = identify(_with_stock_card(dets, stock), self.classifier, self.min_confidence, self.cache,
                         self.finder.kind_of)
        if len(stock):
            # a crop half over the stock's back can read as some card: only a sure read counts
            found = found[(found.group < first_stock) | (found.confidence >= self.stock_min_confidence)]
        vote: PipVote | None = getattr(self.classifier, "black_pips", None)
        if self.pip_vote_frames and vote is not None and vote.live:
            found = clubs_by_pips(image, found, vote)
        return found

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
        sure card, also try the larger cards of a close-up photo. No card more times than the
        deck holds it (:func:`~referee.vision.one_reading.at_most_copies`), none less sure
        than :attr:`still_keep_confidence`, and none less sure than the model's floor for its card
        (``CardClassifier.still_floor``), none whose read does not hold when its box moves
        (:func:`~referee.vision.steady_read.steady_reads`, where the model's JSON asks for it: a
        card-sized window over part of a card reads as another card only where it lies); a spade
        whose pips are clubs is that club (:func:`clubs_by_pips`, where the model's JSON asks for
        it)."""
        found = at_most_copies(self._still_looks(image, sure), self.copies)
        found = found[found.confidence >= self.still_keep_confidence]
        # the model's own floors (CardClassifier.still_floor); a test's fake recogniser has none
        floors: dict[str, float] = getattr(self.classifier, "still_floor", {})
        if floors and len(found):
            keep = np.array([c >= floors.get(card, 0.0) for card, c in zip(found.card, found.confidence, strict=True)])
            found = found[keep]
        steady: SteadyRule | None = getattr(self.classifier, "still_steady", None)
        if steady is not None and len(found):
            # the model's reads compared, before the pip vote turns a spade into its club
            found = found[steady_reads(image, found, self.classifier.classify, self.finder.config.crop_size, steady)]
        return clubs_by_pips(image, found, getattr(self.classifier, "black_pips", None))

    def _still_looks(self, image: Image, sure: float) -> Detections:
        """:meth:`process_still`'s looks, the first that reads a card surely."""
        self.finder.reset()
        live, floor, vote_frames = self.finder.config, self.min_confidence, self.pip_vote_frames
        self.pip_vote_frames = False  # process_still votes once on what the looks settle on
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
        still = self.finder.config
        try:
            found = self._still_sizes(image, sure)
            if self._read_surely(found, sure):
                return found
            wide = min(image.shape[1], 2 * live.work_width)
            closer = Detections.empty()
            if wide > live.work_width:
                # no sure card: cards may be small in a wide frame (a card 80 px tall in the box
                # camera's 1280x720 is 40 px at the work width, where a 2 of spade's swords cut
                # its white apart): one more look at up to twice the width, at the sizes its blobs give
                self.finder.config = replace(still, work_width=wide)
                closer = self._still_sizes(image, sure, priors=())
                if self._read_surely(closer, sure):
                    return closer
            # still none: a card about as light as its table (grey stock on speckled stone)
            # whose straight sides are edges along less of their length than the finder asks
            # of every photo; one more look with the looser straight-edge quads, kept only
            # where it reads a card surely
            self.finder.config = replace(still, line_support=FALLBACK_LINE_SUPPORT)
            looser = self._still_sizes(image, sure)
            if self._read_surely(looser, sure):
                return looser
            # and still none: one of the card's sides as light as the table all along it (the
            # box camera's 80-100 px); its other three sides close the card; where no look found
            # any card at all, also from a side seen only in a short piece (white lace as white
            # as the card along two of its sides)
            none_found = not (len(found) or len(closer) or len(looser))
            self.finder.config = replace(still, line_support=FALLBACK_LINE_SUPPORT, line_three_sides=FALLBACK_THREE_SIDES,
                                         line_far_from=FALLBACK_FAR_FROM if none_found else still.line_far_from)
            three = self._still_sizes(image, sure)
            if self._read_surely(three, sure):
                return three
            # and still none: two of the card's sides no edge at all (grey stock on grey stone at
            # 80-100 px); the card's paper is a little yellow and the stone neutral
            # (with the far sides of every other look: the tint's looks were measured so)
            self.finder.config = replace(self.finder.config, chroma_regions=True, line_far_from=still.line_far_from)
            tinted = self._still_sizes(image, sure)
            if self._read_surely(tinted, sure):
                return tinted
            # and still none: the tinted region bled a colour block past the card's faint sides;
            # straight lines close it where each side bounds the tint
            self.finder.config = replace(self.finder.config, line_tinted=FALLBACK_TINTED_SIDES)
            bounded = self._still_sizes(image, sure)
            if self._read_surely(bounded, sure):
                return bounded
            # no look read a card surely: the first look's cards, each read through the outline
            # of any look that reads it best
            return surest_at_each_place(found, [closer, looser, three, tinted, bounded])
        finally:
            self.finder.config, self.min_confidence, self.pip_vote_frames = live, floor, vote_frames

    def _read_surely(self, found: Detections, sure: float) -> bool:
        """Whether a look at a still photo read some card surely, and that card no more times
        than the deck holds it: a card read at more places than it has copies is, at all but
        one of them, a box around a group of pips of some other card (which reads surely as an
        ace as often as not), and the photo deserves the later looks too."""
        cards = found.card.tolist()
        return any(c >= sure and cards.count(card) <= self.copies for card, c in zip(cards, found.confidence.tolist(), strict=True))

    def find_card_size(self, image: Image, priors: Sequence[float] = (0.12, 0.24), sure: float = 0.8) -> Detections:
        """A live frame while the card size is still unknown: like :meth:`process_still`, with
        the size priors of a camera over a table (card long side as a fraction of the height)."""
        return self._process_still(image, sure, priors)

    def _still_sizes(self, image: Image, sure: float, priors: Sequence[float] = (0.3, 0.5, 0.65, 0.8)) -> Detections:
        """A photo's cards at every size it may hold, read as one: the size the first look
        gives (blobs, then the sure reads'), and unless a sure read is a card's own outline, each
        prior (card long side as a fraction of the height, up to a close-up card ~0.8 of it),
        resolved by :func:`~referee.vision.one_reading.one_reading`.

        Not the pass with the most sure confidence: a card-sized box around each pip of a large
        card reads surely as a two or an ace, so four pip boxes outweigh the one whole card
        (measured on the real Napoletane photos shrunk to 80-245 px: 4 or 5 of denari read as
        several ``denari_2``); nor only the sure reads' size, which is then the pip box's."""
        first = self.process(image)
        passes = [(first, self._outlined(first))]
        straight = [self._straight(first)]
        tried = [self.finder.card_size]
        confident = first[first.confidence >= sure]
        self.finder.reset()
        if len(confident) and self.finder.observe(confident.quad):
            if not _near(self.finder.card_size, tried):
                again = self.process(image)
                passes.append((again, self._outlined(again)))
                straight.append(self._straight(again))
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
            straight.append(self._straight(again))
        found = one_reading(passes, sure, measured, copies=self.copies, straight=straight)
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

    def _straight(self, dets: Detections) -> BoolArray:
        """Which detections of the last pass are quads of four straight edges (``lines.py``)."""
        return np.array([self.finder.kind_of(q) == STRAIGHT_EDGES for q in dets.quad], bool)

    def _process_still(self, image: Image, sure: float, priors: Sequence[float] = (0.3, 0.5)) -> Detections:
        first = self.process(image)
        confident = first[first.confidence >= sure]
        size = self.finder.card_size
        self.finder.reset()
        if len(confident) and self.finder.observe(confident.quad):
            new = self.finder.card_size
            if size is None or new is None or abs(new[1] - size[1]) > 0.15 * size[1]:
                return not_smaller(_merge(first, self.process(image)), new)
            return not_smaller(first, new)
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
    dets: Detections, classifier: Recogniser, min_confidence: float = 0.3, cache: ReadCache | None = None,
    kind_of: Callable[[FloatArray], str] | None = None,
) -> Detections:
    """Classify the crops; keep one face-up card per group and per spot, crops dropped.
    ``kind_of``: each quad's hypothesis kind (``CardFinder.kind_of``), where known."""
    if not len(dets):
        return dets.without_crops()
    preds = cache.classify(dets, classifier) if cache is not None else list(classifier.classify(dets.crops))
    dets = dets.with_identities(
        [p.card for p in preds], [p.confidence for p in preds], [list(p.top) for p in preds]
    ).without_crops()
    keep = (dets.card != BACK) & (dets.confidence >= min_confidence)
    dets = dets[keep]
    return _dedupe(_best_per_group(dets), kind_of=kind_of)


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
    return _overlaps_resolved(a.joined(b))


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
#: the hypothesis kind of a quad of four straight edges
STRAIGHT_EDGES = "line"


def _near(size: tuple[float, float] | None, sizes: Sequence[tuple[float, float] | None], tol: float = 0.15) -> bool:
    """Whether card ``size``'s long side is within ``tol`` of one of ``sizes`` (a pass at it is
    already done)."""
    return size is not None and any(s is not None and abs(size[1] - s[1]) <= tol * s[1] for s in sizes)


def _long_sides(quads: FloatArray) -> FloatArray:
    """The longer of each quad's two adjacent sides (px)."""
    if not len(quads):
        return np.zeros(0, np.float32)
    out: FloatArray = np.maximum(np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1),
                                 np.linalg.norm(quads[:, 2] - quads[:, 1], axis=1)).astype(np.float32)
    return out


def _best_per_group(dets: Detections) -> Detections:
    best: dict[int, int] = {}
    for i, g in enumerate(dets.group.tolist()):
        if g not in best or dets.confidence[i] > dets.confidence[best[g]]:
            best[g] = i
    return dets[np.array(sorted(best.values()), np.int64)]


def _dedupe(dets: Detections, same_card: float = 0.7, pip_area: float = 0.5,
            kind_of: Callable[[FloatArray], str] | None = None) -> Detections:
    """Same card code twice with close centres is one card (two hypotheses of one blob); so is
    a quad lying ``same_card`` or more inside a more confident one, whatever its read (cards on
    a table overlap by ~40%; a rectangle inside a card is its printed frame or a figure box).
    A quad at most ``pip_area`` the area of an accepted card it lies inside is not a card
    either, however confident its read: the cards of one deck are one size, and a card-shaped
    box around a pip of a large card (a close camera) reads as a two or an ace.  But a quad of
    four straight edges read more surely than a box around it that is neither a card's own
    outline nor such a quad (a hull or a rectangle around the card and a patterned table) is
    the card, and kept: a hull's sides are not straight edges (the box is left to the still
    photo's one reading; the live loop proposes no straight-edge quads)."""
    if len(dets) < 2:
        return dets
    order = np.argsort(-dets.confidence)
    centres = dets.centers
    sizes = np.linalg.norm(dets.quad[:, 0] - dets.quad[:, 1], axis=1)
    kept: list[int] = []
    for i in order.tolist():
        if all(
            (dets.card[i] != dets.card[j] or np.linalg.norm(centres[i] - centres[j]) > 0.6 * sizes[j])
            and share_inside(dets.quad[i], dets.quad[j]) < same_card
            for j in kept
        ):
            kept.append(i)
    areas = [float(cv2.contourArea(q.astype(np.float32))) for q in dets.quad]
    kinds = [kind_of(q) if kind_of is not None else "" for q in dets.quad]

    def card_in_box(i: int, j: int) -> bool:
        return (kinds[i] == STRAIGHT_EDGES and kinds[j] not in (*OWN_OUTLINE, STRAIGHT_EDGES)
                and bool(dets.confidence[i] > dets.confidence[j]))

    kept = [i for i in kept if not any(
        areas[i] <= pip_area * areas[j] and share_inside(dets.quad[i], dets.quad[j]) >= same_card
        and not card_in_box(i, j) for j in kept if j != i
    )]
    return dets[np.array(sorted(kept), np.int64)]


#: a card's quad is rectified at its own size for the pip vote, but no taller than this (px):
#: a ten's pips are then still about 40 px across, and the vote's cost stays bounded
PIP_CROP_MAX_HEIGHT = 400


def clubs_by_pips(image: Image, found: Detections, vote: PipVote | None) -> Detections:
    """``found`` with each spade of rank 2-10 whose whole pips vote club
    (:class:`~referee.recognition.black_pips.PipVote`) read as the club of its rank, at the
    spade's confidence (the two cards' probabilities swap, runner-ups too). The quad is
    rectified at its own size in ``image``, not the recogniser's input, so that a ten's pips are
    large enough to have a shape; a card too small for that is left as read."""
    if vote is None or not len(found):
        return found
    cards = found.card.tolist()
    tops = [list(t) for t in found.top]
    changed = False
    for i, card in enumerate(cards):
        club = vote.club_of(str(card))
        if club is None:
            continue
        quad = found.quad[i]
        tall = max(float(np.linalg.norm(quad[3] - quad[0])), float(np.linalg.norm(quad[2] - quad[1])))
        wide = max(float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[3])))
        scale = min(1.0, PIP_CROP_MAX_HEIGHT / max(tall, 1.0))
        size = (max(1, round(wide * scale)), max(1, round(tall * scale)))
        if not vote.votes_club(rectify(image, quad, size)):
            continue
        cards[i] = club
        tops[i] = [(club if c == card else card if c == club else c, p) for c, p in tops[i]]
        changed = True
    if not changed:
        return found
    return found.with_identities(cards, found.confidence.tolist(), tops)
