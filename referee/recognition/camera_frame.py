"""A real photo of one card as the box camera sees it: shrunk until the card is a given height and
laid in a 1280x720 frame of the photo's own surface, then JPEG-compressed
(``benchmarks/real_decks.py --in-frame``, and the regression tests on those photos)."""

from __future__ import annotations

import zlib

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition.real_crops import seen_at

#: (width, height) of the box camera's frame
FRAME = (1280, 720)
#: how far (px) the shrunk photo fades into the frame at its border
BLEND_PX = 24
#: the frame's JPEG quality (the box camera's stream, as ``benchmarks/real_decks.py``'s shrunk photos)
JPEG_QUALITY = 60


def in_frame(image: npt.NDArray[np.uint8], quad: npt.NDArray[np.float32], height: int,
             name: str) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32]]:
    """The photo shrunk so the card is ``height`` px tall, placed in a :data:`FRAME` of the
    photo's surface colour (the median outside ``quad``, noise of sd 3) at a place seeded by
    ``name``, then JPEG-compressed; with the quad in the frame's pixels."""
    tall = max(float(np.linalg.norm(quad[3] - quad[0])), float(np.linalg.norm(quad[1] - quad[0])))
    s = height / tall
    h, w = image.shape[:2]
    size = (max(8, round(w * s)), max(8, round(h * s)))
    if size[0] > FRAME[0] or size[1] > FRAME[1]:
        raise ValueError(f"{name}: a card {height} px tall leaves the photo {size[0]}x{size[1]}, over the frame")
    small = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
    outside = np.full(image.shape[:2], 255, np.uint8)
    cv2.fillConvexPoly(outside, quad.astype(np.int32), 0)
    colour = np.median(image[outside > 0], axis=0)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    frame = np.clip(colour + rng.normal(0.0, 3.0, (FRAME[1], FRAME[0], 3)), 0, 255).astype(np.uint8)
    x, y = int(rng.integers(0, FRAME[0] - size[0] + 1)), int(rng.integers(0, FRAME[1] - size[1] + 1))
    placed = quad * np.float32(size[1] / h) + np.array([x, y], np.float32)
    # the photo fades into the frame over up to BLEND_PX (never over the card): a pasted photo's
    # straight border is a step a real camera frame does not have, and closes quads of its own
    inside = np.zeros((size[1] + 2, size[0] + 2), np.uint8)
    inside[1:-1, 1:-1] = 255
    to_border = cv2.distanceTransform(inside, cv2.DIST_L2, 3)[1:-1, 1:-1]
    card = np.zeros(size[::-1], np.uint8)
    cv2.fillConvexPoly(card, (placed - np.array([x, y], np.float32)).astype(np.int32), 255)
    ramp = max(1.0, min(float(BLEND_PX), float(to_border[card > 0].min()) - 1.0)) if card.any() else float(BLEND_PX)
    alpha = np.clip(to_border / ramp, 0.0, 1.0)[..., None]
    window = frame[y : y + size[1], x : x + size[0]].astype(np.float32)
    frame[y : y + size[1], x : x + size[0]] = np.clip(alpha * small + (1.0 - alpha) * window + 0.5, 0, 255).astype(np.uint8)
    return seen_at(frame, None, JPEG_QUALITY), placed.astype(np.float32)
