"""Table cloths: drawn checks, stripes, felt, wood, plain; or the photos under ``../shared`` tiled.

Names: one of :data:`GENERATED` (``check``, ``stripes``, ``felt``, ``wood``, ``plain``: drawn
here, no file needed, so the demo and the tests need nothing beside the checkout), or a texture
photo's file stem (``tovaglia``, ``legno``, ...: only with ``../shared``). ``random`` picks
either kind among those available.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.simulator.assets import AssetError, Image, texture_files, texture_image

GENERATED = ("check", "stripes", "felt", "wood", "plain")

#: cloth colours (BGR) for generated textures: reds, blues, greens, browns, creams
_PALETTE = (
    (40, 40, 200), (160, 60, 30), (50, 120, 40), (30, 70, 120), (200, 220, 230),
    (90, 30, 110), (20, 140, 200), (70, 70, 70),
)


def texture_names() -> list[str]:
    return [*texture_files(), *GENERATED]


def make_texture(name: str, size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A table cloth of ``size`` (width, height); ``name`` as in the module docstring."""
    if name == "random":
        name = str(rng.choice(texture_names()))
    makers = {"check": _check, "stripes": _stripes, "felt": _felt, "wood": _wood, "plain": _plain}
    if name in makers:
        return makers[name](size, rng)
    if name not in texture_files():
        photos = ", ".join(texture_files()) or "none: the photos are in ../shared, which is missing"
        raise AssetError(f"no table cloth {name!r}: drawn cloths are {', '.join(GENERATED)}; "
                         f"texture photos: {photos}")
    return _tiled(texture_image(name), size, rng)


def _tiled(photo: Image, size: tuple[int, int], rng: np.random.Generator) -> Image:
    w, h = size
    scale = float(rng.uniform(0.9, 1.6))
    tile = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    reps_y, reps_x = h // tile.shape[0] + 2, w // tile.shape[1] + 2
    # Mirror-tiling hides seams of photos that are not made to tile.
    row = np.hstack([tile if i % 2 == 0 else tile[:, ::-1] for i in range(reps_x)])
    big = np.vstack([row if j % 2 == 0 else row[::-1] for j in range(reps_y)])
    ox = int(rng.integers(0, big.shape[1] - w + 1))
    oy = int(rng.integers(0, big.shape[0] - h + 1))
    out: Image = np.ascontiguousarray(big[oy : oy + h, ox : ox + w])
    return out


def _to_u8(img: np.ndarray) -> Image:
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _colour(rng: np.random.Generator) -> np.ndarray:
    base = np.array(_PALETTE[int(rng.integers(len(_PALETTE)))], np.float32)
    return np.clip(base + rng.normal(0, 12, 3), 0, 255)


def _weave(size: tuple[int, int], rng: np.random.Generator, amount: float) -> np.ndarray:
    """Fine cloth grain: small noise, slightly blurred, to multiply into a flat colour."""
    w, h = size
    noise = rng.normal(0, amount, (h, w)).astype(np.float32)
    return cv2.GaussianBlur(noise, (0, 0), 0.8)[..., None]


def _check(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """Gingham: a colour and white crossed, each band also half-tinted where they overlap."""
    w, h = size
    period = float(rng.uniform(24, 70))
    angle = float(rng.uniform(-0.3, 0.3))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    v = -xx * np.sin(angle) + yy * np.cos(angle)
    band_u = ((u / period) % 1.0 < 0.5).astype(np.float32)
    band_v = ((v / period) % 1.0 < 0.5).astype(np.float32)
    ink2d = (band_u + band_v) / 2.0  # 0 white, 0.5 tint, 1 full colour
    ink = cv2.GaussianBlur(ink2d, (0, 0), 0.7)[..., None]
    colour = _colour(rng)
    white = np.array([235, 238, 240], np.float32)
    img = white * (1 - ink) + colour * ink
    img = img * (1 + _weave(size, rng, 0.05))
    return _to_u8(img)


def _stripes(size: tuple[int, int], rng: np.random.Generator) -> Image:
    w, h = size
    period = float(rng.uniform(20, 90))
    angle = float(rng.uniform(0, np.pi))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    duty = float(rng.uniform(0.3, 0.6))
    ink = ((u / period) % 1.0 < duty).astype(np.float32)[..., None]
    a, b = _colour(rng), _colour(rng)
    img = a * (1 - ink) + b * ink
    img = img * (1 + _weave(size, rng, 0.05))
    return _to_u8(img)


def _felt(size: tuple[int, int], rng: np.random.Generator) -> Image:
    w, h = size
    colour = np.array([60, 110, 30], np.float32) + rng.normal(0, 15, 3)
    blotch = cv2.resize(rng.normal(0, 0.06, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h))
    img = colour * (1 + blotch[..., None] + _weave(size, rng, 0.08))
    return _to_u8(img)


def _wood(size: tuple[int, int], rng: np.random.Generator) -> Image:
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = cv2.resize(rng.normal(0, 6, (h // 60 + 2, w // 60 + 2)).astype(np.float32), (w, h))
    grain = np.sin((yy + warp * 3) / float(rng.uniform(3, 8)) + 0.002 * xx) * 0.5 + 0.5
    base = np.array([40, 90, 150], np.float32) * float(rng.uniform(0.7, 1.2))
    img = base * (0.8 + 0.25 * grain[..., None]) * (1 + _weave(size, rng, 0.04))
    return _to_u8(img)


def _plain(size: tuple[int, int], rng: np.random.Generator) -> Image:
    w, h = size
    img = _colour(rng) * (1 + _weave(size, rng, 0.04))
    return _to_u8(np.broadcast_to(img, (h, w, 3)))
