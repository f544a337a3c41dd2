"""Tiny self-contained table scenes for finder tests and latency benchmarks.

The full table simulator (``referee.vision.simulator``) renders real card faces; this module
needs nothing from ``../shared`` so the finder's tests run anywhere.  Cards are white rounded
blanks with coloured "figures"; backs are a saturated diamond pattern; cloths are checks,
stripes, wood-like noise or felt, optionally under uneven light.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.detections import Image
from referee.vision.pipeline import Read

CLOTHS = ("check", "stripes", "wood", "felt")


@dataclass(frozen=True)
class PlacedCard:
    center: tuple[float, float]
    angle: float  # degrees, counter-clockwise
    height: float  # px of the card's long side
    face_up: bool = True
    aspect: float = 1.7  # long / short side (Italian ~1.7, French ~1.4)


def cloth(kind: str, size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A ``size`` = (w, h) table cloth of the given kind."""
    w, h = size
    base = rng.integers(40, 200, 3)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = base
    if kind == "check":
        step = int(rng.integers(14, 30))
        ys, xs = np.mgrid[0:h, 0:w]
        a = (xs // step) % 2 == 0
        b = (ys // step) % 2 == 0
        img[:] = (40, 40, 220)
        img[a ^ b] = (110, 110, 235)
        img[a & b] = (250, 250, 250)  # the white squares: card-coloured on purpose
    elif kind == "stripes":
        step = int(rng.integers(10, 24))
        xs = np.arange(w)
        img[:, (xs // step) % 2 == 0] = (235, 235, 240)
    elif kind == "wood":
        noise = rng.normal(0, 1, (h // 8 + 1, w // 64 + 1)).astype(np.float32)
        grain = cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)
        img = np.clip(np.array([20, 70, 130], np.float32) + 25 * grain[..., None], 0, 255).astype(np.uint8)  # type: ignore[assignment]
    else:  # felt
        img[:] = (40, 120, 30)
        img = np.asarray(cv2.add(img, rng.integers(0, 12, img.shape, dtype=np.uint8)), np.uint8)
    return img


def card_face(w: int, h: int, rng: np.random.Generator, face_up: bool) -> Image:
    face = np.full((h, w, 3), 245, np.uint8)
    if not face_up:
        face[:] = (150, 40, 30)
        ys, xs = np.mgrid[0:h, 0:w]
        face[((xs + ys) // 6) % 2 == 0] = (200, 90, 60)
        return face
    colour = tuple(int(c) for c in rng.integers(0, 200, 3))
    m = max(2, w // 12)
    cv2.rectangle(face, (m, m), (w - m, h - m), colour, 1)
    for _ in range(int(rng.integers(1, 5))):
        rad = int(rng.integers(w // 10, w // 4))  # figures stay inside the white border
        c = (int(rng.integers(m + rad, w - m - rad)), int(rng.integers(m + rad, h - m - rad)))
        cv2.circle(face, c, rad, colour, -1)
    cv2.putText(face, str(int(rng.integers(1, 10))), (m + 1, m + 14), 0, 0.5, colour, 1)
    return face


def paste_card(scene: Image, card: PlacedCard, rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """Draw ``card`` onto ``scene`` in place; returns its quad (4, 2) clockwise from top-left."""
    h = round(card.height)
    w = round(card.height / card.aspect)
    face = card_face(w, h, rng, card.face_up)
    alpha = np.zeros((h, w), np.uint8)
    r = max(2, w // 14)  # rounded corners like real cards
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (w - 1 - r, h - 1 - r), (r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), card.angle, 1.0)
    rot[:, 2] = rot[:, 2] + np.array(card.center) - (w / 2, h / 2)
    quad = cv2.transform(src[None], rot)[0]
    size = (scene.shape[1], scene.shape[0])
    warped = cv2.warpAffine(face, rot, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(alpha, rot, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    # A soft shadow to the lower right, as under a lamp.
    shadow = cv2.GaussianBlur(np.roll(mask, (3, 3), axis=(0, 1)), (9, 9), 0)[..., None]
    scene[:] = (scene * (1 - 0.35 * shadow * (1 - mask))).astype(np.uint8)
    scene[:] = (scene * (1 - mask) + warped * mask).astype(np.uint8)
    out: npt.NDArray[np.float32] = quad.astype(np.float32)
    return out


def uneven_light(scene: Image, strength: float) -> Image:
    """Darken toward one corner by up to ``strength`` (0..1)."""
    h, w = scene.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    gain = 1 - strength * (xs / w * 0.6 + ys / h * 0.4)
    out: Image = np.clip(scene * gain[..., None], 0, 255).astype(np.uint8)
    return out


def make_scene(
    cards: list[PlacedCard],
    rng: np.random.Generator,
    kind: str = "felt",
    size: tuple[int, int] = (1280, 720),
    light: float = 0.0,
) -> tuple[Image, list[npt.NDArray[np.float32]]]:
    """A frame with ``cards`` pasted in order (later ones on top) and their quads."""
    scene = cloth(kind, size, rng)
    quads = [paste_card(scene, c, rng) for c in cards]
    if light:
        scene = uneven_light(scene, light)
    return scene, quads


def random_cards(
    rng: np.random.Generator, n: int, size: tuple[int, int] = (1280, 720), height: float = 170
) -> list[PlacedCard]:
    """``n`` face-up cards at random spots that do not overlap (plus nothing else)."""
    placed: list[PlacedCard] = []
    w, h = size
    while len(placed) < n:
        c = (float(rng.uniform(height, w - height)), float(rng.uniform(height * 0.7, h - height * 0.7)))
        if all(np.hypot(c[0] - p.center[0], c[1] - p.center[1]) > height * 1.1 for p in placed):
            placed.append(PlacedCard(c, float(rng.uniform(0, 180)), height))
    return placed


class StandInClassifier:
    """A recogniser stand-in for tests without a model (like gpiozero's mock pins).

    Bright crops (white card stock) are ``card``; darker ones (backs, cloth) are ``back``.
    """

    def __init__(self, card: str = "coppe_3", input_size: tuple[int, int] = (48, 80)) -> None:
        self.card = card
        self.input_size = input_size
        self.batches: list[int] = []

    def classify(self, crops: Sequence[Image]) -> list[Read]:
        self.batches.append(len(crops))
        out = []
        for crop in crops:
            if float(crop.mean()) > 170:
                out.append(Read(self.card, 0.97, [(self.card, 0.97), ("coppe_2", 0.02)]))
            else:
                out.append(Read("back", 0.99, [("back", 0.99)]))
        return out
