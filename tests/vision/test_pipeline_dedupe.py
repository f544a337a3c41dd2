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
