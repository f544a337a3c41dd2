"""``referee detect``'s path on real photos of Napoletane decks no model trained on, shrunk to the
box camera's card sizes: each photo is its one card, never cards cut from its own pips (needs
../shared and the committed Italian model)."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.camera_frame import in_frame
from referee.recognition.real_crops import seen_at
from referee.recognition.real_decks import DeckPhoto, deck_photos
from referee.vision.pipeline import FramePipeline

pytestmark = [pytest.mark.shared("photos/italian_napoletane_real_decks"),
              pytest.mark.skipif(not (models_dir() / "italian.onnx").is_file(), reason="no committed Italian model")]

Image = npt.NDArray[np.uint8]


def _photo(deck: str, card: str) -> tuple[DeckPhoto, Image]:
    photo = next(p for p in deck_photos(decks=[deck]) if p.card == card)
    assert photo.quad is not None
    return photo, np.asarray(cv2.imread(str(photo.image), cv2.IMREAD_COLOR), np.uint8)


def _card_height(quad: npt.NDArray[np.float32]) -> float:
    return max(float(np.linalg.norm(quad[3] - quad[0])), float(np.linalg.norm(quad[1] - quad[0])))


def _read(image: Image) -> list[tuple[str, npt.NDArray[np.float32]]]:
    found = FramePipeline.create(CardClassifier.load("italian", threads=1)).process_still(image)
    return [(str(c), q.mean(axis=0)) for c, q in zip(found.card, found.quad, strict=True)]


def _read_shrunk(deck: str, card: str, height: int) -> tuple[list[tuple[str, npt.NDArray[np.float32]]], npt.NDArray[np.float32]]:
    """The deck's photo of ``card`` shrunk until the card is ``height`` px tall and JPEG 60, as the
    box camera sees it, read by the still path; with the card's verified quad in that image."""
    photo, image = _photo(deck, card)
    assert photo.quad is not None
    small = seen_at(image, round(image.shape[0] * height / _card_height(photo.quad)), 60)
    return _read(small), photo.quad * np.float32(small.shape[0] / image.shape[0])


def _on(point: npt.NDArray[np.float32], quad: npt.NDArray[np.float32]) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


@pytest.mark.parametrize(("deck", "card", "height"), [("deck08", "coppe_6", 245), ("deck04", "denari_5", 160),
                                                      ("deck08", "denari_5", 80)])
def test_a_shrunk_close_up_is_its_card_not_boxes_around_its_pips(deck: str, card: str, height: int) -> None:
    # read as four coppe_2 / denari_2 (the pass with the most sure confidence was the pip boxes')
    photo, image = _photo(deck, card)
    assert photo.quad is not None
    scale = height / _card_height(photo.quad)
    small = seen_at(image, round(image.shape[0] * scale), 60)
    quad = photo.quad * np.float32(small.shape[0] / image.shape[0])
    found = _read(small)
    assert [c for c, _ in found] == [card] and _on(found[0][1], quad)


def test_a_yellowed_card_on_a_white_table_shrunk_to_160_px_is_found() -> None:
    # nothing was found: the cream card is less "white" than the table
    found, _ = _read_shrunk("deck06", "denari_5", 160)
    assert [c for c, _ in found] == ["denari_5"]


