"""The camera's suggestion for the deal-card menu: the most confident card in the stock zone."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from referee.box.stock import stock_card, stock_reader
from referee.vision.detections import Detections


class Zones:
    """Left half of the image is the stock, the rest the play area."""

    def zone_of(self, point: tuple[float, float]) -> str:
        return "stock" if point[0] < 100 else "play"


def quad(x: float, y: float) -> list[list[float]]:
    return [[x - 10, y - 15], [x + 10, y - 15], [x + 10, y + 15], [x - 10, y + 15]]


def vision(cards: list[tuple[float, str, float]]) -> Any:
    dets = Detections(
        quad=np.array([quad(x, 50) for x, _, _ in cards], np.float32).reshape(len(cards), 4, 2),
        card=np.array([c for _, c, _ in cards], dtype=object),
        confidence=np.array([p for _, _, p in cards], np.float32),
    )
    return SimpleNamespace(last=dets, pipeline=SimpleNamespace(layout=Zones()))


def test_the_most_confident_card_in_the_stock_zone() -> None:
    seen = vision([(50, "coppe_3", 0.7), (60, "spade_1", 0.9), (300, "denari_1", 0.99)])
    assert stock_card(seen) == "spade_1"  # denari_1 lies in the play area


def test_weak_reads_backs_and_empty_frames_are_no_suggestion() -> None:
    assert stock_card(vision([(50, "coppe_3", 0.4), (60, "back", 0.95)])) is None
    assert stock_card(vision([])) is None
    assert stock_card(SimpleNamespace()) is None


def test_reader_prefers_the_feeds_own_method_then_its_vision_stage() -> None:
    own = SimpleNamespace(stock_card=lambda: "bastoni_2", vision=vision([(50, "coppe_3", 0.9)]))
    reader = stock_reader(own)
    assert reader is not None and reader() == "bastoni_2"
    reader = stock_reader(SimpleNamespace(vision=vision([(50, "coppe_3", 0.9)])))
    assert reader is not None and reader() == "coppe_3"
    assert stock_reader(SimpleNamespace()) is None
