"""Synthetic card crops: what the card finder delivers, rendered from clean face scans.

A face is composited onto a card blank (border + rounded corners), scaled to a camera
resolution (80-200 px tall), laid on a table texture, lit (colour cast, shadow, glare),
partly covered (another card or a finger, at most ~40%), cut out with corners off by up
to ~10% of the card size, blurred, noised, JPEG-compressed and resized exactly as at run
time.  Everything is drawn from one seeded :class:`numpy.random.Generator`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition.preprocess import INPUT_SIZE, resize_crop

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
#: Card art is kept at this height; crops are never rendered taller than ~220 px.
ART_HEIGHT = 320


@dataclass(frozen=True)
class CardArt:
    """A card image (BGR) with its silhouette mask (rounded corners), ready to place."""

    bgr: U8
    mask: U8


def prepare_art(face_bgra: U8, margin: float, corner: float = 0.06, paper: int = 245) -> CardArt:
    """Composite a face scan onto a card blank ``margin`` x width wide, with rounded corners."""
    scale = ART_HEIGHT / face_bgra.shape[0]
    if scale < 1.0:
        face_bgra = np.asarray(cv2.resize(face_bgra, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    h, w = face_bgra.shape[:2]
    m = round(margin * w)
    blank = np.full((h + 2 * m, w + 2 * m, 3), paper, np.float32)
    alpha = face_bgra[..., 3:4].astype(np.float32) / 255.0
    region = blank[m : m + h, m : m + w]
    region[:] = face_bgra[..., :3] * alpha + region * (1.0 - alpha)
    mask = rounded_mask(blank.shape[1], blank.shape[0], corner * blank.shape[1])
    return CardArt(blank.astype(np.uint8), mask)


def rounded_mask(w: int, h: int, radius: float) -> U8:
    """Filled rounded rectangle of size w x h (255 inside)."""
    r = max(1, round(radius))
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return mask


def background(textures: list[U8], w: int, h: int, rng: np.random.Generator) -> F32:
    """A random table patch (texture at a random scale and tint, or a plain colour)."""
    if not textures or rng.random() < 0.15:
        colour = rng.uniform(20, 230, 3)
        out = np.empty((h, w, 3), np.float32)
        out[:] = colour
        return out
    tex = textures[rng.integers(len(textures))]
    # Cut the region first, then scale it: resizing a whole 1024 px texture is the slow part.
    s = max(rng.uniform(0.3, 1.2), w / tex.shape[1], h / tex.shape[0])
    rw, rh = min(tex.shape[1], int(np.ceil(w / s))), min(tex.shape[0], int(np.ceil(h / s)))
    x, y = rng.integers(0, tex.shape[1] - rw + 1), rng.integers(0, tex.shape[0] - rh + 1)
    region = tex[y : y + rh, x : x + rw]
    patch = cv2.resize(region, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    return patch * rng.uniform(0.7, 1.2, 3).astype(np.float32)


def paste(canvas: F32, art: CardArt, w: int, h: int, x: float, y: float, angle: float) -> U8:
    """Paste ``art`` resized to w x h, rotated by ``angle`` about its centre at (x, y)."""
    bgr = cv2.resize(art.bgr, (w, h), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(art.mask, (w, h), interpolation=cv2.INTER_AREA)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    rot[:, 2] += np.array([x - w / 2, y - h / 2])
    size = (canvas.shape[1], canvas.shape[0])
    wb = cv2.warpAffine(bgr, rot, size, flags=cv2.INTER_LINEAR)
    wm = cv2.warpAffine(mask, rot, size, flags=cv2.INTER_LINEAR)
    a = wm[..., None].astype(np.float32) / 255.0
    canvas *= 1.0 - a
    canvas += wb.astype(np.float32) * a
    out = np.asarray(wm, np.uint8)
    return out


def paste_box(canvas: F32, art: CardArt, w: int, h: int, x: float, y: float, angle: float) -> U8:
    """Like :func:`paste`, but warping into the card's bounding box only (4x faster, same look;
    not bit-identical at a few edge pixels, so the base renderer keeps :func:`paste`)."""
    bgr = cv2.resize(art.bgr, (w, h), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(art.mask, (w, h), interpolation=cv2.INTER_AREA)
    rot, box = _placement(canvas.shape, w, h, x, y, angle)
    out = np.zeros(canvas.shape[:2], np.uint8)
    if box is None:
        return out
    x0, y0, x1, y1 = box
    # Warp into the card's bounding box only: blending the whole canvas was the slow part.
    size = (x1 - x0, y1 - y0)
    wb = cv2.warpAffine(bgr, rot, size, flags=cv2.INTER_LINEAR)
    wm = cv2.warpAffine(mask, rot, size, flags=cv2.INTER_LINEAR)
    a = wm[..., None].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1]
    region *= 1.0 - a
    region += wb.astype(np.float32) * a
    out[y0:y1, x0:x1] = wm
    return out


def _placement(shape: tuple[int, ...], w: int, h: int, x: float, y: float,
               angle: float) -> tuple[npt.NDArray[np.float64], tuple[int, int, int, int] | None]:
    """Affine matrix into the clipped bounding box of the turned card, and that box."""
    rot: npt.NDArray[np.float64] = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0), np.float64)
    rot[:, 2] += np.array([x - w / 2, y - h / 2])
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) @ rot.T
    x0, y0 = (max(0, int(np.floor(v)) - 1) for v in corners.min(axis=0))
    x1 = min(shape[1], int(np.ceil(corners[:, 0].max())) + 2)
    y1 = min(shape[0], int(np.ceil(corners[:, 1].max())) + 2)
    if x1 <= x0 or y1 <= y0:
        return rot, None
    rot[:, 2] -= np.array([x0, y0])
    return rot, (x0, y0, x1, y1)


def finger(canvas: F32, x: float, y: float, size: float, angle: float, rng: np.random.Generator) -> U8:
    """Draw a finger-like blob (skin tone ellipse) and return its mask."""
    mask = np.zeros(canvas.shape[:2], np.uint8)
    axes = (max(2, int(size * 0.28)), max(4, int(size * rng.uniform(0.8, 1.6))))
    cv2.ellipse(mask, (int(x), int(y)), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    tone = np.array([rng.uniform(60, 150), rng.uniform(90, 180), rng.uniform(140, 235)], np.float32)
    a = mask[..., None].astype(np.float32) / 255.0
    canvas *= 1.0 - a
    canvas += tone * a
    return mask


def occlude(
    canvas: F32, card_mask: U8, box: tuple[int, int, int, int], pool: list[CardArt],
    rng: np.random.Generator, max_cover: float = 0.4,
) -> None:
    """Cover part of the card (another card or a finger) from a random side, <= max_cover."""
    x0, y0, w, h = box
    area = float((card_mask > 127).sum()) or 1.0
    side = rng.integers(4)
    for _ in range(4):
        depth = rng.uniform(0.05, 0.45)
        cx = x0 + w * rng.uniform(0, 1)
        cy = y0 + h * rng.uniform(0, 1)
        if side == 0:
            cx = x0 - w * (0.5 - depth)
        elif side == 1:
            cx = x0 + w * (1.5 - depth)
        elif side == 2:
            cy = y0 - h * (0.5 - depth)
        else:
            cy = y0 + h * (1.5 - depth)
        trial = canvas.copy()
        angle = rng.uniform(-40, 40)
        if pool and rng.random() < 0.7:
            m = paste(trial, pool[rng.integers(len(pool))], w, h, cx, cy, angle)
        else:
            m = finger(trial, cx, cy, 0.6 * h, angle, rng)
        cover = float(((m > 127) & (card_mask > 127)).sum()) / area
        if cover <= max_cover:
            canvas[:] = trial
            return


def light(img: F32, rng: np.random.Generator) -> F32:
    """Colour cast, exposure, a soft shadow edge and a glare spot."""
    h, w = img.shape[:2]
    img = img * (rng.uniform(0.85, 1.12, 3) * rng.uniform(0.55, 1.25)).astype(np.float32)
    img = (img - 128.0) * rng.uniform(0.75, 1.2) + 128.0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.35:
        t = rng.uniform(0, 2 * np.pi)
        d = (xx - w * rng.uniform(0.2, 0.8)) * np.cos(t) + (yy - h * rng.uniform(0.2, 0.8)) * np.sin(t)
        soft = max(1.0, rng.uniform(0.01, 0.15) * h)
        dark = rng.uniform(0.35, 0.8)
        img = img * (dark + (1 - dark) / (1 + np.exp(-d / soft)))[..., None]
    if rng.random() < 0.35:
        gx, gy = w * rng.uniform(0.1, 0.9), h * rng.uniform(0.1, 0.9)
        sigma = h * rng.uniform(0.05, 0.3)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2))
        img = img + (rng.uniform(60, 220) * spot)[..., None]
    out: F32 = img.astype(np.float32)
    return out


def camera(crop: F32, rng: np.random.Generator) -> U8:
    """Blur, sensor noise and JPEG, at the crop's own (camera) resolution."""
    if rng.random() < 0.6:
        sigma = rng.uniform(0.3, 1.6)
        crop = np.asarray(cv2.GaussianBlur(crop, (0, 0), sigma), np.float32)
    if rng.random() < 0.15:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        crop = np.asarray(cv2.filter2D(crop, -1, cv2.warpAffine(kernel, rot, (k, k))), np.float32)
    crop = crop + rng.normal(0, rng.uniform(0, 8), crop.shape).astype(np.float32)
    out: U8 = np.clip(crop, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        if ok:
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def jittered_crop(canvas: F32, quad: F32, out_w: int, out_h: int, jitter: float, rng: np.random.Generator) -> F32:
    """Rectify ``quad`` (TL, TR, BR, BL) with each corner moved up to ``jitter`` x card size."""
    size = np.array([out_w, out_h], np.float32)
    src = quad + rng.uniform(-jitter, jitter, (4, 2)).astype(np.float32) * size
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    m = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
    out = np.asarray(cv2.warpPerspective(canvas, m, (out_w, out_h), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REFLECT), np.float32)
    return out


def render_card(
    art: CardArt, textures: list[U8], pool: list[CardArt], rng: np.random.Generator,
    occlusion: float = 0.35, size: tuple[int, int] = INPUT_SIZE,
) -> U8:
    """One synthetic crop of ``art`` as the card finder would deliver it, resized for the model."""
    h = int(np.exp(rng.uniform(np.log(80), np.log(220))))
    aspect = art.bgr.shape[1] / art.bgr.shape[0] * rng.uniform(0.88, 1.12)
    w = max(8, int(h * aspect))
    pad = int(0.35 * h)
    cw, ch = w + 2 * pad, h + 2 * pad
    canvas = background(textures, cw, ch, rng)
    if rng.random() < 0.5:
        art = CardArt(art.bgr[::-1, ::-1].copy(), art.mask[::-1, ::-1].copy())
    card_mask = paste(canvas, art, w, h, pad + w / 2, pad + h / 2, 0.0)
    if rng.random() < occlusion:
        occlude(canvas, card_mask, (pad, pad, w, h), pool, rng)
    quad = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    crop = jittered_crop(canvas, quad, w, h, rng.uniform(0, 0.1), rng)
    return resize_crop(camera(light(crop, rng), rng), size)


def render_not_card(
    textures: list[U8], backs: list[CardArt], pool: list[CardArt], rng: np.random.Generator,
    size: tuple[int, int] = INPUT_SIZE,
) -> U8:
    """A 'back' sample: a card back, bare table, clutter, or a crop mostly off a card."""
    kind = rng.random()
    if kind < 0.45 and backs:
        return render_card(backs[rng.integers(len(backs))], textures, pool, rng, size=size)
    h = int(np.exp(rng.uniform(np.log(80), np.log(220))))
    w = max(8, int(h * rng.uniform(0.55, 0.8)))
    canvas = background(textures, 3 * w, 3 * h, rng)
    if kind < 0.7:
        pass  # bare table
    elif kind < 0.85:
        clutter(canvas, rng)
    elif pool:
        # A card mostly outside the crop: its visible part must not read as that card.
        cx = w * 1.5 + rng.choice([-1, 1]) * w * rng.uniform(0.85, 1.0)
        cy = h * 1.5 + rng.uniform(-0.5, 0.5) * h
        paste(canvas, pool[rng.integers(len(pool))], w, h, cx, cy, rng.uniform(-30, 30))
    quad = np.array([[w, h], [2 * w, h], [2 * w, 2 * h], [w, 2 * h]], np.float32)
    crop = jittered_crop(canvas, quad, w, h, rng.uniform(0, 0.1), rng)
    return resize_crop(camera(light(crop, rng), rng), size)


def clutter(canvas: F32, rng: np.random.Generator) -> None:
    """Random strokes, blobs and text: the non-card things a card finder may pick up."""
    h, w = canvas.shape[:2]
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(3, 15))):
        colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
        p1 = (int(rng.integers(w)), int(rng.integers(h)))
        p2 = (int(rng.integers(w)), int(rng.integers(h)))
        t = int(rng.integers(1, max(2, h // 20)))
        shape = rng.integers(4)
        if shape == 0:
            cv2.line(img, p1, p2, colour, t, cv2.LINE_AA)
        elif shape == 1:
            cv2.circle(img, p1, int(rng.integers(3, max(4, h // 4))), colour, -1, cv2.LINE_AA)
        elif shape == 2:
            cv2.rectangle(img, p1, p2, colour, -1)
        else:
            cv2.putText(img, str(rng.integers(100)), p1, cv2.FONT_HERSHEY_SIMPLEX,
                        rng.uniform(0.5, 3), colour, t, cv2.LINE_AA)
    canvas[:] = img


# ---- crops as the table pipeline cuts them ------------------------------------------------
# Measured on simulated frames (benchmarks/recognition_sim.py): the finder's quads are off by
# ~10% of the card height at the median and 20-25% at p90 (shifted, too large, taking in the
# neighbouring trick card), trick cards lie on and under other card *faces* with drop
# shadows, the briscola lies half under the face-down stock, and the crop is warped from the
# frame straight to the model size (no area resampling) after the camera's blur/noise/JPEG.


def shadowed_paste(canvas: F32, art: CardArt, w: int, h: int, x: float, y: float, angle: float,
                   rng: np.random.Generator) -> U8:
    """:func:`paste` with a soft drop shadow under the card, as a card lying on the cloth casts."""
    dx, dy = rng.uniform(1, 4, 2)
    rot, box = _placement(canvas.shape, w, h, x + dx, y + dy, angle)
    if box is not None:
        x0, y0, x1, y1 = box
        mask = cv2.resize(art.mask, (w, h), interpolation=cv2.INTER_AREA)
        wm = cv2.warpAffine(mask, rot, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        soft = cv2.GaussianBlur(wm.astype(np.float32) / 255.0, (0, 0), rng.uniform(1.5, 3.5))
        canvas[y0:y1, x0:x1] *= (1.0 - rng.uniform(0.15, 0.4) * soft)[..., None]
    return paste_box(canvas, art, w, h, x, y, angle)


def _around(w: int, h: int, cx: float, cy: float, reach: float, rng: np.random.Generator) -> tuple[float, float]:
    """A centre for another card whose edge is about ``reach`` x size into/away from this one."""
    t = rng.uniform(0, 2 * np.pi)
    return cx + np.cos(t) * w * (1.0 - reach), cy + np.sin(t) * h * (1.0 - reach)


def table_occlusion(canvas: F32, card_mask: U8, w: int, h: int, cx: float, cy: float,
                    covers: list[CardArt], rng: np.random.Generator, max_cover: float = 0.4) -> None:
    """Cards laid on top (faces or the stock's backs) or a finger, together <= ``max_cover``."""
    area = float((card_mask > 127).sum()) or 1.0
    covered = np.zeros_like(card_mask, dtype=bool)
    for _ in range(int(rng.integers(1, 3))):
        for _try in range(3):
            trial = canvas.copy()
            x, y = _around(w, h, cx, cy, rng.uniform(0.1, 0.6), rng)
            if covers and rng.random() < 0.85:
                m = shadowed_paste(trial, covers[rng.integers(len(covers))], w, h, x, y, rng.uniform(-40, 40), rng)
            else:
                m = finger(trial, x, y, 0.6 * h, rng.uniform(0, 180), rng)
            now = covered | ((m > 127) & (card_mask > 127))
            if now.sum() / area <= max_cover:
                canvas[:] = trial
                covered = now
                break


def pipeline_crop(canvas: F32, quad: F32, size: tuple[int, int], rng: np.random.Generator) -> F32:
    """Warp ``quad`` with the finder's kind of error straight to ``size`` (as ``finder.rectify``).

    The error: the whole quad shifted (sigma 6% of the card height, heavy-tailed), scaled
    (0.9-1.3, the finder's quads run large), turned a few degrees, plus per-corner noise.
    """
    h = float(np.linalg.norm(quad[3] - quad[0]))
    centre = quad.mean(axis=0)
    big = rng.random() < 0.25  # the p90 tail: a quad that takes in a neighbour
    shift = rng.normal(0, (0.12 if big else 0.05) * h, 2)
    scale = rng.uniform(0.92, 1.35 if big else 1.15, 2)
    a = np.radians(rng.normal(0, 3.0))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    axes_u = (quad[1] - quad[0]) / max(1e-6, float(np.linalg.norm(quad[1] - quad[0])))
    axes_v = (quad[3] - quad[0]) / max(1e-6, h)
    local = np.stack([(quad - centre) @ axes_u, (quad - centre) @ axes_v], axis=1) * scale
    q = (local @ rot.T)[:, :1] * axes_u + (local @ rot.T)[:, 1:] * axes_v + centre + shift
    q = q + rng.normal(0, 0.02 * h, (4, 2))
    w_out, h_out = size
    dst = np.array([[0, 0], [w_out - 1, 0], [w_out - 1, h_out - 1], [0, h_out - 1]], np.float32)
    m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    out = np.asarray(cv2.warpPerspective(canvas, m, size, flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE), np.float32)
    return out


def render_table_card(
    art: CardArt, textures: list[U8], pool: list[CardArt], backs: list[CardArt], rng: np.random.Generator,
    size: tuple[int, int] = INPUT_SIZE,
) -> U8:
    """One crop of ``art`` lying among other cards, cut from the 'frame' as the pipeline cuts it.

    Other card faces lie under it (their edges show where the quad runs large) and on top of
    it (a trick), or the face-down stock covers part of it (the briscola); light and camera
    act on the whole scene at frame resolution, then the crop is warped to ``size`` directly.
    """
    h = int(np.exp(rng.uniform(np.log(75), np.log(190))))
    aspect = art.bgr.shape[1] / art.bgr.shape[0] * rng.uniform(0.9, 1.1)
    w = max(8, int(h * aspect))
    pad = int(0.6 * h)
    cw, ch = w + 2 * pad, h + 2 * pad
    cx, cy = cw / 2, ch / 2
    canvas = background(textures, cw, ch, rng)
    if rng.random() < 0.5:
        art = CardArt(art.bgr[::-1, ::-1].copy(), art.mask[::-1, ::-1].copy())
    for _ in range(int(rng.choice([0, 1, 1, 2, 3]))):  # earlier trick cards, under this one
        x, y = _around(w, h, cx, cy, rng.uniform(-0.2, 0.6), rng)
        shadowed_paste(canvas, pool[rng.integers(len(pool))], w, h, x, y, rng.uniform(-40, 40), rng)
    angle = rng.uniform(-4, 4)
    card_mask = shadowed_paste(canvas, art, w, h, cx, cy, angle, rng)
    if rng.random() < 0.45:
        stock = rng.random() < 0.3 and bool(backs)
        table_occlusion(canvas, card_mask, w, h, cx, cy, backs if stock else pool, rng)
    rot = cv2.getRotationMatrix2D((0.0, 0.0), angle, 1.0)[:, :2]
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float32)
    quad = (local @ rot.T + np.array([cx, cy])).astype(np.float32)
    scene = camera(light(canvas, rng), rng).astype(np.float32)
    crop = pipeline_crop(scene, quad, size, rng)
    out: U8 = np.clip(crop, 0, 255).astype(np.uint8)
    return out
