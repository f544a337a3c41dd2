"""Overlapped trick cards on real photos: a card partly covered by the next card of the trick or
by a finger, read right, honestly unsure, or (the failure) surely read as another card.

    nice -n 19 .venv/bin/python benchmarks/overlap_cards.py                 # every verified photo: hours
    nice -n 19 .venv/bin/python benchmarks/overlap_cards.py --limit 3       # 3 photos per deck: ~15 min
    nice -n 19 .venv/bin/python benchmarks/overlap_cards.py --limit 3 --crops-only --json /tmp/ov.json
    nice -n 19 .venv/bin/python benchmarks/overlap_cards.py --limit 3 --paths detect   # the still path only

Each real Napoletane photo (``../shared/photos/italian_napoletane_real_decks``, its verified quad
in ``benchmarks/data/napoletane_real_quads.csv``) has its card covered by 10/20/30/40% of its
area (measured on the two shapes), from a side or a corner, by

card     another real card, cut along its verified quad from another deck's photo, turned a few
         degrees, casting a soft shadow: the next card of a trick laid over it
finger   a skin-coloured rounded bar, shaded across its width, casting a soft shadow

The photo's surface is extended (its margins mirrored) so the covering card lies whole in the
picture. Each scene is read at the photo's size and area-shrunk (JPEG 60) so the covered card is
160 and 100 px tall, along two paths:

detect   ``referee detect``'s path (``detect_image``: finder + classifier, no history)
live     the live loop's frame pipeline (``FramePipeline.process``) at 1280 px wide, the card
         size known as on a calibrated table, the still scene seen three times; with
         ``--in-frame`` the scene (the cards and a card's height of their surface round them,
         its border feathered) lies in a 1280x720 frame of its surface's median colour, as the
         box's camera sees a card 100-160 px tall (without it a shrunk scene is read as it is,
         a small picture the finder enlarges to its work width)
crop     the classifier alone on the covered card cut along its true quad

Per path, occluder and fraction, the covered card's outcome (``sure`` is the tracker's
``TrackerConfig.sure_share``, the confidence a single read needs to count as sure):

r-sure   the covered card read with confidence >= sure
r-unsure the covered card read, less sure
unsure   no read of it, or a wrong read below sure: honest
WRONG    another card (not the covering one) read surely on the covered card's place: the failure
cover    the covering card read right (cards only)

``--whole`` adds each photo's card uncovered (occluder ``none``). The live path's summary per
deck gives found (a quad on the card), right, sure-wrong and false cards (quads on neither card)
and the CPU time of a frame.

    nice -n 19 .venv/bin/python benchmarks/overlap_cards.py --paths live --limit 5 --in-frame --whole --heights 160 100
    ... --edge-blobs off      # the live finder without the faint-edge regions (FinderConfig.edge_blobs)

Fixed seeds: the same photos, occluders, sides and angles on every run.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.real_crops import seen_at
from referee.recognition.real_decks import DeckPhoto, deck_names, deck_photos
from referee.recognition.rectify import warp_portrait
from referee.recognition.synth import rounded_mask
from referee.recognition.views import LIVE_VIEWS
from referee.vision.detect import detect_image
from referee.vision.finder import FinderConfig
from referee.vision.pipeline import FramePipeline
from referee.vision.tracker.config import TrackerConfig

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

FRACTIONS = (0.1, 0.2, 0.3, 0.4)
OCCLUDERS = ("card", "finger")
#: (width, height) of the box camera's frame for ``--in-frame``
FRAME = (1280, 720)
#: directions (in the covered card's own axes: x along its width, y along its height) the cover
#: comes from: the four sides, then the four corners
PLACES: dict[str, tuple[float, float]] = {
    "left": (-1, 0), "right": (1, 0), "top": (0, -1), "bottom": (0, 1),
    "top-left": (-1, -1), "top-right": (1, -1), "bottom-left": (-1, 1), "bottom-right": (1, 1),
}
#: card heights (px) of the shrunk runs; None: the photo's own size
HEIGHTS: tuple[int | None, ...] = (None, 160, 100)
JPEG_QUALITY = 60
#: a finger (a thumb close to the camera) is this fraction of the card's width wide
FINGER_WIDTH = 0.45
OUTCOMES = ("r-sure", "r-unsure", "unsure", "WRONG")


@dataclass(frozen=True)
class Scene:
    """One covered card in a composed picture (quads in the picture's pixels)."""

    image: U8
    covered: str
    covered_quad: F32
    cover_quad: F32 | None  # the covering card's quad (None: a finger)
    cover_card: str | None
    hidden: float  # fraction of the covered card's area covered


@dataclass
class Result:
    deck: str
    card: str
    occluder: str
    place: str
    fraction: float
    hidden: float
    height: str
    path: str
    outcome: str
    read: str
    confidence: float
    cover_right: bool | None
    #: live path: a quad on the covered card; quads on neither card; CPU ms of the last frame
    found: bool | None = None
    false: int = 0
    cpu_ms: float = 0.0


def card_frame(quad: F32) -> tuple[F32, F32, F32, float, float]:
    """Centre, unit width and height axes, width and height of a portrait quad (tl, tr, br, bl)."""
    tl, tr, br, bl = quad.astype(np.float32)
    u, v = (tr - tl + br - bl) / 2, (bl - tl + br - tr) / 2
    w, h = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    return quad.mean(axis=0).astype(np.float32), (u / w).astype(np.float32), (v / h).astype(np.float32), w, h


def turned(axis: F32, degrees: float) -> F32:
    t = np.deg2rad(degrees)
    c, s = np.cos(t), np.sin(t)
    return np.array([c * axis[0] - s * axis[1], s * axis[0] + c * axis[1]], np.float32)


def covered_share(quad: F32, shape: F32) -> float:
    """Fraction of convex ``quad``'s area inside convex polygon ``shape``."""
    inter, _ = cv2.intersectConvexConvex(quad.astype(np.float32), shape.astype(np.float32))
    return float(inter) / max(float(cv2.contourArea(quad.astype(np.float32))), 1.0)


def card_cover(quad: F32, place: str, turn: float, shift: float) -> F32:
    """The covering card (same size) moved ``shift`` of a card from the covered one's centre
    toward ``place`` and turned ``turn`` degrees."""
    c, u, v, w, h = card_frame(quad)
    dx, dy = PLACES[place]
    centre = c + shift * (dx * w * u + dy * h * v)
    u2, v2 = turned(u, turn), turned(v, turn)
    half_u, half_v = u2 * w / 2, v2 * h / 2
    return np.array([centre - half_u - half_v, centre + half_u - half_v, centre + half_u + half_v,
                     centre - half_u + half_v], np.float32)


def finger_shape(quad: F32, place: str, turn: float, depth: float, points: int = 12) -> F32:
    """A finger entering from ``place``, pointing (give or take ``turn`` degrees) at the covered
    card's centre: a convex capsule whose rounded tip has come ``depth`` (0..2) of the way from
    the card's edge toward ``place`` (0) to the opposite edge (2)."""
    c, u, v, w, h = card_frame(quad)
    dx, dy = PLACES[place]
    out = (dx * w / 2 * u + dy * h / 2 * v).astype(np.float32)
    axis = turned((-out / float(np.linalg.norm(out))).astype(np.float32), turn)  # toward the centre
    tip = c + out * (1.0 - depth)
    radius = FINGER_WIDTH * w / 2
    normal = np.array([-axis[1], axis[0]], np.float32)
    centre = tip - axis * radius
    base = centre - axis * (1.3 * h)
    arc = [centre + radius * (np.cos(a) * normal + np.sin(a) * axis) for a in np.linspace(0, np.pi, points)]
    return np.array([base + normal * radius, *arc, base - normal * radius], np.float32)


def solve(make: Any, quad: F32, target: float, lo: float, hi: float, decreasing: bool) -> tuple[float, float]:
    """Bisect the shape's parameter so it covers ``target`` of the card: (parameter, share)."""
    for _ in range(30):
        mid = (lo + hi) / 2
        share = covered_share(quad, make(mid))
        if (share > target) == decreasing:
            lo = mid
        else:
            hi = mid
    mid = (lo + hi) / 2
    return mid, covered_share(quad, make(mid))


def extend_surface(image: U8, quad: F32, need: tuple[int, int, int, int], gap: int = 8) -> tuple[U8, F32]:
    """The photo with ``need`` (left, top, right, bottom) px more surface: its margins beside the
    card mirrored outward (never the card itself); the quad in the new pixels."""
    left, top, right, bottom = (max(0, n) for n in need)
    x0, y0 = (int(v) for v in quad.min(axis=0))
    x1, y1 = (int(np.ceil(v)) for v in quad.max(axis=0))
    h, w = image.shape[:2]

    def strip(a: U8, n: int, axis: int, first: bool, edge: int) -> U8:
        part = a[:, :edge] if axis == 1 and first else a[:, edge:] if axis == 1 else a[:edge] if first else a[edge:]
        if n == 0 or part.shape[axis] == 0:
            return np.zeros((a.shape[0], 0, 3) if axis == 1 else (0, a.shape[1], 3), np.uint8)
        pad = [(0, 0), (0, 0), (0, 0)]
        pad[axis] = (n, 0) if first else (0, n)
        grown = np.pad(part, pad, mode="symmetric")
        return grown[:, :n] if axis == 1 and first else grown[:, -n:] if axis == 1 else grown[:n] if first else grown[-n:]

    wide = np.concatenate([strip(image, left, 1, True, max(1, x0 - gap)), image,
                           strip(image, right, 1, False, min(w - 1, x1 + gap))], axis=1)
    tall = np.concatenate([strip(wide, top, 0, True, max(1, y0 - gap)), wide,
                           strip(wide, bottom, 0, False, min(h - 1, y1 + gap))], axis=0)
    return np.ascontiguousarray(tall), (quad + np.array([left, top], np.float32)).astype(np.float32)


def shade(canvas: F32, alpha: F32, offset: F32, blur: float, strength: float) -> None:
    """A soft shadow of ``alpha`` moved ``offset`` px darkens the canvas."""
    m = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
    moved = cv2.warpAffine(alpha, m, (alpha.shape[1], alpha.shape[0]))
    soft = cv2.GaussianBlur(moved, (0, 0), blur)
    canvas *= (1.0 - strength * soft)[..., None]


def lay(canvas: F32, art: U8, quad: F32, rng: np.random.Generator) -> F32:
    """Paste the portrait ``art`` (a real card cut along its quad) onto ``quad`` with rounded
    corners and a soft shadow; returns its alpha."""
    h, w = art.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    size = (canvas.shape[1], canvas.shape[0])
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    alpha = np.asarray(cv2.warpPerspective(rounded_mask(w, h, 0.055 * w).astype(np.float32) / 255.0, m, size, flags=cv2.INTER_LINEAR), np.float32)
    _, _, _, _, card_h = card_frame(quad)
    shade(canvas, alpha, rng.uniform(0.006, 0.018, 2).astype(np.float32) * card_h, 0.012 * card_h, rng.uniform(0.25, 0.45))
    face = cv2.warpPerspective(art, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    canvas *= (1.0 - alpha)[..., None]
    canvas += face * alpha[..., None]
    return alpha


def finger(canvas: F32, shape: F32, card_w: float, rng: np.random.Generator) -> F32:
    """A skin-coloured finger over ``shape`` (a capsule), rounder-looking by shading darker toward
    its sides, with a soft shadow; returns its alpha."""
    size = (canvas.shape[0], canvas.shape[1])
    mask = np.zeros(size, np.uint8)
    cv2.fillConvexPoly(mask, np.round(shape * 4).astype(np.int32), 255, cv2.LINE_AA, shift=2)
    alpha = np.asarray(cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), max(0.6, 0.004 * card_w)), np.float32)
    shade(canvas, alpha, rng.uniform(0.02, 0.05, 2).astype(np.float32) * card_w, 0.03 * card_w, rng.uniform(0.3, 0.5))
    # distance from the finger's outline, as a fraction of its half-width: 0 at the side, 1 on the axis
    inside = cv2.distanceTransform(mask, cv2.DIST_L2, 5) / max(1.0, FINGER_WIDTH * card_w / 2)
    round_ = np.sqrt(np.clip(inside, 0, 1)).astype(np.float32)
    tone = np.array([rng.uniform(95, 150), rng.uniform(125, 175), rng.uniform(185, 235)], np.float32)  # BGR skin
    skin = tone[None, None, :] * (0.55 + 0.45 * round_)[..., None]
    skin += rng.normal(0, 3, skin.shape).astype(np.float32)  # skin texture
    canvas *= (1.0 - alpha)[..., None]
    canvas += skin * alpha[..., None]
    return alpha


