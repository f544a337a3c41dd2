"""Card finding on self-made scenes (no ../shared needed): cloths, overlap, partial cards."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from referee.vision.detections import Detections, DetectionsError
from referee.vision.finder import CardFinder, FinderConfig, FrameError
from referee.vision.finder.quad import share_inside
from referee.vision.finder_scenes import PlacedCard, make_scene, random_cards


def _found(dets: Detections, quad: npt.NDArray[np.float32], tol: float = 20.0) -> bool:
    centre = quad.mean(axis=0)
    return bool(len(dets)) and float(np.min(np.linalg.norm(dets.centers - centre, axis=1))) < tol


def _covers(dets: Detections, quad: npt.NDArray[np.float32]) -> bool:
    """A detection overlaps the card with IoU >= 0.5 (``benchmarks/vision_stages.py``'s "found").
    Used where the card size is a guess, so a quad may be a card's visible part: its centre
    says little, and moving one side onto the card's edge may move the centre away."""
    def iou(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
        inter, _ = cv2.intersectConvexConvex(a.reshape(-1, 1, 2), b.reshape(-1, 1, 2))
        return float(inter) / (cv2.contourArea(a) + cv2.contourArea(b) - float(inter))

    return any(iou(q.astype(np.float32), quad.astype(np.float32)) >= 0.5 for q in dets.quad)


@pytest.mark.parametrize("cloth", ["felt", "wood"])
def test_isolated_cards_are_all_found_under_uneven_light(cloth: str) -> None:
    rng = np.random.default_rng(3)
    cards = random_cards(rng, 6)
    image, quads = make_scene(cards, rng, cloth, light=0.4)
    dets = CardFinder().find(image)
    assert all(_found(dets, q) for q in quads)
    assert len(set(dets.group.tolist())) <= 8  # no flood of cloth proposals


def test_check_cloth_white_squares_are_not_cards_and_cards_are_found() -> None:
    rng = np.random.default_rng(5)
    cards = [PlacedCard((300, 250), 5, 170), PlacedCard((900, 450), 80, 170)]
    image, quads = make_scene(cards, rng, "check")
    dets = CardFinder().find(image)
    assert all(_found(dets, q) for q in quads)
    assert len(set(dets.group.tolist())) == 2


def test_two_cards_overlapping_by_forty_percent_are_two_cards() -> None:
    rng = np.random.default_rng(7)
    cards = [PlacedCard((600, 360), 4, 170), PlacedCard((660, 360), -6, 170)]  # 100 px wide: 40% overlap
    image, quads = make_scene(cards, rng, "felt")
    dets = CardFinder().find(image)
    assert _covers(dets, quads[0]) and _covers(dets, quads[1])


def test_face_down_card_is_not_proposed() -> None:
    rng = np.random.default_rng(1)
    image, quads = make_scene([PlacedCard((640, 360), 20, 170, face_up=False)], rng, "felt")
    assert not _found(CardFinder().find(image), quads[0])


def test_card_half_under_the_stock_is_proposed_at_full_size() -> None:
    rng = np.random.default_rng(2)
    briscola = PlacedCard((640, 360), 90, 170)  # lying across, long side horizontal
    stock = PlacedCard((700, 360), 0, 170, face_up=False)  # covers its right half
    image, quads = make_scene([briscola, stock], rng, "felt")
    dets = CardFinder(FinderConfig(card_height=170)).find(image)
    assert _found(dets, quads[0], tol=25)


def test_crops_are_portrait_at_the_configured_size_and_quads_are_in_image_pixels() -> None:
    rng = np.random.default_rng(4)
    cards = [PlacedCard((400, 300), 30, 170)]
    image, quads = make_scene(cards, rng, "felt")
    dets = CardFinder(FinderConfig(crop_size=(50, 80))).find(image)
    assert len(dets) == 1 and dets.crops[0].shape == (80, 50, 3)
    q = dets.quad[0]
    assert np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[2] - q[1])  # short side first
    assert np.abs(np.sort(q, axis=0) - np.sort(quads[0], axis=0)).max() < 0.1 * 170  # the classifier tolerates 10%


def test_card_size_is_learned_from_single_cards() -> None:
    rng = np.random.default_rng(6)
    finder = CardFinder()
    finder.find(make_scene(random_cards(rng, 3, height=120), rng, "felt")[0])
    assert finder.card_size is not None and abs(finder.card_size[1] - 120) < 12


@pytest.mark.parametrize("bad", [np.zeros((720, 1280), np.uint8), np.zeros((720, 1280, 3), np.float32), "x"])
def test_bad_frames_are_a_clear_error(bad: object) -> None:
    with pytest.raises(FrameError, match="BGR uint8"):
        CardFinder().find(bad)  # type: ignore[arg-type]


def test_detections_filter_with_a_mask_and_validate_lengths() -> None:
    quads = np.arange(3 * 8, dtype=np.float32).reshape(3, 4, 2)
    dets = Detections(quad=quads, card=np.array(["coppe_1", "back", "7H"], object))
    sub = dets[dets.card != "back"]
    assert list(sub.card) == ["coppe_1", "7H"] and list(sub.group) == [0, 2]
    assert list(dets.face_up) == [True, False, True]
    with pytest.raises(DetectionsError, match="confidence"):
        Detections(quad=quads, confidence=np.zeros(2, np.float32))


def test_overlapping_cards_are_split_only_where_the_focus_says_tricks_lie() -> None:
    rng = np.random.default_rng(7)
    cards = [PlacedCard((600, 360), 4, 170), PlacedCard((660, 360), -6, 170)]
    image, quads = make_scene(cards, rng, "felt")
    here = np.array([[400, 200], [900, 200], [900, 520], [400, 520]], np.float32)
    elsewhere = here + np.float32(2000)
    split = CardFinder().find(image, focus=here)
    assert _covers(split, quads[0]) and _covers(split, quads[1])
    assert len(CardFinder().find(image, focus=elsewhere)) == 0  # a pile away from the play area


def test_the_passes_of_one_photo_pool_into_one_detections_each_its_own_group() -> None:
    a = Detections(quad=np.zeros((2, 4, 2), np.float32), group=np.array([0, 0], np.int32),
                   card=np.array(["coppe_1", "coppe_2"], object), confidence=np.array([0.9, 0.5], np.float32))
    b = Detections(quad=np.ones((1, 4, 2), np.float32), card=np.array(["spade_3"], object),
                   confidence=np.array([0.7], np.float32))
    both = a.joined(b)
    assert both.card.tolist() == ["coppe_1", "coppe_2", "spade_3"]
    assert both.group.tolist() == [0, 1, 2] and both.confidence.tolist() == pytest.approx([0.9, 0.5, 0.7])
    assert a.joined(Detections.empty()) is a and Detections.empty().joined(b) is b


def test_the_share_of_a_quad_inside_another() -> None:
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    assert share_inside(square, square + np.array([5, 0], np.float32)) == pytest.approx(0.5)
    assert share_inside(square * 0.5 + 2, square) == pytest.approx(1.0)
    assert share_inside(square, square + np.array([20, 0], np.float32)) == 0.0
    assert share_inside(np.zeros((4, 2), np.float32), square) == 0.0


def _piece(x0: int, y0: int, x1: int, y1: int, shape: tuple[int, int] = (400, 300)) -> npt.NDArray[np.int32]:
    mask = np.zeros(shape, np.uint8)
    cv2.rectangle(mask, (x0, y0), (x1, y1), 255, cv2.FILLED)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return np.asarray(contours[0], np.int32)


def test_a_card_piece_clear_of_the_frame_border_is_never_extended_past_it() -> None:
    from referee.vision.finder.blobs import partial_card_quads
    # a piece one card wide (100) and 60% of a card long (150 of 250), 20 px under the frame's top
    piece = _piece(100, 20, 200, 170)
    both = partial_card_quads(piece, cv2.contourArea(piece), 100.0, 250.0)
    assert len(both) == 2 and min(float(q[:, 1].min()) for q in both) < -50  # one runs 80 px past the top
    kept = partial_card_quads(piece, cv2.contourArea(piece), 100.0, 250.0, (400, 300))
    assert len(kept) == 1 and float(kept[0][:, 1].min()) >= 15  # the card hidden below the piece
    # a piece cut by the frame's top: its card may go on past the border, both ways are kept
    cut = _piece(100, 0, 200, 150)
    assert len(partial_card_quads(cut, cv2.contourArea(cut), 100.0, 250.0, (400, 300))) == 2
