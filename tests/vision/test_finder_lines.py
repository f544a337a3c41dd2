"""Cards found by their straight edges (``finder/lines.py``) where no threshold parts them from the
table: a grey-white card on speckled grey stone and a white card on squared paper, shrunk to the
box camera's size, each proposed once as its own quad; a block of paper cells is no card
(self-made images, no ../shared needed)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from referee.recognition.real_crops import seen_at
from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder.config import (
    FALLBACK_LINE_SUPPORT,
    FALLBACK_THREE_SIDES,
    FALLBACK_TINTED_SIDES,
)
from referee.vision.finder.lines import LineCache, line_quads
from referee.vision.finder_scenes import PlacedCard

Image = npt.NDArray[np.uint8]
Quad = npt.NDArray[np.float32]

#: ``process_still``'s finder settings (a photo: every proposer, photo aspects and sizes)
PHOTO = FinderConfig(upper_threshold=True, edge_regions=True, aspect_range=(1.25, 2.4), max_card_frac=0.85,
                     size_max_aspect=2.4)


def _speckled_stone(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """Grey stone with a coarse grain and a shaded lower part, about as light as the card."""
    w, h = size
    grain = cv2.GaussianBlur(rng.normal(0.0, 28.0, (h, w)).astype(np.float32), (0, 0), 1.2)
    shade = np.linspace(0.0, -25.0, h, dtype=np.float32)[:, None]
    grey = np.clip(178.0 + grain + shade, 0, 255)
    return np.repeat(grey[..., None], 3, axis=2).astype(np.uint8)


def _squared_paper(size: tuple[int, int], cell: int) -> Image:
    w, h = size
    paper = np.full((h, w, 3), (228, 226, 230), np.uint8)
    paper[:, ::cell] = (170, 165, 180)
    paper[::cell, :] = (170, 165, 180)
    return paper


def _card_on(table: Image, card: PlacedCard, rng: np.random.Generator, stock: float) -> Quad:
    """Paste a card of ``stock`` grey stock with a few pips and no printed frame (a Napoletane
    print: its only straight edges are the card's own sides); returns its quad."""
    h, w = round(card.height), round(card.height / card.aspect)
    face = np.full((h, w, 3), stock, np.uint8)
    for _ in range(4):
        rad = int(rng.integers(w // 8, w // 5))
        centre = (int(rng.integers(w // 6 + rad, w - w // 6 - rad)), int(rng.integers(h // 8 + rad, h - h // 8 - rad)))
        cv2.circle(face, centre, rad, tuple(int(c) for c in rng.integers(30, 160, 3)), -1)
    alpha = np.zeros((h, w), np.uint8)
    r = max(2, w // 14)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (w - 1 - r, h - 1 - r), (r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), card.angle, 1.0)
    rot[:, 2] = rot[:, 2] + np.array(card.center) - (w / 2, h / 2)
    size = (table.shape[1], table.shape[0])
    warped = cv2.warpAffine(face, rot, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(alpha, rot, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    table[:] = (table * (1 - mask) + warped * mask).astype(np.uint8)
    quad: Quad = cv2.transform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), rot)[0].astype(np.float32)
    return quad


def _matches(found: Quad, card: Quad, tol: float) -> bool:
    """Every corner of ``found`` within ``tol`` px of a corner of ``card``."""
    d = np.linalg.norm(found[:, None, :] - card[None, :, :], axis=2)
    return float(d.min(axis=1).max()) <= tol


def _shrunk(image: Image, quad: Quad, card_height: int, long_side: float) -> tuple[Image, Quad]:
    small = seen_at(image, round(image.shape[0] * card_height / long_side), 60)
    return small, quad * np.float32(small.shape[0] / image.shape[0])


def test_a_grey_card_on_speckled_grey_stone_at_80_px_is_proposed_by_its_straight_sides() -> None:
    # the real Napoletane photos of a grey-white deck on grey stone shrunk to 80-160 px: the
    # card is about as light as the stone, so no whiteness blob, darker region or edge-closed
    # region is the card and nothing was found
    rng = np.random.default_rng(3)
    image = _speckled_stone((960, 1280), rng)
    card = _card_on(image, PlacedCard((470, 640), 4, 700, aspect=1.65), rng, stock=196)
    small, quad = _shrunk(image, card, 80, 700)
    short = 80 / 1.65
    lq = line_quads(small, PHOTO)
    assert any(_matches(q, quad, 0.12 * short) for q in lq.quads)
    finder = CardFinder(PHOTO)
    dets = finder.find(small)
    hits = [q for q in dets.quad if _matches(q, quad, 0.12 * short)]
    assert hits, "the card's own quad is proposed"


def test_a_white_card_on_squared_paper_at_80_px_in_a_camera_frame_is_one_quad_and_no_cell_block_is_a_card() -> None:
    # the real photos of a deck on squared paper placed in a 1280x720 frame at 80 px: the card
    # merges with the white paper; blocks of cells are card-shaped rectangles of straight edges too
    rng = np.random.default_rng(8)
    frame = _squared_paper((1280, 720), 7)
    card = _card_on(frame, PlacedCard((700, 380), -6, 80, aspect=1.7), rng, stock=245)
    frame = seen_at(frame, None, 60)
    short = 80 / 1.7
    lq = line_quads(frame, PHOTO)
    assert any(_matches(q, card, 0.12 * short) for q in lq.quads)
    on_card = [cv2.pointPolygonTest(card.reshape(-1, 1, 2), tuple(float(v) for v in q.mean(axis=0)), False) >= 0
               for q in lq.quads]
    assert all(on_card), "a quad of paper cells is not a card"


#: the looser side support of a photo's last look when nothing was read surely
LOOSER = replace(PHOTO, line_support=FALLBACK_LINE_SUPPORT)
#: and of its very last look, when even the looser quads read nothing surely: three sides enough
THREE = replace(LOOSER, line_three_sides=FALLBACK_THREE_SIDES)
#: and of the look after that, when even the card stock's tint read nothing surely: sides bounding the tint
TINTED = replace(THREE, chroma_regions=True, line_tinted=FALLBACK_TINTED_SIDES)


@pytest.mark.parametrize("seed", [5, 6, 7])
@pytest.mark.parametrize("config", [PHOTO, LOOSER, THREE, TINTED], ids=["photo", "looser", "three-sides", "tinted"])
def test_a_plain_speckled_table_gives_no_line_quad(seed: int, config: FinderConfig) -> None:
    # no card: the grain's short edges and the shading are no four straight sides, not even
    # where a photo with no sure card is looked at again with sides that are edges along less
    rng = np.random.default_rng(seed)
    table = seen_at(_speckled_stone((1280, 720), rng), None, 60)
    assert len(line_quads(table, config).quads) == 0


@pytest.mark.parametrize("seed", [3, 4])
def test_a_grey_card_with_one_side_as_light_as_the_stone_all_along_it_is_closed_by_its_other_three(seed: int) -> None:
    # the real photos of a grey deck on grey stone at 80-100 px, alone or in a camera frame: the
    # stone beyond one short side is as light as the card, so that side is no edge at all
    # (support 0.0-0.2) and no quad of four edge sides, even the looser ones, is the card
    rng = np.random.default_rng(seed)
    image = _speckled_stone((960, 1280), rng)
    w = 700 / 1.65
    tilt = np.deg2rad(4)
    below = np.array([470, 640]) + np.array([-np.sin(tilt), np.cos(tilt)]) * 350  # the lower short side's middle
    ellipse = np.zeros(image.shape[:2], np.float32)
    cv2.ellipse(ellipse, (int(below[0]), int(below[1])), (int(0.95 * w), int(0.15 * w)), 4, 0, 360, 1.0, -1)
    patch = np.asarray(cv2.GaussianBlur(ellipse, (0, 0), 8), np.float32)[..., None]
    shade = np.linspace(0.0, -25.0, image.shape[0], dtype=np.float32)[:, None, None]
    lighter = np.clip(image + patch * (196 - 178 - shade), 0, 255)  # the stone as light as the stock
    image[:] = lighter.astype(np.uint8)
    card = _card_on(image, PlacedCard((470, 640), 4, 700, aspect=1.65), rng, stock=196)
    small, quad = _shrunk(image, card, 80, 700)
    short = 80 / 1.65
    assert not any(_matches(q, quad, 0.12 * short) for q in line_quads(small, LOOSER).quads)
    assert any(_matches(q, quad, 0.12 * short) for q in line_quads(small, THREE).quads)


def test_an_image_looked_at_again_with_a_looser_side_support_gets_the_quads_of_that_support() -> None:
    # a photo's straight edges are found once per image (LineCache); its last look asks less
    # of each side and must not be handed the first looks' stricter quads. A card beside a light
    # patch along 60% of its right side: that side is an edge along 40% of it, so each looser
    # look finds more quads. (Not a sheet of squared paper, as this test had: on a perfect grid
    # LSD's segments depend on the machine's float path, and one machine found no quad at all.)
    rng = np.random.default_rng(0)
    table = np.full((720, 1280, 3), 90, np.uint8)
    cv2.rectangle(table, (500, 200), (599, 369), (205, 205, 205), -1)
    cv2.rectangle(table, (600, 268), (700, 369), (200, 200, 200), -1)
    photo = seen_at(np.clip(table + rng.normal(0, 3, table.shape), 0, 255).astype(np.uint8), None, 60)
    cache = LineCache()
    strict = len(cache.quads(photo, PHOTO).quads)
    looser = len(cache.quads(photo, LOOSER).quads)
    assert looser > strict
    assert looser == len(line_quads(photo, LOOSER).quads) and strict == len(cache.quads(photo, PHOTO).quads)
    three = len(cache.quads(photo, THREE).quads)
    assert three == len(line_quads(photo, THREE).quads) and looser == len(cache.quads(photo, LOOSER).quads)
    tinted = len(cache.quads(photo, TINTED).quads)
    assert tinted == len(line_quads(photo, TINTED).quads) and three == len(cache.quads(photo, THREE).quads)


def test_a_card_shaped_panel_split_by_a_straight_line_through_its_middle_is_no_card() -> None:
    # a panel of a lace border or a pair of paper cells: four straight sides of a card's
    # proportions, but a straight line runs across it; it was the only candidate, and with it
    # dropped the proposer had no quad left to return (a crash before)
    image = np.full((400, 600, 3), 90, np.uint8)
    cv2.rectangle(image, (250, 100), (349, 269), (200, 200, 200), -1)
    cv2.rectangle(image, (250, 182), (349, 187), (90, 90, 90), -1)
    assert len(line_quads(image, PHOTO).quads) == 0