def compose(photo: DeckPhoto, cover: DeckPhoto | None, kind: str, place: str, fraction: float,
            rng: np.random.Generator, cache: dict[Path, U8]) -> Scene | None:
    """The photo with its card covered ``fraction`` from ``place`` (None: unreachable that way)."""
    assert photo.quad is not None
    image = cache.setdefault(photo.image, np.asarray(cv2.imread(str(photo.image), cv2.IMREAD_COLOR), np.uint8))
    quad = photo.quad.astype(np.float32)
    turn = float(rng.uniform(-12, 12))
    if kind == "card":
        param, share = solve(lambda s: card_cover(quad, place, turn, s), quad, fraction, 0.0, 1.6, True)
        shape = card_cover(quad, place, turn, param)
    else:
        def make(d: float) -> F32:
            return finger_shape(quad, place, turn, d)
        if covered_share(quad, make(2.0)) < fraction:
            return None  # a finger this wide cannot hide that much from this side
        param, share = solve(make, quad, fraction, 0.0, 2.0, False)
        shape = make(param)
    if abs(share - fraction) > 0.01:
        return None
    _, _, _, w, h = card_frame(quad)
    # room for the covering card inside the picture (a finger comes from its hand, outside)
    both = np.concatenate([quad, shape]) if kind == "card" else quad
    margin = 0.08 * h
    lo, hi = both.min(axis=0) - margin, both.max(axis=0) + margin
    need = (int(np.ceil(-lo[0])), int(np.ceil(-lo[1])), int(np.ceil(hi[0] - image.shape[1])),
            int(np.ceil(hi[1] - image.shape[0])))
    canvas_u8, moved = extend_surface(image, quad, need)
    offset = moved[0] - quad[0]
    shape = (shape + offset).astype(np.float32)
    canvas = canvas_u8.astype(np.float32)
    if kind == "card":
        assert cover is not None and cover.quad is not None
        art = warp_portrait(cache.setdefault(cover.image, np.asarray(
            cv2.imread(str(cover.image), cv2.IMREAD_COLOR), np.uint8)), cover.quad.astype(np.float32))
        inset = round(0.015 * art.shape[0])  # a verified quad may take in a sliver of its table
        art = art[inset:art.shape[0] - inset, inset:art.shape[1] - inset]
        art = np.asarray(cv2.resize(art, (round(w), round(h)), interpolation=cv2.INTER_AREA), np.uint8)
        lay(canvas, art, shape, rng)
    else:
        finger(canvas, shape, w, rng)
    out = np.clip(canvas, 0, 255).astype(np.uint8)
    return Scene(out, photo.card, moved, shape if kind == "card" else None,
                 cover.card if kind == "card" and cover is not None else None, share)