def test_a_card_80_px_tall_in_a_camera_frame_is_found() -> None:
    # nothing was found: at the finder's work width (half the frame's) the card is 40 px tall and
    # a 2 of spade's swords cut its white apart
    photo, image = _photo("deck02", "spade_2")
    assert photo.quad is not None
    s = 80 / _card_height(photo.quad)
    small = np.asarray(cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    frame = np.empty((720, 1280, 3), np.uint8)
    frame[:] = np.median(image[:40].reshape(-1, 3), axis=0)
    frame[300 : 300 + small.shape[0], 900 : 900 + small.shape[1]] = small
    frame = seen_at(frame, None, 60)
    quad = photo.quad * np.float32(s) + np.array([900, 300], np.float32)
    found = _read(frame)
    assert [c for c, _ in found] == ["spade_2"] and _on(found[0][1], quad)


@pytest.mark.parametrize(("deck", "card", "height"), [("deck06", "coppe_7", 80), ("deck06", "coppe_6", 100)])
def test_no_card_from_a_single_pip_of_a_card_too_small_to_be_found_whole(deck: str, card: str, height: int) -> None:
    # a cream card on a white table shrunk to 80-100 px: edge regions closed around its single
    # cups, 11-25 px tall, read coppe_1 at up to 0.75
    found, quad = _read_shrunk(deck, card, height)
    assert all(c == card and _on(centre, quad) for c, centre in found)


@pytest.mark.parametrize(("card", "height"), [("bastoni_3", 80), ("coppe_5", 160)])
def test_a_grey_card_on_grey_stone_shrunk_small_is_found_by_its_straight_sides(card: str, height: int) -> None:
    # nothing was found: the grey-white card is about as light as the speckled stone, and no
    # threshold or closed outline parts them once the photo is shrunk and JPEG-compressed
    found, quad = _read_shrunk("deck01", card, height)
    assert [c for c, _ in found] == [card] and _on(found[0][1], quad)


def test_a_court_figure_on_a_lace_table_is_no_card_of_its_own() -> None:
    # a card on lace shrunk to 100 px: the region darker than the lace around its middle figure
    # fills a card-shaped rectangle, but its four corners made a squat trapezoid that read
    # bastoni_1 surely and, as a sure card's own outline inside it, turned the card into "the
    # card and its table"; its upper pips then read denari_2 and a box below it denari_3
    found, quad = _read_shrunk("deck04", "denari_4", 100)
    assert [c for c, _ in found] == ["denari_4"] and _on(found[0][1], quad)


@pytest.mark.parametrize(("card", "height"), [("coppe_10", 100), ("spade_1", 160), ("coppe_7", 245)])
def test_a_grey_card_on_grey_stone_with_one_faint_side_is_found_when_nothing_else_is_read_surely(card: str, height: int) -> None:
    # nothing was found: the stone beside one side is as light as the card along half of it, so
    # that side is an edge along 0.4-0.5 of its length (the straight-edge proposer asks 0.5,
    # and 0.7 on average), and no other proposer closes the card
    found, quad = _read_shrunk("deck01", card, height)
    assert [c for c, _ in found] == [card] and _on(found[0][1], quad)


@pytest.mark.parametrize("height", [245, 160])
def test_a_grey_card_whose_pip_groups_read_as_one_ace_twice_is_looked_at_again(height: int) -> None:
    # deck01's 7 of bastoni on grey stone, shrunk: the first look found no side of the card but
    # straight-edged boxes around its upper and lower staves, both read bastoni_1 (one surely);
    # a deck holding each card once has no two aces of bastoni, so the photo got the later looks,
    # whose looser straight sides close the card itself
    found, quad = _read_shrunk("deck01", "bastoni_7", height)
    assert [c for c, _ in found] == ["bastoni_7"] and _on(found[0][1], quad)


@pytest.mark.parametrize(("card", "height"), [("coppe_5", 100), ("spade_2", 80), ("spade_4", 100), ("coppe_1", 160)])
def test_a_grey_card_on_grey_stone_with_one_side_no_edge_at_all_is_closed_by_its_other_three_sides(card: str, height: int) -> None:
    # nothing was found, even by the looser last look: the stone beyond one side is as light as
    # the card all along it (that side an edge along 0.0-0.3 of it), or so nearly that the edge
    # across the strip between the two long sides crosses only a third of it
    found, quad = _read_shrunk("deck01", card, height)
    assert [c for c, _ in found] == [card] and _on(found[0][1], quad)


def _read_framed(deck: str, card: str, height: int) -> tuple[list[tuple[str, npt.NDArray[np.float32]]], npt.NDArray[np.float32]]:
    """The deck's photo of ``card`` shrunk until the card is ``height`` px tall in a 1280x720 frame
    of the photo's own surface, JPEG 60 (``real_decks.py --in-frame``'s frame), read by the still
    path; with the card's verified quad in the frame."""
    photo, image = _photo(deck, card)
    assert photo.quad is not None
    frame, quad = in_frame(image, photo.quad, height, f"{deck}/{photo.image.name}")
    return _read(frame), quad


@pytest.mark.parametrize(("card", "height", "framed"), [("spade_4", 80, False), ("spade_4", 100, True), ("coppe_6", 80, True),
                                                        ("coppe_7", 80, True), ("spade_3", 80, True)])
def test_a_grey_card_on_grey_stone_with_two_sides_no_edge_is_found_by_its_yellow_paper(card: str, height: int, framed: bool) -> None:
    # nothing was found, even by three straight sides: two of the card's sides are no edge against
    # the speckled stone (supports down to 0.06), or LSD finds only two lines; the paper is a
    # little yellow against the neutral stone all round
    found, quad = _read_framed("deck01", card, height) if framed else _read_shrunk("deck01", card, height)
    assert [c for c, _ in found] == [card] and _on(found[0][1], quad)


def test_a_grey_card_on_grey_stone_whose_tint_bleeds_past_two_faint_sides_is_closed_by_lines_bounding_the_tint() -> None:
    # nothing was found, even by the tinted regions: in a 100x134 px photo the JPEG's 16-px colour
    # blocks bleed the paper's tint past the card's two faint sides (edge supports 0.38 and 0.06);
    # the straight lines of its sides bound the tint along 0.83-1.0 of each
    found, quad = _read_shrunk("deck01", "coppe_7", 80)
    assert [c for c, _ in found] == ["coppe_7"] and _on(found[0][1], quad)


def test_a_white_card_on_white_lace_80_px_tall_in_a_frame_gets_its_far_side_from_a_short_piece() -> None:
    # nothing was found: at 80 px the lace is as white as the card along its top and right sides;
    # its bottom side was found only as a piece shorter than a card's short side, so no parallel
    # far side was looked for from it, and no quad had the card's top
    found, quad = _read_framed("deck04", "denari_9", 80)
    assert [c for c, _ in found] == ["denari_9"] and _on(found[0][1], quad)


def test_half_a_white_card_and_the_lace_beside_it_is_no_second_card() -> None:
    # as photographed, a rectangle grown from a corner of the card-and-lace blob lay over the
    # card's lower half (0.68 of it on the card) and the lace beside it and read spade_4 at 0.64
    # beside the card's own outline read spade_2 at 0.97
    photo, image = _photo("deck04", "spade_2")
    assert photo.quad is not None
    found = _read(image)
    assert [c for c, _ in found] == ["spade_2"] and _on(found[0][1], photo.quad)


def test_a_card_on_grid_paper_is_not_the_part_of_a_turned_box_around_it_at_a_guessed_size() -> None:
    # deck08 (a check deck) in a frame at 160 px read denari_3 at 0.84: a 'corner' box at a guessed
    # size, turned over the card and the grid paper, took the card's straight sides (0.96) as its part
    found, quad = _read_framed("deck08", "denari_2", 160)
    assert [c for c, _ in found] == ["denari_2"] and _on(found[0][1], quad)


@pytest.mark.parametrize("height", [245, 160])
def test_a_card_no_look_reads_surely_is_read_through_its_best_outline(height: int) -> None:
    # deck06 (a check deck) in a frame read bastoni_5 at 0.64: the first look's box runs from the
    # card's left side to its right column of staves; the whole card, found at twice the work
    # width, reads bastoni_7 at 0.72, unsure too, and was dropped with that look
    found, quad = _read_framed("deck06", "bastoni_7", height)
    assert [c for c, _ in found] == ["bastoni_7"] and _on(found[0][1], quad)


def test_a_card_shrunk_to_fill_a_small_photo_is_read_through_its_own_outline_not_a_box_past_the_border() -> None:
    # deck05 (a check deck until then) at 80 px: a box built from the card's upper part ran 16 px
    # past the photo's top and read coppe_7 surer (0.972) than the card's own outline (0.957); the
    # card's lower half, left outside that box, read denari_4 (0.56)
    found, quad = _read_shrunk("deck05", "coppe_7", 80)
    assert [c for c, _ in found] == ["coppe_7"] and _on(found[0][1], quad)
