"""Cards found by their paper's tint (``finder/chroma.py``) where neither lightness nor edges part
them from the table: a yellowed card as light as the neutral grey stone it lies on, shrunk to the
box camera's size in a frame; a plain stone or a coloured cloth gives no card (self-made images,
no ../shared needed)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from referee.recognition.real_crops import seen_at
from referee.vision.finder import FinderConfig
from referee.vision.finder.card_finder import work_scale
from referee.vision.finder.chroma import chroma_card_hypotheses
from referee.vision.finder.quad import corner_gap, mean_sides

Image = npt.NDArray[np.uint8]
Quad = npt.NDArray[np.float32]

#: ``process_still``'s finder settings at its very last look (a photo: photo aspects and sizes)
PHOTO = replace(FinderConfig(upper_threshold=True, edge_regions=True, aspect_range=(1.25, 2.4), max_card_frac=0.85,
                             size_max_aspect=2.4), chroma_regions=True)


def _stone(rng: np.random.Generator, size: tuple[int, int] = (1280, 720), grey: float = 178.0) -> Image:
    """Neutral grey stone with a fine grain and a shaded lower part."""
    w, h = size
    grain = cv2.GaussianBlur(rng.normal(0.0, 20.0, (h, w)).astype(np.float32), (0, 0), 1.0)
    shade = np.linspace(0.0, -25.0, h, dtype=np.float32)[:, None]
    return np.repeat(np.clip(grey + grain + shade, 0, 255)[..., None], 3, axis=2).astype(np.uint8)


def _tinted_card(image: Image, centre: tuple[float, float], height: float, angle: float, rng: np.random.Generator) -> Quad:
    """Paint a card ``height`` px tall of the stone's own lightness but a little yellow (BGR with
    blue lowest), with a few dark pips, its sides soft (no edge of lightness); returns its quad."""
    w = height / 1.7
    quad = cv2.boxPoints((centre, (w, height), angle)).astype(np.float32)
    mask = np.zeros(image.shape[:2], np.float32)
    cv2.fillConvexPoly(mask, quad.astype(np.int32), 1.0)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 1.0), np.float32)[..., None]
    lightness = image.astype(np.float32).mean(axis=2, keepdims=True)
    tint = np.array([-14.0, 2.0, 10.0], np.float32)  # yellowed paper: blue down, red up
    paper = np.clip(lightness + tint, 0, 255)
    out = mask * paper + (1 - mask) * image.astype(np.float32)
    image[:] = np.clip(out, 0, 255).astype(np.uint8)
    for _ in range(4):
        p = centre + rng.uniform(-0.25, 0.25, 2) * np.array([w, height])
        cv2.circle(image, (int(p[0]), int(p[1])), max(2, int(w / 8)), tuple(int(c) for c in rng.integers(30, 120, 3)), -1)
    return quad


def _found(image: Image, cfg: FinderConfig = PHOTO) -> list[Quad]:
    """The proposer's quads in image px."""
    scale = work_scale(image.shape, cfg)
    return [h.quad / np.float32(scale) for h in chroma_card_hypotheses(image, scale, [], cfg, 0)]


@pytest.mark.parametrize(("seed", "height"), [(1, 80), (2, 100), (3, 160)])
def test_a_yellowed_card_as_light_as_grey_stone_is_proposed_by_its_tint(seed: int, height: int) -> None:
    # deck01's grey-white card on grey stone at 80-100 px in a camera frame: some sides no edge at
    # all, but the paper is yellow against the neutral stone all round
    rng = np.random.default_rng(seed)
    frame = _stone(rng)
    card = _tinted_card(frame, (500.0 + 40 * seed, 330.0), height, 3.0 * seed, rng)
    frame = seen_at(frame, None, 60)
    short, _ = mean_sides(card)
    assert any(corner_gap(q, card) < 0.3 * short for q in _found(frame))


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_a_plain_neutral_stone_gives_no_tinted_card(seed: int) -> None:
    # no card: the JPEG's colour noise on neutral stone is no card-shaped region
    frame = seen_at(_stone(np.random.default_rng(seed)), None, 60)
    assert _found(frame) == []


def test_a_white_card_on_a_coloured_cloth_is_no_tinted_card_and_the_cloth_is_none_either() -> None:
    # the cloth is the saturated part of the frame: a region over most of the frame, no card
    rng = np.random.default_rng(9)
    frame = np.empty((720, 1280, 3), np.uint8)
    frame[:] = (60, 140, 40)
    frame = np.clip(frame + rng.normal(0, 4, frame.shape), 0, 255).astype(np.uint8)
    cv2.fillConvexPoly(frame, cv2.boxPoints(((640.0, 360.0), (90.0, 155.0), 0.0)).astype(np.int32), (235, 235, 235))
    assert _found(seen_at(frame, None, 60)) == []
