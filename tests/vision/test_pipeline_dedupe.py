"""One card per physical card: the pipeline keeps the best read where hypotheses overlap."""

from __future__ import annotations

import numpy as np

from referee.vision.detections import Detections
from referee.vision.pipeline import Read, identify


class _Scripted:
    """A recogniser that answers the given reads in order."""

    input_size = (48, 80)

    def __init__(self, reads: list[tuple[str, float]]) -> None:
        self.reads = reads

    def classify(self, crops: object) -> list[Read]:
        return [Read(c, p, [(c, p)]) for c, p in self.reads]


def _box(x: float, y: float, w: float = 60, h: float = 100) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def _dets(*quads: np.ndarray) -> Detections:
    crops = [np.zeros((80, 48, 3), np.uint8) for _ in quads]
    return Detections(quad=np.stack(quads), crops=crops, group=np.arange(len(quads), dtype=np.int32))


def test_a_rectangle_inside_a_read_card_is_not_a_second_card() -> None:
    # a court card's printed frame proposed as a card, read as something else
    out = identify(_dets(_box(100, 100), _box(108, 110, 44, 70)), _Scripted([("JD", 0.93), ("QD", 0.4)]))
    assert list(out.card) == ["JD"]


def test_trick_cards_overlapping_by_forty_percent_are_both_kept() -> None:
    out = identify(_dets(_box(100, 100), _box(124, 100)), _Scripted([("JD", 0.93), ("QD", 0.6)]))
    assert sorted(out.card.tolist()) == ["JD", "QD"]


def test_cards_cut_from_a_large_cards_pips_are_not_cards() -> None:
    # a close camera: the 4 of denari fills the photo, and a card-shaped box around each pip
    # reads as a confident 2 of denari, more confident than the whole card's read
    card = _box(0, 0, 300, 500)
    pips = [_box(x, y, 90, 150) for x, y in ((30, 40), (180, 40), (30, 310), (180, 310))]
    reads = [("denari_4", 0.62)] + [("denari_2", 0.97)] * 4
    out = identify(_dets(card, *pips), _Scripted(reads))
    assert list(out.card) == ["denari_4"]


def test_a_card_beside_a_large_card_is_kept() -> None:
    # two cards of one deck, side by side, one proposed a little large: neither inside the other
    out = identify(_dets(_box(0, 0, 80, 130), _box(100, 0, 60, 100)), _Scripted([("JD", 0.6), ("QD", 0.95)]))
    assert sorted(out.card.tolist()) == ["JD", "QD"]


def test_a_card_half_inside_a_larger_quad_is_kept() -> None:
    # a trick card under the next: less than ``same_card`` of it lies inside the larger quad
    out = identify(_dets(_box(0, 0, 120, 200), _box(80, 100, 60, 100)), _Scripted([("JD", 0.6), ("QD", 0.95)]))
    assert sorted(out.card.tolist()) == ["JD", "QD"]


def test_a_straight_sided_card_inside_a_hull_around_it_and_the_table_is_kept_for_the_photo_reading() -> None:
    # deck04's denari_2 on lace, 80 px in a camera frame: the card's four straight sides read
    # denari_2 at 0.98; a 'thin' hull around the card and the lace, 2.2 times its area, read
    # denari_3 at 0.80 and the card, inside it at under half its area, was dropped as its pip
    card, hull = _box(110, 130, 52, 80), _box(95, 100, 78, 125)
    reads = [("denari_2", 0.98), ("denari_3", 0.8)]
    kinds = {card.tobytes(): "line", hull.tobytes(): "thin"}
    out = identify(_dets(card, hull), _Scripted(reads), kind_of=lambda q: kinds.get(q.tobytes(), ""))
    assert "denari_2" in out.card.tolist()
    # the live loop proposes no straight-sided quads: there the box inside is a pip, as before
    assert out.card.tolist() != identify(_dets(card, hull), _Scripted(reads)).card.tolist() == ["denari_3"]
    # inside a card's own outline, a straight-sided box is a pip box, however surely it reads
    kinds[hull.tobytes()] = "single"
    assert identify(_dets(card, hull), _Scripted(reads), kind_of=lambda q: kinds.get(q.tobytes(), "")).card.tolist() == ["denari_3"]
