"""Non-card crops the negatives benchmark draws (``recognition_negatives.py``): marks on white
paper and zoomed-in parts of a card. Training no longer renders them (models/HISTORY.md: the
paper and card-part negatives answered what pip scaling taught, and left with it); the
benchmark still asks every model whether it reads them as cards.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.recognition.preprocess import INPUT_SIZE, resize_crop
from referee.recognition.synth import (
    F32,
    U8,
    CardArt,
    background,
    camera,
    jittered_crop,
    light,
    paste,
)

# Measured on the real pinochle photos (models/HISTORY.md, pip scaling): a model taught
# that one big pip on paper is an ace (the pip-scale augmentation) reads a drawing on a white
# sheet as AC/AS at 0.95 and a sheet's print or text as 2C. Nothing in the 'back' samples was
# white paper with a mark on it; these are, with no corner index anywhere.


def render_paper_clutter(
    textures: list[U8], pool: list[CardArt], rng: np.random.Generator, size: tuple[int, int] = INPUT_SIZE,
) -> U8:
    """A 'back' sample: a crop on a white sheet with a picture, blobs, text or lines on it.

    Sometimes a card lies mostly outside the crop (10-35% of it inside), so a card's edge with
    a pip or two on paper is not that card either.
    """
    h = int(np.exp(rng.uniform(np.log(80), np.log(220))))
    w = max(8, int(h * rng.uniform(0.55, 0.8)))
    canvas = background(textures, 3 * w, 3 * h, rng)
    _sheet(canvas, w, h, rng)
    for _ in range(int(rng.integers(1, 4))):
        _mark(canvas, textures, w, h, rng)
    if pool and rng.random() < 0.3:
        side = rng.choice([-1, 1])
        cx = w * 1.5 + side * w * rng.uniform(0.65, 0.9)
        cy = h * 1.5 + rng.uniform(-0.4, 0.4) * h
        paste(canvas, pool[rng.integers(len(pool))], w, h, cx, cy, rng.uniform(-20, 20))
    quad = np.array([[w, h], [2 * w, h], [2 * w, 2 * h], [w, 2 * h]], np.float32)
    crop = jittered_crop(canvas, quad, w, h, rng.uniform(0, 0.1), rng)
    return resize_crop(camera(light(crop, rng), rng), size)


def _sheet(canvas: F32, w: int, h: int, rng: np.random.Generator) -> None:
    """A white (slightly tinted) sheet, turned, covering the crop (w, h)-(2w, 2h) or most of it."""
    paper = rng.uniform(200, 255) + rng.uniform(-8, 8, 3)
    cx, cy = 1.5 * w + rng.uniform(-0.3, 0.3) * w, 1.5 * h + rng.uniform(-0.3, 0.3) * h
    sw, sh = w * rng.uniform(0.9, 2.6), h * rng.uniform(0.9, 2.6)
    box = cv2.boxPoints(((cx, cy), (sw, sh), rng.uniform(-30, 30)))
    mask = np.zeros(canvas.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 255, cv2.LINE_AA)
    a = mask[..., None].astype(np.float32) / 255.0
    canvas *= 1.0 - a
    canvas += np.clip(paper, 0, 255).astype(np.float32) * a


def _mark(canvas: F32, textures: list[U8], w: int, h: int, rng: np.random.Generator) -> None:
    """One mark inside the crop: a picture (textured blob), a plain blob, text, a lattice or strokes."""
    cx, cy = 1.5 * w + rng.normal(0, 0.2) * w, 1.5 * h + rng.normal(0, 0.2) * h
    r = w * rng.uniform(0.1, 0.45)
    kind = rng.random()
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    if kind < 0.6:
        # A blob: an ellipse or a random convex polygon, plain or textured (a drawing, a photo).
        mask = np.zeros(canvas.shape[:2], np.uint8)
        if rng.random() < 0.4:
            axes = (max(2, int(r)), max(2, int(r * rng.uniform(0.5, 1.6))))
            cv2.ellipse(mask, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
        else:
            pts = np.array([cx, cy]) + rng.normal(0, r, (int(rng.integers(5, 10)), 2))
            cv2.fillPoly(mask, [cv2.convexHull(np.round(pts).astype(np.int32))], 255, cv2.LINE_AA)
        if textures and rng.random() < 0.6:
            fill = background(textures, canvas.shape[1], canvas.shape[0], rng)
        else:
            fill = np.empty_like(canvas)
            fill[:] = rng.uniform(0, 230, 3)
        a = mask[..., None].astype(np.float32) / 255.0 * rng.uniform(0.6, 1.0)
        canvas *= 1.0 - a
        canvas += fill * a
        return
    colour = tuple(float(c) for c in rng.uniform(0, 160, 3))
    if kind < 0.75:  # text lines
        y = cy - r
        for _ in range(int(rng.integers(2, 7))):
            scale = rng.uniform(0.25, 0.7) * h / 150
            word = "".join(chr(int(c)) for c in rng.integers(97, 123, int(rng.integers(3, 12))))
            cv2.putText(img, word, (int(cx - r), int(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, colour,
                        max(1, int(scale * 2)), cv2.LINE_AA)
            y += 30 * scale * rng.uniform(1.0, 1.6)
    elif kind < 0.9:  # a lattice (a basket, a grid, a printed table)
        step = max(4, int(w * rng.uniform(0.08, 0.25)))
        t = int(rng.integers(1, max(2, step // 2)))
        for v in range(-3 * w, 6 * w, step):
            cv2.line(img, (v, 0), (v, 3 * h), colour, t, cv2.LINE_AA)
            cv2.line(img, (0, v), (3 * w, v), colour, t, cv2.LINE_AA)
    else:  # strokes (a line drawing)
        pts = np.array([cx, cy]) + rng.normal(0, r, (int(rng.integers(3, 8)), 2))
        cv2.polylines(img, [np.round(pts).astype(np.int32)], False, colour,
                      int(rng.integers(1, max(2, h // 40))), cv2.LINE_AA)
    canvas[:] = img


# Measured on the real pinochle photos (models/HISTORY.md, pip scaling): pip-scale models read the finder's quads that lie INSIDE a 9 or 10 (three big pips, no border) as a 3
# or an ace at 0.99, and that read beat the whole card's: a model taught that pips come in many
# sizes cannot tell a zoomed-in part of a card from a card. These are such parts, as 'back'.
#: Share of the card's width and height a zoomed-in part covers (a real crop's corners are off by
#: at most ~10%, and a covered card still comes as its whole outline).
ZOOM_SPAN = (0.35, 0.65)


def render_card_zoom(
    art: CardArt, textures: list[U8], rng: np.random.Generator, size: tuple[int, int] = INPUT_SIZE,
) -> U8:
    """A 'back' sample: a part of a card (35-65% of its width and height) stretched to a crop."""
    hc = np.exp(rng.uniform(np.log(80), np.log(220)))
    fw, fh = rng.uniform(*ZOOM_SPAN, 2)
    # Anywhere on the card, a little past its edge at most (a corner and its index may show).
    return _card_window(art, textures, rng, size, hc, fw, fh, (-0.05, 1.05), (-0.05, 1.05), (0, 0.05))


def _card_window(art: CardArt, textures: list[U8], rng: np.random.Generator, size: tuple[int, int],
                 hc: float, fw: float, fh: float, xs: tuple[float, float], ys: tuple[float, float],
                 jitter: tuple[float, float]) -> U8:
    """The window ``fw`` x ``fh`` (fractions of the card) placed at random with its left/top edge
    in ``xs[0] .. xs[1] - fw`` (``ys`` likewise), cut with up to ``jitter`` corner noise and the
    usual lighting and camera; ``hc``: the window's height in camera pixels."""
    h = int(hc / fh)
    w = max(8, int(h * art.bgr.shape[1] / art.bgr.shape[0] * rng.uniform(0.88, 1.12)))
    pad = int(0.1 * h)
    canvas = background(textures, w + 2 * pad, h + 2 * pad, rng)
    if rng.random() < 0.5:
        art = CardArt(art.bgr[::-1, ::-1].copy(), art.mask[::-1, ::-1].copy())
    paste(canvas, art, w, h, pad + w / 2, pad + h / 2, 0.0)
    x0 = pad + rng.uniform(xs[0], xs[1] - fw) * w
    y0 = pad + rng.uniform(ys[0], ys[1] - fh) * h
    x1, y1 = x0 + fw * w, y0 + fh * h
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    out_w, out_h = max(8, int(hc * rng.uniform(0.55, 0.8))), int(hc)
    crop = jittered_crop(canvas, quad, out_w, out_h, rng.uniform(*jitter), rng)
    return resize_crop(camera(light(crop, rng), rng), size)
