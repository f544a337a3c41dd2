"""One reading of a still photo read at several card sizes.

A still photo's card size is unknown, so ``FramePipeline._still_sizes`` runs the finder and the
classifier once per size the photo may hold (a *pass*): the size its blobs give, the size of its
sure reads, and the priors of a camera over a table.  The passes overlap.  One card is read at
two sizes; a card-sized box around one pip of a large card reads surely as a two or an ace; a box
over half a card and the table beside it reads as another card of its suit; a box around a card
and its table reads as that card.  :func:`one_reading` resolves them into one card per physical
card, in named steps:

1. :func:`_pooled`: every pass's detections in one list, each with its pass and whether it is a
   card's own outline (a blob or an edge-closed region of a card's shape) rather than a
   rectangle built at an assumed size.
2. :class:`_Relations`: how each detection lies on each other one, computed once.
3. :func:`_pips_and_surrounds`: of a box inside a larger sure read, one is not a card: the
   small one is the large card's pip or figure box, or the large one is that card with the
   table around it (or a box around several cards).
4. :func:`_each_card_once`: most confident first, a detection that is a card already kept (at
   its place, over part of it and the table, or read again) is not kept.
5. :func:`_without_parts`: a kept box over part of a sure card, that reads it no better, goes;
   so does an unsure box mostly on a sure card's own outline (half of it and the table).
6. :func:`_not_larger`: no box far larger than a sure card's own outline (an envelope, a book or
   a sheet of paper, read as an ace, is no card beside the card found whole).
7. :func:`not_smaller`: no card far smaller than the sure cards (the cards of one deck are one
   size).

Where no look at a photo (``FramePipeline.process_still``: the first, then looser ones) reads a
card surely, :func:`surest_at_each_place` keeps the first look's cards, each read as the surest
box any look found at its place; and whatever the looks, :func:`at_most_copies` keeps no card read
more times than the deck holds it.

Pure numpy and OpenCV geometry; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from referee.cards import BACK, parse_card
from referee.vision.detections import BoolArray, Detections, FloatArray, IntArray
from referee.vision.finder.quad import share_inside


@dataclass(frozen=True)
class ReadingRules:
    """The shares and margins the reading decides by (fractions of a box's area, confidence
    differences)."""

    #: a box at most this share of a sure card's area, lying inside it, may be one of its pips
    pip_area: float = 0.5
    #: this share of a box on another one: the box lies within it
    inside: float = 0.7
    #: this share of a box on a sure card: the box is over that card (part of it, or it and the
    #: table beside it)
    straddle: float = 0.4
    #: read surer by over this: a difference in confidence that decides between two boxes
    margin: float = 0.1
    #: this share of a read of a card on a kept read of the same card: a second read of it (where
    #: the deck holds each card once)
    touch: float = 0.15
    #: a part of a card: a box at most this share of its area
    part_area: float = 0.65
    #: a box, not a card's own outline, over this many times the area of the largest sure card's
    #: own outline kept is no card: the cards of one deck are one size, and a card nearer the
    #: camera of an oblique photo covers at most about twice another's area (2.1 times a sure
    #: card's own outline on the trained-on half of the real pinochle photos)
    larger: float = 3.0
    #: an unsure box, not a card's own outline, with over this share of it on a sure card's own
    #: outline read as another card is no card: half of that card and the table beside it (a
    #: card covered by the next card of a trick has at most ~40% of it on that card)
    half: float = 0.6


RULES = ReadingRules()


def one_reading(passes: Sequence[tuple[Detections, BoolArray]], sure: float, guessed_from: int = 0,
                copies: int = 1, rules: ReadingRules = RULES, straight: Sequence[BoolArray] = ()) -> Detections:
    """The cards of several passes over one photo at different card sizes, as one reading.

    ``passes``: each pass's detections with which of them are a card's own outline; the passes
    from ``guessed_from`` on were run at a guessed card size (a prior), the ones before it at
    sizes measured on the photo.  ``copies``: how many of each card the deck holds (two in
    Binocolo's 48 or a pinochle deck: a second copy may lie on the first).  ``straight``: per
    pass, which detections are quads of four straight edges (none where not given)."""
    pool = _pooled(passes, straight)
    if len(pool.dets) < 2:
        return pool.dets
    rel = _Relations.of(pool, sure, guessed_from, rules)
    dropped = _pips_and_surrounds(rel, rules)
    kept = _each_card_once(rel, dropped, rules, copies)
    kept = _not_larger(rel, _without_parts(rel, dropped, kept, rules), rules)
    found = pool.dets[np.array(kept, np.int64)]
    return not_smaller(found, _card_size(found, rel, kept))


@dataclass(frozen=True)
class _Pool:
    dets: Detections
    #: a card's own outline, not a rectangle built at an assumed size
    outlined: BoolArray
    #: the pass each detection comes from
    source: IntArray
    #: a quad of four straight edges (the card's sides, or a printed frame or pip group's)
    straight: BoolArray


def _pooled(passes: Sequence[tuple[Detections, BoolArray]], straight: Sequence[BoolArray] = ()) -> _Pool:
    both, outlined = passes[0]
    source = np.zeros(len(both), np.int32)
    for n, (more, own) in enumerate(passes[1:], 1):
        both, outlined = both.joined(more), np.concatenate([outlined, own])
        source = np.concatenate([source, np.full(len(more), n, np.int32)])
    edged = [np.asarray(e, bool) for e in straight] or [np.zeros(len(d), bool) for d, _ in passes]
    return _Pool(both, np.asarray(outlined, bool), source, np.concatenate(edged))


@dataclass(frozen=True)
class _Relations:
    """Every detection against every other one (``[i, j]``: detection ``i`` against ``j``)."""

    dets: Detections
    source: IntArray
    outlined: BoolArray
    areas: FloatArray
    is_sure: BoolArray
    #: a sure card's own outline
    own_sure: BoolArray
    #: a quad of four straight edges
    straight: BoolArray
    #: built at a guessed card size (a prior), not at a size measured on the photo
    guessed: BoolArray
    centres: FloatArray
    shorts: FloatArray
    #: the share of ``i`` that lies on ``j``
    on: FloatArray
    #: ``i`` read surer than ``j`` by over the margin
    surer: BoolArray
    #: ``i`` and ``j`` pip cards of one suit, ``i`` with fewer pips
    fewer: BoolArray
    #: read as the same card
    same: BoolArray
    #: ``i`` at a guessed size and not its own outline, ``j`` found at a measured size: read
    #: however surely, such a box shows nothing of ``j`` (a box over half of a card read as an
    #: ace is no card of its own, and the card is no "card with its table around it")
    weak: BoolArray
    #: ``i`` a part of sure card ``j``: at most ``part_area`` of it with ``straddle`` or more of
    #: it on ``j`` (its pips or half of it and the table beside them: the cards of one deck are
    #: one size, and a box over a card's corner or half of its pips and the table beside it reads
    #: surely as a pip card as often as not)
    part: BoolArray

    @classmethod
    def of(cls, pool: _Pool, sure: float, guessed_from: int, rules: ReadingRules) -> _Relations:
        dets, n = pool.dets, len(pool.dets)
        areas = np.array([float(cv2.contourArea(q.astype(np.float32))) for q in dets.quad])
        is_sure = dets.confidence >= sure
        on = np.array([[0.0 if i == j else share_inside(dets.quad[i], dets.quad[j]) for j in range(n)]
                       for i in range(n)]).reshape(n, n)
        guessed = pool.source >= guessed_from
        return cls(
            dets=dets, source=pool.source, outlined=pool.outlined, areas=areas, is_sure=is_sure,
            own_sure=pool.outlined & is_sure, straight=pool.straight, guessed=guessed, centres=dets.centers,
            shorts=np.linalg.norm(dets.quad[:, 0] - dets.quad[:, 1], axis=1), on=on,
            surer=dets.confidence[:, None] > dets.confidence[None, :] + rules.margin,
            fewer=fewer_pips(dets.card.tolist()),
            same=dets.card[:, None] == dets.card[None, :],
            weak=guessed[:, None] & ~guessed[None, :] & ~pool.outlined[:, None],
            part=(areas[:, None] <= rules.part_area * areas[None, :]) & (on >= rules.straddle) & is_sure[None, :],
        )

    def close(self, i: int, j: int) -> bool:
        """``i``'s centre within half a card of ``j``'s: the same place."""
        return bool(np.linalg.norm(self.centres[i] - self.centres[j]) <= 0.5 * self.shorts[j])


def _pips_and_surrounds(rel: _Relations, rules: ReadingRules) -> BoolArray:
    """Which detections are not cards because they lie inside, or around, a sure read.

    Where a detection lies ``inside`` or more within a sure one at least 1 / ``pip_area`` its
    area, one of the two is not a card: the small one is the large card's pip or figure box,
    unless it is a sure card's own outline or read surer by over ``margin``, and then the large
    one is that card with the table around it, or a box around several cards (which reads less
    surely than each of them)."""
    # within[i, j]: i lies within j, at most pip_area of it
    within = (rel.areas[:, None] <= rules.pip_area * rel.areas[None, :]) & (rel.on >= rules.inside)
    nested = within & ~rel.surer
    # a box inside a larger read of the same suit with more pips shows only some of that card's
    # pips (the card is partly covered: a finger, the next card of a trick), however surely it
    # reads: not a card, and no reason to drop the larger read (a box around a card reads that
    # card itself; one around two cards reads a court or another suit as often as not); but not
    # of a box that is itself a card with the table around it (a patterned cloth merges with the
    # card into such boxes, and the card inside them is the card)
    # a sure quad of four straight edges inside a box that is neither a card's own outline nor
    # such a quad (a hull or a rectangle around the card and a patterned table) is the card, and
    # the box that card with the table around it, whatever the box reads: a hull's sides are
    # not straight edges; inside another straight-edge quad it may be a printed pip group's frame
    card_in_box = (rel.straight & rel.is_sure)[:, None] & ~(rel.outlined | rel.straight)[None, :]
    pips_of = within & rel.fewer & ~rel.own_sure[:, None] & ~card_in_box
    within = within & ~pips_of
    # (and so is such a box only 1 / part_area the card's area or more, not 1 / pip_area: a
    # rectangle at a guessed size turned and shifted over the card and its table; deck08's
    # denari_2 in a camera frame at 160 px: its straight sides read 0.96, 97% of them inside a
    # 'corner' box 1.6 times their area read denari_3 at 0.84, which took the card as its part)
    snug = (rel.areas[:, None] <= rules.part_area * rel.areas[None, :]) & (rel.on >= rules.inside)
    around_card: BoolArray = np.asarray(
        (within & ((rel.surer & ~rel.weak) | rel.outlined[:, None]) & rel.is_sure[:, None]
         | snug & card_in_box).any(axis=0))
    pips_of = pips_of & ~around_card[None, :]
    pip: BoolArray = np.asarray((nested & (rel.is_sure & ~around_card)[None, :]).any(axis=1) & ~rel.own_sure)
    out: BoolArray = pip | pips_of.any(axis=1) | around_card
    return out


def _each_card_once(rel: _Relations, dropped: BoolArray, rules: ReadingRules, copies: int) -> list[int]:
    """The detections kept, most confident first (a sure card's own outline as if ``margin``
    surer: a box from the card's side to a printed edge inside it reads another card of its suit
    as surely as the whole card reads itself), each unless it is a card already kept."""
    # a second read of a kept card: the same card on ``touch`` or more of it where the deck holds
    # each card once; where it holds two, on ``straddle`` or more of it, as much as no second copy
    # can lie on the first (a trick's card is read while covered by up to ~40%, so less than that
    # of it lies on the card above it)
    same_on = rules.touch if copies <= 1 else rules.straddle
    # or, read less surely than a sure card, some of its pips on ``straddle`` or more of it
    again = rel.fewer & rel.is_sure[None, :]

    def already_read(i: int, j: int) -> bool:
        """Whether ``i`` is kept card ``j`` again: at its place; a box of another pass over sure
        ``j`` with either of them at a guessed size (a rectangle over part of that card and the
        table beside it: within one pass, and between sizes measured on the photo's cards,
        overlapping cards are the finder's to split); its pips; or read as the same card."""
        # a kept box that is a part of this one says nothing of it: this one is the card; but a
        # sure card's own outline is the card, and this one a box around it and its table; and so
        # is a part read as the same card as this one, surer (one card read twice: itself, and
        # with the table around it)
        if rel.part[j, i] and not rel.own_sure[j] and not rel.same[i, j]:
            return False
        over = rel.on[i, j] >= rules.straddle
        other_size = rel.source[i] != rel.source[j] and (rel.guessed[i] or rel.guessed[j]) and rel.is_sure[j]
        return bool(rel.close(i, j) or ((other_size or again[i, j]) and over)
                    or (rel.same[i, j] and rel.on[i, j] >= same_on))

    rank = rel.dets.confidence + rules.margin * rel.own_sure
    kept: list[int] = []
    for i in np.argsort(-rank, kind="stable").tolist():
        if not dropped[i] and not any(already_read(i, j) for j in kept):
            kept.append(i)
    return kept


def _without_parts(rel: _Relations, dropped: BoolArray, kept: list[int], rules: ReadingRules = RULES) -> list[int]:
    """``kept`` (in index order) without a part of a sure read of a kept card that reads that
    card's suit with fewer pips, or is not surer by over ``margin``, or is a weak box over it (a
    sure card's own outline excepted; a part read as the same card is that card), and without
    an unsure box over ``half`` of it on a sure card's own outline. A card kept is also where its
    other sure reads lie: a second read of it may sit better."""
    cards = [j for j in range(len(rel.dets)) if not dropped[j] and any(rel.same[j, k] for k in kept)]
    # an unsure box built at a size (not its own outline) mostly on a sure card's own outline,
    # read as another card, is that card's half and the table beside it, whatever its area
    half = ~rel.is_sure[:, None] & ~rel.outlined[:, None] & rel.own_sure[None, :] & (rel.on > rules.half) & ~rel.same
    # (a box around a card read as that card is the card read twice, not a card it is part of)
    return sorted(i for i in kept if rel.own_sure[i] or not any(
        (rel.part[i, j] and not rel.same[i, j] and (rel.fewer[i, j] or not rel.surer[i, j] or rel.weak[i, j]))
        or half[i, j] for j in cards))


def _not_larger(rel: _Relations, kept: list[int], rules: ReadingRules) -> list[int]:
    """``kept`` without a box, not a card's own outline, over ``larger`` times the area of the
    largest sure card's own outline kept.  A card's own outline read surely measures the card
    (a blob or an edge-closed region of a card's shape); a rectangle built at a guessed size far
    larger than it is a white object around which the finder closed a card-shaped box (an
    envelope, a book, a sheet of paper reads surely as an ace), or a card with much table."""
    own = [i for i in kept if rel.own_sure[i]]
    if not own:
        return kept
    most = rules.larger * float(rel.areas[own].max())
    return [i for i in kept if rel.outlined[i] or rel.areas[i] <= most]


def _card_size(found: Detections, rel: _Relations, kept: list[int]) -> tuple[float, float] | None:
    """The card size (short, long; medians) of the sure cards found at sizes measured on the
    photo or by their own outline, or read as the same card at its place at such a size, if any,
    else of every sure card kept: a sure box built at a guessed size says nothing of the size
    (and with one card beside it the median is their mean)."""
    measured = ~rel.guessed | rel.outlined
    n = len(rel.dets)

    def twin(i: int) -> bool:
        """A card read surely at a measured size too, where it is kept at a guessed one."""
        return any(measured[j] and rel.is_sure[j] and rel.same[i, j] and rel.close(i, j) for j in range(n))

    sure_kept = [k for k, i in enumerate(kept) if rel.is_sure[i]]
    measured_sure = [k for k in sure_kept if measured[kept[k]] or twin(kept[k])]
    surest = found[np.array(measured_sure or sure_kept, np.int64)]
    if not len(surest):
        return None
    sides = np.sort(np.stack([np.linalg.norm(surest.quad[:, 1] - surest.quad[:, 0], axis=1),
                              np.linalg.norm(surest.quad[:, 2] - surest.quad[:, 1], axis=1)], axis=1), axis=1)
    return float(np.median(sides[:, 0])), float(np.median(sides[:, 1]))


def not_smaller(dets: Detections, size: tuple[float, float] | None, frac: float = 0.4) -> Detections:
    """The detections at least ``frac`` of the card area ``size`` (short, long) the sure reads
    gave: the cards of one deck are one size, and a card-shaped box far smaller than a sure
    card is a pip, a print detail or a patch of the table.  Only smaller ones are dropped: a
    sure read can itself be a box around a large card's pip."""
    if size is None or not len(dets):
        return dets
    areas = np.array([float(cv2.contourArea(q.astype(np.float32))) for q in dets.quad])
    return dets[areas >= frac * size[0] * size[1]]


def surest_at_each_place(first: Detections, later: Sequence[Detections]) -> Detections:
    """The first look's cards, each as the surest read at its place (centre within half its short
    side) of any look: where no look at a still photo read a card surely, one card proposed by
    several outlines is the outline it reads best through (deck06's bastoni_7 in a camera frame
    at 160 px: the first look's box from its left side to a column of staves read bastoni_5 at
    0.64; the whole card, found at twice the work width, bastoni_7 at 0.72).  No card where the
    first look found none: the later looks are looser, and taken on their own only where they
    read a card surely (on the real pinochle photos such reads were two boxes on no card to one
    card)."""
    if not len(first):
        return first
    pool = first
    for look in later:
        pool = pool.joined(look)
    n = len(first)
    shorts = np.linalg.norm(first.quad[:, 1] - first.quad[:, 0], axis=1)
    # each later read belongs to the first look's card nearest it (a later read of one card is
    # no read of the card beside it: on a real pinochle photo a second read of an ace took the
    # place of the queen beside it)
    apart = np.linalg.norm(pool.centers[:, None, :] - first.centers[None, :, :], axis=2)  # (pool, first)
    nearest = np.argmin(apart, axis=1)
    picked: list[int] = []
    for i in range(n):
        at_place = (nearest == i) & (apart[:, i] <= 0.5 * shorts[i])
        at_place[:n] = False
        at_place[i] = True
        candidates = np.flatnonzero(at_place)  # ``i`` first: it stays on a tie
        picked.append(int(candidates[np.argmax(pool.confidence[candidates])]))
    return pool[np.array(picked, np.int64)]


def at_most_copies(dets: Detections, copies: int) -> Detections:
    """The detections, each card at most ``copies`` times: the surest reads of it. A card read at
    more places than the deck holds it is, at all but that many of them, something else (on the
    real Triestine photos, a pattern no model trained on, two boxes on one photo read as the same
    ace 0.82 and 0.84, both wrong; a Napoletane card cut into boxes around its pips reads as
    several twos), so the less sure reads go and nothing right is lost where the surest is right."""
    if len(dets) <= copies:
        return dets
    count: dict[str, int] = {}
    kept: list[int] = []
    for i in np.argsort(-dets.confidence, kind="stable").tolist():
        card = str(dets.card[i])
        count[card] = count.get(card, 0) + 1
        if count[card] <= copies:
            kept.append(i)
    return dets[np.array(sorted(kept), np.int64)]


def fewer_pips(cards: Sequence[str]) -> BoolArray:
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