def shrunk(scene: Scene, height: int | None) -> Scene:
    """The scene area-shrunk so the covered card is ``height`` px tall, JPEG-compressed."""
    if height is None:
        return scene
    _, _, _, _, h = card_frame(scene.covered_quad)
    small = seen_at(scene.image, max(8, round(scene.image.shape[0] * height / h)), JPEG_QUALITY)
    s = np.float32(small.shape[0] / scene.image.shape[0])
    return Scene(small, scene.covered, scene.covered_quad * s,
                 None if scene.cover_quad is None else scene.cover_quad * s, scene.cover_card, scene.hidden)


def in_frame(scene: Scene, rng: np.random.Generator, feather: int = 24) -> Scene:
    """The scene's cards and a card's height of their surface round them, pasted (its border
    feathered over ``feather`` px: no straight paste edge) at a random place in a :data:`FRAME`
    of the surface's median colour (noise of sd 3), then JPEG-compressed."""
    img = scene.image
    quads = [scene.covered_quad] if scene.cover_quad is None else [scene.covered_quad, scene.cover_quad]
    both = np.concatenate(quads)
    _, _, _, _, h = card_frame(scene.covered_quad)
    x0, y0 = (max(0, int(v - h)) for v in both.min(axis=0))
    x1, y1 = (int(v + h) for v in both.max(axis=0))
    x1, y1 = min(img.shape[1], x1, x0 + FRAME[0]), min(img.shape[0], y1, y0 + FRAME[1])
    cut = img[y0:y1, x0:x1].astype(np.float32)
    outside = np.full(img.shape[:2], 255, np.uint8)
    for q in quads:
        cv2.fillConvexPoly(outside, q.astype(np.int32), 0)
    frame = np.median(img[outside > 0], axis=0) + rng.normal(0.0, 3.0, (FRAME[1], FRAME[0], 3))
    px, py = int(rng.integers(0, FRAME[0] - cut.shape[1] + 1)), int(rng.integers(0, FRAME[1] - cut.shape[0] + 1))
    ramp_y = np.minimum(np.arange(cut.shape[0]), np.arange(cut.shape[0])[::-1])
    ramp_x = np.minimum(np.arange(cut.shape[1]), np.arange(cut.shape[1])[::-1])
    alpha = np.clip(np.minimum(ramp_y[:, None], ramp_x[None, :]) / feather, 0.0, 1.0)[..., None]
    region = frame[py : py + cut.shape[0], px : px + cut.shape[1]]
    frame[py : py + cut.shape[0], px : px + cut.shape[1]] = alpha * cut + (1 - alpha) * region
    shift = np.array([px - x0, py - y0], np.float32)
    return Scene(seen_at(np.clip(frame, 0, 255).astype(np.uint8), None, JPEG_QUALITY), scene.covered,
                 (scene.covered_quad + shift).astype(np.float32),
                 None if scene.cover_quad is None else (scene.cover_quad + shift).astype(np.float32),
                 scene.cover_card, scene.hidden)


