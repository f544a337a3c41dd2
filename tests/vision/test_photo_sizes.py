"""A photo read at several card sizes is one reading: a card's pip boxes read surely at a small
size never stand beside (or instead of) the whole card read at a larger one, and a cream card
on a white table, shrunk to the box camera's size, is still found (self-made photos, no
../shared needed)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition.real_crops import seen_at
from referee.vision.detections import Detections
from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder_scenes import PlacedCard, paste_card
from referee.vision.one_reading import at_most_copies, one_reading, surest_at_each_place
from referee.vision.pipeline import FramePipeline, Read

Image = npt.NDArray[np.uint8]


def _box(x: float, y: float, w: float, h: float) -> npt.NDArray[np.float32]:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _pass(*reads: tuple[npt.NDArray[np.float32], str, float, bool]) -> tuple[Detections, npt.NDArray[np.bool_]]:
    """One pass's detections: (quad, card, confidence, is the card's own outline)."""
    dets = Detections(quad=np.stack([q for q, *_ in reads]), group=np.arange(len(reads), dtype=np.int32),
                      card=np.array([c for _, c, _, _ in reads]), confidence=np.array([p for _, _, p, _ in reads]),
                      top=[[(c, p)] for _, c, p, _ in reads])
    return dets, np.array([o for *_, o in reads], bool)


def test_pip_boxes_read_surely_at_a_small_size_give_way_to_the_whole_card() -> None:
    # the real Napoletane photos shrunk to 80-245 px: at a card size a third of the real one the
    # rectangles built around a 5 of denari's pips read as denari_2 at 0.9-0.98, and the pass
    # with the most sure confidence (four pip boxes) won over the pass that read the whole card
    pips = _pass((_box(10, 10, 60, 100), "denari_2", 0.98, False), (_box(90, 10, 60, 100), "denari_2", 0.96, False),
                 (_box(10, 150, 60, 100), "denari_3", 0.9, False), (_box(90, 160, 60, 100), "denari_2", 0.97, False))
    whole = _pass((_box(0, 0, 170, 280), "denari_5", 0.93, False))
    for passes in ([pips, whole], [whole, pips]):
        found = one_reading(passes, 0.8)
        assert found.card.tolist() == ["denari_5"]


def test_a_card_found_by_its_own_outline_is_not_swallowed_by_a_larger_box_around_it() -> None:
    # a close card on a light table: a rectangle at a larger assumed size straddles the card and
    # the table and can read surely too; the card's own outline says which is the card
    card = _pass((_box(100, 100, 170, 280), "coppe_5", 0.95, True))
    around = _pass((_box(0, 0, 300, 500), "coppe_5", 0.95, False))
    found = one_reading([card, around], 0.8)
    assert len(found) == 1 and found.quad[0, 0, 0] == 100


def test_cards_side_by_side_at_one_size_are_all_kept() -> None:
    trick = _pass((_box(0, 0, 60, 100), "coppe_5", 0.95, False), (_box(70, 0, 60, 100), "spade_1", 0.9, False))
    assert sorted(one_reading([trick], 0.8).card.tolist()) == ["coppe_5", "spade_1"]


class _SureOfPrint:
    """Sure of crops with printing (a card face), unsure of blank ones."""

    input_size = (64, 112)

    def classify(self, crops: Sequence[Image]) -> list[Read]:
        return [Read("coppe_5", 0.95 if float(c.std()) > 30 else 0.5, [("coppe_5", 0.95)]) for c in crops]


def test_a_cream_card_on_a_white_table_shrunk_small_is_found() -> None:
    # a yellowed deck on a white table, the photo shrunk so the card is 100 px tall and JPEG 60:
    # the card is less "white" (bright and unsaturated) than the table, so no whiteness blob is
    # the card, and its outline breaks open in the tiny image; found as a darker region
    rng = np.random.default_rng(6)
    image = np.empty((1280, 960, 3), np.uint8)
    image[:] = (226, 222, 218)
    image = np.asarray(cv2.add(image, rng.integers(0, 6, image.shape, dtype=np.uint8)), np.uint8)
    quad = paste_card(image, PlacedCard((480, 620), 3, 900, aspect=1.7), rng)
    inside = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, quad.astype(np.int32), 255)
    cream = np.clip(image.astype(np.float32) * np.array([0.78, 0.93, 1.0], np.float32), 0, 255).astype(np.uint8)
    image[inside > 0] = cream[inside > 0]
    small = seen_at(image, 142, 60)
    card = quad * np.float32(small.shape[0] / image.shape[0])
    pipeline = FramePipeline(CardFinder(FinderConfig(split_when_still=True, crop_size=(64, 112))), _SureOfPrint())
    found = pipeline.process_still(small)
    assert len(found) == 1
    centre = found.quad[0].mean(axis=0)
    assert cv2.pointPolygonTest(card.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0


def test_two_cards_read_surely_inside_a_less_sure_box_around_both_stay_two_cards() -> None:
    # the real pinochle photos: a rectangle at a guessed size spanning two overlapping cards read
    # as a queen at 0.84 while each card read at 1.0 at its own size; the box is not the card
    cards = _pass((_box(0, 0, 60, 100), "JD", 1.0, False), (_box(45, 0, 60, 100), "10S", 1.0, False))
    around = _pass((_box(-5, -5, 115, 180), "QS", 0.84, False))
    assert sorted(one_reading([cards, around], 0.8, 1).card.tolist()) == ["10S", "JD"]


def test_a_card_read_twice_its_outline_and_a_box_half_on_the_table_beside_it_is_one_card() -> None:
    # the real Napoletane photos in a camera frame: a card's own outline read bastoni_4 at 0.99
    # and, in the same pass, a card-sized box from its lower half onto the table read bastoni_4
    # at 0.96; their centres lie over half a card width apart, so both stood as cards
    found = one_reading([_pass((_box(0, 0, 60, 100), "bastoni_4", 0.99, True),
                                (_box(0, 45, 60, 100), "bastoni_4", 0.96, False))], 0.8)
    assert found.card.tolist() == ["bastoni_4"] and found.quad[0, 0, 1] == 0


def test_a_box_half_on_a_sure_card_read_as_fewer_of_its_pips_is_that_card() -> None:
    # deck07's coppe_7 as photographed: a box over its lower half and the table read coppe_5
    cards = _pass((_box(0, 0, 60, 100), "coppe_7", 0.95, True), (_box(0, 50, 60, 100), "coppe_5", 0.6, False))
    assert one_reading([cards], 0.8).card.tolist() == ["coppe_7"]


def test_a_trick_card_covered_by_a_third_under_a_card_of_its_suit_stays_a_card() -> None:
    trick = _pass((_box(0, 0, 60, 100), "coppe_7", 0.95, False), (_box(0, 67, 60, 100), "coppe_5", 0.9, False))
    assert sorted(one_reading([trick], 0.8).card.tolist()) == ["coppe_5", "coppe_7"]



def test_an_unsure_box_mostly_on_a_sure_card_outline_and_the_table_beside_it_is_no_card() -> None:
    # deck04's spade_2 on lace as photographed: a rectangle grown from a corner of the card and
    # the lace lay 0.68 on the card (as large as the card: no "part" of it) and read spade_4 at 0.64
    cards = _pass((_box(0, 0, 60, 100), "spade_2", 0.97, True), (_box(0, 35, 60, 100), "spade_4", 0.64, False))
    assert one_reading([cards], 0.8).card.tolist() == ["spade_2"]
    # read surely, or found by its own outline, it is a card lying on that card
    for sure, own in ((0.9, False), (0.64, True)):
        cards = _pass((_box(0, 0, 60, 100), "spade_2", 0.97, True), (_box(0, 35, 60, 100), "spade_4", sure, own))
        assert sorted(one_reading([cards], 0.8).card.tolist()) == ["spade_2", "spade_4"]


def test_an_unsure_trick_card_covered_by_up_to_forty_percent_by_a_sure_card_stays_a_card() -> None:
    trick = _pass((_box(0, 0, 60, 100), "coppe_7", 0.95, True), (_box(0, 60, 60, 100), "spade_3", 0.6, False))
    assert sorted(one_reading([trick], 0.8).card.tolist()) == ["coppe_7", "spade_3"]

def test_half_card_boxes_read_surely_inside_a_card_found_whole_at_another_size_are_its_pips() -> None:
    # deck07's coppe_4 shrunk to 245 px: at a guessed size two boxes over its halves read
    # denari_2 at 0.98 and coppe_3 at 0.77 (0.55 of the card each) and stood in for the card,
    # which its own outline read as coppe_4 at 0.97 at a larger size
    halves = _pass((_box(0, 0, 60, 55), "denari_2", 0.98, False), (_box(0, 45, 60, 55), "coppe_3", 0.77, False))
    whole = _pass((_box(0, 0, 60, 100), "coppe_4", 0.97, True))
    assert one_reading([halves, whole], 0.8).card.tolist() == ["coppe_4"]


def test_smaller_boxes_half_on_a_sure_card_are_parts_of_it_whatever_they_read() -> None:
    # deck04 (a lace cloth) shrunk to 100 px, both sizes measured on the photo: beside the 6 of
    # bastoni read at 0.99, boxes 0.4 of its size over its clubs and the lace read bastoni_2 at
    # 0.99 and coppe_2 at 0.68
    card = _pass((_box(0, 0, 60, 100), "bastoni_6", 0.988, False))
    parts = _pass((_box(-15, 30, 40, 65), "bastoni_2", 0.989, False), (_box(35, 50, 40, 65), "coppe_2", 0.68, False))
    assert one_reading([card, parts], 0.8, 2).card.tolist() == ["bastoni_6"]


def test_a_sure_card_inside_a_box_around_it_and_the_table_is_no_pip_box_of_that_box() -> None:
    # deck04 (lace) in a camera frame, 245 px: a box two cards tall around the 6 of coppe and
    # the lace read coppe_7 at 0.49, so the card itself (coppe_6 at 0.98, the box's "pips")
    # was dropped, though that box was itself dropped as a card with the table around it
    card = _pass((_box(0, 0, 60, 100), "coppe_6", 0.98, False))
    half = _pass((_box(0, 40, 60, 100), "denari_6", 0.86, False), (_box(5, 5, 25, 40), "denari_2", 0.97, False))
    around = _pass((_box(-20, -30, 100, 160), "coppe_7", 0.49, False))
    assert "coppe_6" in one_reading([card, half, around], 0.8, 3).card.tolist()


def test_a_part_of_a_card_is_judged_by_every_sure_read_of_that_card() -> None:
    # deck04 (lace) shrunk to 100 px: a box half the card's size over its corner read denari_1
    # at 0.79; only 0.3 of it lay on the card's surest read, 0.4 on its second read, which sat
    # on the card better
    reads = _pass((_box(0, 0, 60, 100), "spade_3", 0.98, False), (_box(-10, 0, 60, 100), "spade_3", 0.96, False),
                  (_box(-25, 50, 40, 70), "denari_1", 0.79, False))
    assert one_reading([reads], 0.8).card.tolist() == ["spade_3"]


def test_two_copies_of_a_card_in_one_trick_are_two_cards_when_the_deck_holds_two() -> None:
    # binocolo's deck holds two of each card: the second ace of spades laid over a third of the first
    trick = _pass((_box(0, 0, 60, 100), "AS", 0.95, True), (_box(0, 67, 60, 100), "AS", 0.9, True))
    assert len(one_reading([trick], 0.8, copies=2)) == 2
    # with one of each card in the deck, the same card on itself is one card read twice
    assert len(one_reading([trick], 0.8)) == 1


def test_a_card_read_twice_half_on_itself_is_one_card_even_when_the_deck_holds_two() -> None:
    # over 40% of one on the other is more than a trick's covered card shows (issue 22's contract)
    reads = _pass((_box(0, 0, 60, 100), "AS", 0.99, True), (_box(0, 45, 60, 100), "AS", 0.96, False))
    assert len(one_reading([reads], 0.8, copies=2)) == 1


def test_a_box_from_a_card_side_to_a_printed_edge_inside_it_gives_way_to_the_card_own_outline() -> None:
    # a 7 of spade on a white table in a camera frame: straight edges closed a narrow box from
    # the card's left side to its column of swords, read spade_5 at 0.92 on the first look; the
    # card's own outline, found at a guessed size, read spade_7 at 0.88 and was dropped as the
    # same card less surely read
    narrow = _pass((_box(82, 105, 104, 226), "spade_5", 0.92, False))
    card = _pass((_box(100, 100, 131, 231), "spade_7", 0.88, True))
    found = one_reading([narrow, card], 0.8, 1)
    assert found.card.tolist() == ["spade_7"]
    # read surer by over the margin, the box is the card: the outline is then the table's
    surer = _pass((_box(82, 105, 104, 226), "spade_5", 0.99, False))
    assert one_reading([surer, _pass((_box(100, 100, 131, 231), "spade_7", 0.85, True))], 0.8, 1).card.tolist() == ["spade_5"]


def test_half_card_boxes_at_a_guessed_size_read_surer_than_the_card_found_at_the_photo_size_are_its_parts() -> None:
    # deck07's spade_1 (a worn card on red cloth) shrunk to 80 px: the card read spade_1 at 0.84
    # at the size its blob gave; at a guessed size boxes over its lower and upper halves read
    # denari_1 at 0.95 and 0.83, the first surer by over the margin, so the card was taken for
    # "a card with its table around it" and both halves stood as cards
    card = _pass((_box(10, 9, 50, 80), "spade_1", 0.844, False))
    halves = _pass((_box(4, 54, 56, 35), "denari_1", 0.95, False), (_box(10, 8, 50, 31), "denari_1", 0.83, False))
    assert one_reading([card, halves], 0.8, 1).card.tolist() == ["spade_1"]
    # all at sizes measured on the photo, the surer box still stands (a card and its table)
    assert "denari_1" in one_reading([card, halves], 0.8, 2).card.tolist()


def test_a_box_a_third_of_the_card_at_a_guessed_size_off_the_card_is_no_card() -> None:
    # deck04's denari_10 on lace shrunk to 100 px: at a guessed size a box a third of the card's
    # area, a third of it on the card and the rest on the lace and past the photo's border, read
    # denari_1 at 0.94; the card size was the median of it and the card, so it was not too small
    card = _pass((_box(18, 6, 60, 100), "denari_10", 0.99, False))
    beside = _pass((_box(-11, 55, 33, 66), "denari_1", 0.94, False))
    assert one_reading([card, beside], 0.8, 1).card.tolist() == ["denari_10"]


def test_a_box_around_a_card_and_its_table_read_surer_than_the_card_outline_is_that_card_read_twice() -> None:
    # deck02's coppe_8 at 100 px in a camera frame: a box around the card and the table read
    # coppe_8 at 0.98, the card's own outline at 0.96; the outline, at 0.54 of the box, counted
    # as a part of it that says nothing of it, and the card was reported twice
    around = _pass((_box(752, 112, 80, 123), "coppe_8", 0.978, False))
    card = _pass((_box(775, 135, 54, 98), "coppe_8", 0.961, True))
    found = one_reading([around, card], 0.8, 2)
    assert found.card.tolist() == ["coppe_8"] and found.quad[0, 0, 0] == 775


def test_a_card_kept_at_a_guessed_size_and_read_at_its_place_at_the_photo_size_gives_the_card_size() -> None:
    # a real pinochle photo: the queen read 0.999 at the photo's size and again, a hair surer, at
    # a guessed size; with only the measured reads giving the card size, that size was the mean
    # of the queen and a box a third of it on a printed tablecloth read AS, which then stood
    queen = _pass((_box(80, 110, 158, 221), "QS", 0.9989, False), (_box(60, 455, 56, 90), "AS", 0.958, False))
    again = _pass((_box(81, 110, 156, 222), "QS", 0.9991, False), (_box(190, 113, 156, 220), "KC", 0.996, False))
    assert sorted(one_reading([queen, again], 0.8, 1).card.tolist()) == ["KC", "QS"]


def test_a_box_around_a_card_and_its_table_read_as_that_card_less_surely_is_that_card_read_twice() -> None:
    # deck01's spade_3 at 160 px in a camera frame: the card's quad (from its outline, built at
    # the card size) read spade_3 at 0.95, a box around it and the stone at a guessed size read
    # spade_3 at 0.81; the card, at 0.6 of that box, counted as a part of it that says nothing
    # of it, and the card was reported twice
    card = _pass((_box(100, 100, 60, 100), "spade_3", 0.95, False))
    around = _pass((_box(88, 90, 80, 125), "spade_3", 0.81, False))
    found = one_reading([card, around], 0.8, 1)
    assert found.card.tolist() == ["spade_3"] and found.quad[0, 0, 0] == 100


def test_a_half_card_box_read_as_an_ace_inside_a_sure_card_still_leaves_the_card() -> None:
    # the part rule the same-card case leaves alone: a box over half a card read surer as
    # another card says nothing of the whole card
    card = _pass((_box(100, 100, 60, 100), "denari_5", 0.9, False))
    half = _pass((_box(100, 100, 60, 52), "denari_1", 0.99, False))
    found = one_reading([card, half], 0.8, 1)
    assert found.card.tolist() == ["denari_5"]


def test_a_card_read_a_little_surer_than_a_box_around_it_and_its_table_is_kept_as_that_card() -> None:
    # deck01's coppe_3 at 245 px: the card's quad read coppe_3 a little surer than a box around
    # it and the stone (1.8 times its area) read coppe_3 at 0.88; the box is the card read
    # twice, and the card is no part of it to drop: one coppe_3, on the card's own quad
    card = _pass((_box(100, 100, 60, 100), "coppe_3", 0.93, False))
    around = _pass((_box(85, 80, 90, 120), "coppe_3", 0.88, False))
    found = one_reading([card, around], 0.8, 1)
    assert found.card.tolist() == ["coppe_3"] and found.quad[0, 0, 0] == 100


def test_a_sure_card_of_four_straight_sides_inside_a_hull_around_it_and_the_lace_is_the_card() -> None:
    # deck04's denari_3 on lace in a camera frame, 245 px: the card's four straight sides read
    # denari_3 at 0.96; at a guessed size a box around the card and the lace, 2.2 times its area,
    # read denari_7 at 0.93, and the card was dropped as "some of that box's pips"
    card = _pass((_box(100, 100, 60, 100), "denari_3", 0.96, False))
    hull = _pass((_box(95, 45, 100, 155), "denari_7", 0.93, False))
    assert one_reading([card, hull], 0.8, 1, straight=[np.array([True]), np.array([False])]).card.tolist() == ["denari_3"]
    # proposed by no straight sides, the card inside is still that box's pips, as before
    assert one_reading([card, hull], 0.8, 1).card.tolist() == ["denari_7"]


def test_a_sure_card_of_four_straight_sides_snug_in_a_turned_box_at_a_guessed_size_is_the_card() -> None:
    # deck08's denari_2 in a 1280x720 frame at 160 px (a deck no run trained on): its four
    # straight sides read 0.96, its blob outline at the measured size 0.98, and a 'corner' box at
    # a guessed size, turned and shifted over the card and the grid paper (1.6 times the card's
    # area, 97% of the card inside it), read denari_3 at 0.84: it took the card as its part
    # (at most 0.65 of its area) and the photo came back as denari_3
    sides = np.array([[551, 408], [644, 413], [635, 570], [542, 565]], np.float32)
    blob = np.array([[509, 407], [605, 410], [626, 568], [531, 565]], np.float32)
    turned = np.array([[516, 368], [624, 350], [660, 559], [552, 577]], np.float32)
    passes = [_pass((sides, "denari_2", 0.96, False)), _pass((blob, "denari_2", 0.98, False)),
              _pass((turned, "denari_3", 0.84, False))]
    straight = [np.array([True]), np.array([False]), np.array([False])]
    assert one_reading(passes, 0.8, 2, straight=straight).card.tolist() == ["denari_2"]
    # proposed by no straight sides, the turned box is still the card and the blob its part,
    # as before (nothing but the straight sides tells the card from a part of it)
    assert one_reading(passes, 0.8, 2).card.tolist() == ["denari_3"]


def test_where_no_look_reads_surely_each_card_is_read_through_the_outline_it_reads_best() -> None:
    # deck06's bastoni_7 in a camera frame: the first look's box from the card's left side to its
    # right column of staves read bastoni_5 at 0.64; a later look's whole card bastoni_7 at 0.72
    narrow = _pass((np.array([[102, 440], [166, 448], [153, 604], [82, 594]], np.float32), "bastoni_5", 0.64, False))[0]
    whole = _pass((np.array([[107, 440], [193, 455], [167, 607], [83, 590]], np.float32), "bastoni_7", 0.72, False))[0]
    elsewhere = _pass((_box(400, 400, 90, 150), "AS", 0.7, False))[0]
    assert surest_at_each_place(narrow, [Detections.empty(), whole, elsewhere]).card.tolist() == ["bastoni_7"]
    # a later look's read elsewhere is no card of its own (the later looks are looser), nor is
    # any where the first look found nothing
    assert surest_at_each_place(Detections.empty(), [whole, elsewhere]).card.tolist() == []
    # the first look's read stays where no later one at its place reads it better (on a tie too)
    tie = _pass((whole.quad[0], "bastoni_4", 0.64, False))[0]
    assert surest_at_each_place(narrow, [tie, elsewhere]).card.tolist() == ["bastoni_5"]
    # each card of the first look on its own: two cards, one read better by a later look
    two = narrow.joined(elsewhere)
    assert surest_at_each_place(two, [whole]).card.tolist() == ["bastoni_7", "AS"]
    # a later read of one card is no read of the card beside it, even within half a card of it
    # (a real pinochle photo: a second read of an ace took the place of the queen beside it)
    queen = _pass((_box(0, 0, 90, 150), "QH", 0.56, False))[0]
    ace = _pass((_box(40, 10, 90, 150), "AS", 0.60, False))[0]
    assert surest_at_each_place(queen.joined(ace), [ace]).card.tolist() == ["QH", "AS"]


def test_a_straight_sided_box_around_a_group_of_pips_inside_a_straight_sided_card_is_its_pips() -> None:
    # a printed frame or a column of staves closes a straight-edged box inside the card that
    # reads an ace surely: the card's own straight sides are the card, not its table
    card = _pass((_box(0, 0, 60, 100), "bastoni_7", 0.95, False))
    group = _pass((_box(15, 10, 30, 30), "bastoni_1", 0.89, False))
    straight = [np.array([True]), np.array([True])]
    assert one_reading([card, group], 0.8, 1, straight=straight).card.tolist() == ["bastoni_7"]


def test_a_look_that_reads_one_card_surely_at_two_places_has_read_nothing_surely() -> None:
    # a deck holding each card once has no card at two places: one of them at least is a box
    # around a group of some other card's pips (which reads surely as an ace as often as not)
    pipeline = FramePipeline(CardFinder(FinderConfig()), _SureOfPrint())
    twice = _pass((_box(0, 0, 30, 50), "bastoni_1", 0.87, False), (_box(0, 60, 30, 50), "bastoni_1", 0.58, False))[0]
    assert not pipeline._read_surely(twice, 0.8)
    assert pipeline._read_surely(twice[np.array([0])], 0.8)
    # where the deck holds two of each card (binocolo, pinochle), two are two cards
    pipeline.copies = 2
    assert pipeline._read_surely(twice, 0.8)


def test_an_envelope_beside_a_card_read_surely_as_an_ace_is_no_card() -> None:
    # a real pinochle photo: beside the jack of hearts found by its own outline (0.999), a box
    # around a white envelope over three times the card's area read AS at 0.985
    jack = _pass((_box(60, 186, 90, 130), "JH", 0.999, True))
    envelope = _pass((_box(205, 133, 136, 266), "AS", 0.985, False))
    assert one_reading([envelope, jack], 0.8, 1).card.tolist() == ["JH"]


def test_a_card_nearer_the_camera_twice_the_area_of_a_card_outline_stays_a_card() -> None:
    # an oblique photo: the card nearer the camera covers about twice the area of one farther off
    far = _pass((_box(0, 0, 60, 100), "JS", 0.98, True))
    near = _pass((_box(100, 0, 85, 140), "QD", 0.99, False))
    assert sorted(one_reading([far, near], 0.8, 1).card.tolist()) == ["JS", "QD"]


def test_a_photo_never_shows_a_card_more_times_than_the_deck_holds_it() -> None:
    # a real Triestine photo (a pattern no model trained on): two boxes far apart read coppe_1 at
    # 0.82 and 0.84, both wrong; a deck of one of each card has it at one place at most
    reads = _pass((_box(0, 0, 60, 100), "coppe_1", 0.82, False), (_box(300, 0, 60, 100), "spade_5", 0.82, False),
                  (_box(150, 200, 60, 100), "coppe_1", 0.84, False), (_box(400, 300, 60, 100), "bastoni_6", 0.42, False))[0]
    once = at_most_copies(reads, 1)
    assert once.card.tolist() == ["spade_5", "coppe_1", "bastoni_6"]
    assert np.allclose(once.confidence, [0.82, 0.84, 0.42])  # the surest coppe_1, in the order found
    assert at_most_copies(reads, 2).card.tolist() == reads.card.tolist()  # binocolo's two of each
    # and the still path applies it to whatever look it returns, and reports no read under 0.5
    # (on the real photos 9 of 10 reads between 0.4 and 0.5 were wrong)
    pipeline = FramePipeline(CardFinder(FinderConfig()), _SureOfPrint())
    pipeline._still_looks = lambda image, sure: reads  # type: ignore[method-assign]
    assert pipeline.process_still(np.zeros((10, 10, 3), np.uint8)).card.tolist() == ["spade_5", "coppe_1"]
    pipeline.still_keep_confidence = 0.4
    assert pipeline.process_still(np.zeros((10, 10, 3), np.uint8)).card.tolist() == ["spade_5", "coppe_1", "bastoni_6"]
