"""The live loop finds a card on a light table (grey cloth, squared paper, lace) once the card
size is known: the whiteness mask is the whole table there, so the card comes from the regions
faint edges close (``finder/edge_blobs.py``)."""

from __future__ import annotations

import zlib

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.real_crops import seen_at
from referee.recognition.real_decks import deck_photos
from referee.recognition.views import LIVE_VIEWS
from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder.quad import corner_gap
from referee.vision.pipeline import FramePipeline

Image = npt.NDArray[np.uint8]
Quad = npt.NDArray[np.float32]
FRAME = (1280, 720)


def _card_quad(centre: tuple[float, float], height: float, angle: float, aspect: float = 1.7) -> Quad:
    t = np.deg2rad(angle)
    u = np.array([np.cos(t), np.sin(t)]) * height / aspect / 2
    v = np.array([-np.sin(t), np.cos(t)]) * height / 2
    c = np.array(centre)
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)


def _squared_paper(rng: np.random.Generator) -> Image:
    """A light grey sheet with a faint darker grid every 14 px and grain."""
    w, h = FRAME
    img = np.full((h, w, 3), (196, 192, 190), np.float32)
    img[::14] -= 18
    img[:, ::14] -= 18
    img += rng.normal(0.0, 3.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _lay(image: Image, quad: Quad) -> None:
    """A card stock blank barely lighter than the paper, with a few dark pips, and its soft shadow."""
    solid = np.zeros(image.shape[:2], np.float32)
    cv2.fillConvexPoly(solid, (quad + 2).astype(np.int32), 1.0)
    shadow = np.asarray(cv2.GaussianBlur(solid, (0, 0), 2.0), np.float32)
    image[:] = np.clip(image * (1 - 0.12 * shadow[..., None]), 0, 255).astype(np.uint8)
    cv2.fillConvexPoly(image, quad.astype(np.int32), (204, 204, 202), lineType=cv2.LINE_AA)
    centre, across, along = quad.mean(axis=0), quad[1] - quad[0], quad[3] - quad[0]
    for fx, fy in ((-0.2, -0.3), (0.2, 0.0), (-0.2, 0.3)):
        p = centre + fx * across + fy * along
        cv2.circle(image, (round(float(p[0])), round(float(p[1]))), max(3, round(0.1 * float(np.linalg.norm(across)))),
                   (40, 60, 160), -1, cv2.LINE_AA)


def _paper_with(seed: int, *quads: Quad) -> Image:
    """Squared paper with a card laid at each of ``quads`` (in order), as the camera delivers it."""
    image = _squared_paper(np.random.default_rng(seed))
    for quad in quads:
        _lay(image, quad)
    return _seen(image)


def _seen(image: Image) -> Image:
    """As the camera delivers it: a little out of focus, JPEG 60 (the card's outline, a step of
    about ten grey levels, breaks open under a strong-edge threshold)."""
    return seen_at(np.asarray(cv2.GaussianBlur(image, (0, 0), 1.5), np.uint8), None, 60)


def _found(finder: CardFinder, image: Image, truth: Quad) -> bool:
    finder.observe(truth[None])  # the card size, as a calibrated table or a sure read gives it
    dets = finder.find(image)
    short = float(np.linalg.norm(truth[1] - truth[0]))
    return any(corner_gap(q, truth) < 0.15 * short for q in dets.quad)


@pytest.mark.parametrize(("height", "angle"), [(100, 0.0), (130, 12.0), (160, -25.0), (120, 40.0)])
def test_a_card_on_squared_paper_is_found_in_the_live_frame_with_its_size_known(height: int, angle: float) -> None:
    # no quad at all: the whiteness mask was the whole sheet, and a strong-edge threshold left
    # the card's outline open
    truth = _card_quad((610.0, 350.0), height, angle)
    image = _paper_with(height, truth)
    assert _found(CardFinder(FinderConfig(split_when_still=True)), image, truth)
    assert not _found(CardFinder(FinderConfig(split_when_still=True, edge_blobs=False)), image, truth)


def test_a_trick_card_covered_30_percent_on_squared_paper_is_proposed() -> None:
    # the next card of the trick laid over it, about as light: the two are one region, split
    # from its corners at the known card size
    under = _card_quad((600.0, 360.0), 140, 5.0)
    over = _card_quad((600.0 + 0.7 * 140 / 1.7, 360.0 + 10.0), 140, -8.0)
    image = _paper_with(7, under, over)
    inter, _ = cv2.intersectConvexConvex(under, over)
    assert 0.25 <= inter / cv2.contourArea(under) <= 0.35
    assert _found(CardFinder(FinderConfig(split_when_still=True)), image, under)
    assert not _found(CardFinder(FinderConfig(split_when_still=True, edge_blobs=False)), image, under)


def test_the_edge_regions_need_the_card_size_and_stay_out_of_single_photos() -> None:
    # a region of any size could be a card: with no size known the live frame proposes none,
    # and the still path (edge_regions) has the straight-edge proposer instead
    truth = _card_quad((610.0, 350.0), 130, 0.0)
    image = _paper_with(3, truth)
    short = float(np.linalg.norm(truth[1] - truth[0]))
    for config in (FinderConfig(split_when_still=True), FinderConfig(edge_regions=True, line_regions=False)):
        finder = CardFinder(config)
        dets = finder.find(image)
        assert not any(corner_gap(q, truth) < 0.15 * short for q in dets.quad), config
        assert "edge" not in finder.last_kinds.values() or config.edge_regions


# ---- real photos (../shared and the committed Italian model) ----

NO_MODEL = not (models_dir() / "italian.onnx").is_file()


def _in_frame(deck: str, card: str, height: int) -> tuple[Image, Quad]:
    """The photo shrunk so its card is ``height`` px tall, the card and a card's height of its
    surface round it pasted (edges feathered) in a 1280x720 frame of the surface's median colour,
    JPEG 60: a card on that table as the box's camera sees it."""
    photo = next(p for p in deck_photos(decks=[deck]) if p.card == card)
    assert photo.quad is not None
    image = np.asarray(cv2.imread(str(photo.image), cv2.IMREAD_COLOR), np.uint8)
    tall = max(float(np.linalg.norm(photo.quad[3] - photo.quad[0])), float(np.linalg.norm(photo.quad[1] - photo.quad[0])))
    small = seen_at(image, round(image.shape[0] * height / tall), 60)
    quad = (photo.quad * np.float32(small.shape[0] / image.shape[0])).astype(np.float32)
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    x0, y0 = (max(0, int(v - height)) for v in lo)
    x1, y1 = int(min(small.shape[1], hi[0] + height)), int(min(small.shape[0], hi[1] + height))
    cut = small[y0:y1, x0:x1].astype(np.float32)
    outside = np.full(small.shape[:2], 255, np.uint8)
    cv2.fillConvexPoly(outside, quad.astype(np.int32), 0)
    rng = np.random.default_rng(zlib.crc32(f"{deck}/{card}".encode()))
    frame = np.median(small[outside > 0], axis=0) + rng.normal(0.0, 3.0, (FRAME[1], FRAME[0], 3))
    px, py = (FRAME[0] - cut.shape[1]) // 2, (FRAME[1] - cut.shape[0]) // 2
    ramp_y = np.minimum(np.arange(cut.shape[0]), np.arange(cut.shape[0])[::-1])
    ramp_x = np.minimum(np.arange(cut.shape[1]), np.arange(cut.shape[1])[::-1])
    alpha = np.clip(np.minimum(ramp_y[:, None], ramp_x[None, :]) / 24.0, 0.0, 1.0)[..., None]
    region = frame[py : py + cut.shape[0], px : px + cut.shape[1]]
    frame[py : py + cut.shape[0], px : px + cut.shape[1]] = alpha * cut + (1 - alpha) * region
    placed = (quad + np.array([px - x0, py - y0], np.float32)).astype(np.float32)
    return seen_at(np.clip(frame, 0, 255).astype(np.uint8), None, 60), placed


@pytest.mark.parametrize(("deck", "card", "height"), [("deck04", "coppe_6", 160), ("deck04", "spade_2", 100),
                                                      ("deck06", "bastoni_1", 100), ("deck08", "bastoni_8", 100),
                                                      ("deck08", "spade_2", 160)])
@pytest.mark.shared("photos/italian_napoletane_real_decks")
@pytest.mark.skipif(NO_MODEL, reason="no committed Italian model")
def test_a_real_card_on_a_lace_grey_or_squared_paper_table_is_read_in_the_live_frame(deck: str, card: str, height: int) -> None:
    # deck04: white crochet lace; deck06: plain light grey; deck08: grey squared paper.  The live
    # frame read nothing in any of these (the straight-edge proposer that finds them in a single
    # photo costs more than the live frame's whole budget)
    image, quad = _in_frame(deck, card, height)
    pipe = FramePipeline.create(CardClassifier.load("italian", threads=1, views=LIVE_VIEWS))
    pipe.finder.observe(quad[None])
    for _ in range(3):  # a still card over a few frames, as the tracker sees it
        found = pipe.process(image)
    assert list(found.card) == [card]
    centre = found.quad[0].mean(axis=0)
    assert cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0