def false_cards(scene: Scene, cards: list[dict[str, Any]]) -> tuple[bool, int]:
    """(a quad lies on the covered card, quads on neither card)."""
    quads = [np.array(c["quad"], np.float32) for c in cards]
    on = [overlap(q, scene.covered_quad) > 0.3 for q in quads]
    cover = [scene.cover_quad is not None and overlap(q, scene.cover_quad) > 0.3 for q in quads]
    return any(on), sum(1 for a, b in zip(on, cover, strict=True) if not a and not b)


def overlap(a: F32, b: F32) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / max(1.0, float(cv2.contourArea(a.astype(np.float32))))


def judge_detections(scene: Scene, cards: list[dict[str, Any]], sure: float) -> tuple[str, str, float, bool | None]:
    """(outcome, read, confidence, covering card read right) of ``detect``'s cards."""
    right: list[float] = []
    wrong: list[tuple[str, float]] = []
    cover_right = None if scene.cover_card is None else False
    for c in cards:
        quad = np.array(c["quad"], np.float32)
        on_covered = overlap(quad, scene.covered_quad)
        on_cover = 0.0 if scene.cover_quad is None else overlap(quad, scene.cover_quad)
        if c["card"] == scene.covered and on_covered > 0.3:
            right.append(float(c["confidence"]))
        elif scene.cover_card is not None and c["card"] == scene.cover_card and on_cover > 0.3:
            cover_right = True
        elif on_covered > 0.3 and on_covered >= on_cover:
            wrong.append((str(c["card"]), float(c["confidence"])))
    sure_wrong = [w for w in wrong if w[1] >= sure]
    if sure_wrong:
        card, p = max(sure_wrong, key=lambda w: w[1])
        return "WRONG", card, p, cover_right
    if right:
        p = max(right)
        return ("r-sure" if p >= sure else "r-unsure"), scene.covered, p, cover_right
    card, p = max(wrong, key=lambda w: w[1]) if wrong else ("", 0.0)
    return "unsure", card, p, cover_right


def live_read(pipeline: FramePipeline, scene: Scene, frames: int = 3, width: int = 1280) -> tuple[list[dict[str, Any]], float]:
    """The live loop's frame pipeline on the scene seen ``frames`` times (a still trick: the
    outline split comes once a blob was seen before) at the camera's ``width``, with the card
    size known as a calibrated table knows it (from the covered card's true quad); with the CPU
    ms of the last frame."""
    s = min(1.0, width / scene.image.shape[1])
    image = scene.image if s == 1.0 else np.asarray(
        cv2.resize(scene.image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    pipeline.finder.reset()
    pipeline.finder.observe((scene.covered_quad * np.float32(s))[None])
    for _ in range(frames):
        start = time.process_time()
        dets = pipeline.process(image)
    cpu_ms = (time.process_time() - start) * 1000
    cards = dets.to_json()
    for c in cards:
        c["quad"] = (np.array(c["quad"], np.float32) / np.float32(s)).tolist()
    return cards, cpu_ms


def judge_read(card: str, p: float, truth: str, sure: float) -> str:
    if card == truth:
        return "r-sure" if p >= sure else "r-unsure"
    return "WRONG" if p >= sure and card != "back" else "unsure"


def plan(photos: list[DeckPhoto], limit: int | None, seed: int) -> list[tuple[DeckPhoto, DeckPhoto]]:
    """(covered photo, covering photo from another deck and of another card), per deck the first
    ``limit`` photos taken evenly along it."""
    rng = np.random.default_rng(seed)
    usable = [p for p in photos if p.quad is not None]
    by_deck: dict[str, list[DeckPhoto]] = defaultdict(list)
    for p in usable:
        by_deck[p.deck].append(p)
    chosen: list[DeckPhoto] = []
    for deck in sorted(by_deck):
        ps = by_deck[deck]
        n = len(ps) if limit is None else min(limit, len(ps))
        chosen.extend(ps[int(i * len(ps) / n)] for i in range(n))
    out = []
    for p in chosen:
        others = [q for q in usable if q.deck != p.deck and q.card != p.card]
        out.append((p, others[int(rng.integers(len(others)))]))
    return out


def run(args: argparse.Namespace) -> list[Result]:
    classifier = CardClassifier.load("italian", args.model_dir, threads=1)
    pipeline = None if args.crops_only or "detect" not in args.paths else FramePipeline.create(classifier)
    # the live loop reads each crop once (views.LIVE_VIEWS), whatever views a photo gets
    edge_blobs = {"auto": None, "on": True, "off": False}[args.edge_blobs]
    live = None if args.crops_only or "live" not in args.paths else FramePipeline.create(
        CardClassifier.load("italian", args.model_dir, threads=1, views=LIVE_VIEWS),
        config=FinderConfig(split_when_still=True, edge_blobs=edge_blobs))
    sure = TrackerConfig().sure_share
    photos = deck_photos(decks=args.decks)
    results: list[Result] = []
    cache: dict[Path, U8] = {}
    places = list(PLACES)
    for n, (photo, cover) in enumerate(plan(photos, args.limit, args.seed)):
        rng = np.random.default_rng([args.seed, n])
        cells = [(kind, fraction) for kind in args.occluders for fraction in FRACTIONS]
        for kind, fraction in ([("none", 0.0)] if args.whole else []) + cells:
            scene = None
            if kind == "none":
                assert photo.quad is not None
                image = cache.setdefault(photo.image, np.asarray(cv2.imread(str(photo.image), cv2.IMREAD_COLOR), np.uint8))
                scene, place = Scene(image, photo.card, photo.quad.astype(np.float32), None, None, 0.0), "-"
            start = int(rng.integers(len(places))) if kind != "none" else 0
            for k in range(len(places) if kind != "none" else 0):  # the first side (from a random one) that reaches it
                place = places[(start + k) % len(places)]
                scene = compose(photo, cover, kind, place, fraction, rng, cache)
                if scene is not None:
                    break
            if scene is None:
                continue
            for height in args.heights:
                seen = shrunk(scene, height)
                label = "photo" if height is None else str(height)
                crop = warp_portrait(seen.image, seen.covered_quad)
                crops = [crop] if seen.cover_quad is None else [crop, warp_portrait(seen.image, seen.cover_quad)]
                reads = classifier.classify(crops)
                cover_ok = None if seen.cover_card is None else reads[1].card == seen.cover_card
                results.append(Result(photo.deck, photo.card, kind, place, fraction, round(seen.hidden, 3), label,
                                      "crop", judge_read(reads[0].card, reads[0].confidence, photo.card, sure),
                                      reads[0].card, round(reads[0].confidence, 3), cover_ok))
                if pipeline is not None:
                    found = detect_image(pipeline, seen.image)["cards"]
                    outcome, read, p, cover_ok = judge_detections(seen, found, sure)
                    results.append(Result(photo.deck, photo.card, kind, place, fraction, round(seen.hidden, 3),
                                          label, "detect", outcome, read, round(p, 3), cover_ok))
                if live is not None:
                    framed = in_frame(seen, rng) if args.in_frame else seen
                    cards, cpu_ms = live_read(live, framed)
                    outcome, read, p, cover_ok = judge_detections(framed, cards, sure)
                    on_card, false = false_cards(framed, cards)
                    results.append(Result(photo.deck, photo.card, kind, place, fraction, round(seen.hidden, 3),
                                          label, "live", outcome, read, round(p, 3), cover_ok, on_card, false,
                                          round(cpu_ms, 2)))
                if args.save is not None:
                    name = f"{photo.deck}_{photo.card}_{kind}_{place}_{int(fraction * 100)}_{label}.jpg"
                    cv2.imwrite(str(args.save / name), seen.image)
        if args.verbose:
            print(f"  {photo.deck}/{photo.card} done", flush=True)
    return results


def show(results: list[Result], sure: float) -> None:
    print(f"sure = TrackerConfig.sure_share = {sure}; cells: % of covered cards (n)")
    titles = {"detect": "referee detect (finder + classifier, no history)",
              "live": "the live loop's frame pipeline, card size known, the scene seen 3 times",
              "crop": "classifier on the true quad"}
    for path, title in titles.items():
        rows = [r for r in results if r.path == path]
        if not rows:
            continue
        print(f"\n== {path}: {title}")
        print(f"{'height':6} {'occluder':8} {'hid':>4} {'n':>4} " + " ".join(f"{o:>8}" for o in OUTCOMES) + f" {'cover':>6}")
        for height in dict.fromkeys(r.height for r in rows):
            for kind in ("none", *OCCLUDERS):
                for fraction in (0.0, *FRACTIONS):
                    cell = [r for r in rows if r.height == height and r.occluder == kind and r.fraction == fraction]
                    if not cell:
                        continue
                    count = Counter(r.outcome for r in cell)
                    covers = [r.cover_right for r in cell if r.cover_right is not None]
                    cover = f"{100 * sum(covers) / len(covers):5.1f}%" if covers else f"{'-':>6}"
                    print(f"{height:6} {kind:8} {int(fraction * 100):3d}% {len(cell):4d} "
                          + " ".join(f"{100 * count[o] / len(cell):7.1f}%" for o in OUTCOMES) + f" {cover}")
        wrong = Counter(f"{r.card}->{r.read} ({r.occluder} {int(r.fraction * 100)}% {r.height})"
                        for r in rows if r.outcome == "WRONG")
        total = Counter(r.outcome for r in rows)
        print(f"{path} all: " + ", ".join(f"{o} {total[o]}" for o in OUTCOMES) + f" of {len(rows)}")
        if path == "live":
            show_decks(rows)
        if wrong:
            print(f"{path} WRONG-sure reads: " + ", ".join(f"{k}" + (f" x{v}" if v > 1 else "") for k, v in wrong.most_common(30)))


def show_decks(rows: list[Result]) -> None:
    """The live path per deck (its surface) and occluder: found (a quad on the covered card),
    right (read right, sure or not), sure-wrong, false cards; and a frame's CPU time."""
    print(f"{'deck':7} {'occluder':8} {'n':>4} {'found':>6} {'right':>6} {'WRONG':>6} {'false':>6}")
    for deck in sorted({r.deck for r in rows}):
        for kind in ("none", *OCCLUDERS):
            cell = [r for r in rows if r.deck == deck and r.occluder == kind]
            if cell:
                print(f"{deck:7} {kind:8} {len(cell):4d} {sum(bool(r.found) for r in cell):6d} "
                      f"{sum(r.outcome in ('r-sure', 'r-unsure') for r in cell):6d} "
                      f"{sum(r.outcome == 'WRONG' for r in cell):6d} {sum(r.false for r in cell):6d}")
    cpu = np.array([r.cpu_ms for r in rows])
    print(f"live frame CPU: median {np.median(cpu):.1f} ms, p95 {np.percentile(cpu, 95):.1f} ms (n={len(cpu)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=models_dir())
    parser.add_argument("--decks", nargs="+", default=None, metavar="DECK", help="default: every deck")
    parser.add_argument("--limit", type=int, default=None, help="photos per deck (default: all)")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--occluders", nargs="+", choices=OCCLUDERS, default=list(OCCLUDERS))
    parser.add_argument("--heights", nargs="+", default=["photo", "160", "100"],
                        help="photo (as photographed) and/or card heights in px")
    parser.add_argument("--crops-only", action="store_true", help="the classifier on the true quads only (no finder)")
    parser.add_argument("--paths", nargs="+", choices=("detect", "live"), default=["detect", "live"],
                        help="finder paths beside the crop: detect (referee detect) and/or live (the live "
                             "loop's frame pipeline, card size known)")
    parser.add_argument("--in-frame", action="store_true",
                        help="live path: each scene in a 1280x720 frame of its surface, as the box's camera sees it")
    parser.add_argument("--whole", action="store_true", help="also each photo's card uncovered (occluder none)")
    parser.add_argument("--edge-blobs", choices=("auto", "on", "off"), default="auto",
                        help="live path: FinderConfig.edge_blobs (auto: on a light table once the size is known)")
    parser.add_argument("--save", type=Path, default=None, help="write every scene here (JPEG) to look at")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.decks is not None:
        unknown = sorted(set(args.decks) - set(deck_names()))
        if unknown:
            parser.error(f"--decks: no such deck {', '.join(unknown)}; known: {', '.join(deck_names())}")
        if len(set(args.decks)) < 2:
            parser.error("--decks: name at least two decks (the covering card comes from another deck's photo)")
    args.heights = [None if h == "photo" else int(h) for h in args.heights]
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    t = time.monotonic()
    results = run(args)
    sure = TrackerConfig().sure_share
    show(results, sure)
    print(f"({time.monotonic() - t:.0f}s, model {args.model_dir / 'italian.onnx'}, seed {args.seed}, "
          f"limit {args.limit or 'none'})")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=0) + "\n")


if __name__ == "__main__":
    main()
