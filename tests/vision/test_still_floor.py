"""A model's per-card floor for single photos (``"still_floor"`` in its JSON): a photo's read of
that card less sure than the floor is no card; other cards, and the live loop, are untouched; a
bad floor is refused at load naming the file and key."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from referee.errors import ModelError
from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.vision.finder_scenes import PlacedCard, StandInClassifier, make_scene
from referee.vision.pipeline import FramePipeline


class FlooredClassifier(StandInClassifier):
    """The stand-in (its cards read at 0.97) with a model's floors."""

    def __init__(self, floor: dict[str, float]) -> None:
        super().__init__("coppe_3")
        self.still_floor = floor


def _photo() -> np.ndarray:
    cards = [PlacedCard((300, 300), 10, 150), PlacedCard((900, 400), 70, 150)]
    image, _ = make_scene(cards, np.random.default_rng(11), "felt")
    return image


def _still(floor: dict[str, float]) -> list[str]:
    pipe = FramePipeline.create(FlooredClassifier(floor))
    pipe.copies = 2
    return sorted(pipe.process_still(_photo()).card.tolist())


def test_a_photos_read_below_its_cards_floor_is_no_card() -> None:
    assert _still({}) == ["coppe_3", "coppe_3"]
    assert _still({"coppe_3": 0.98}) == []  # read at 0.97


def test_a_floor_on_another_card_or_below_the_read_changes_nothing() -> None:
    assert _still({"spade_1": 0.999}) == ["coppe_3", "coppe_3"]
    assert _still({"coppe_3": 0.96}) == ["coppe_3", "coppe_3"]


def test_the_live_loop_is_not_judged_by_the_floor() -> None:
    pipe = FramePipeline.create(FlooredClassifier({"coppe_3": 0.98}))
    assert sorted(pipe.process(_photo()).card.tolist()) == ["coppe_3", "coppe_3"]


# --- the committed French model, and a copy of it to damage ----------------------------------------

needs_models = pytest.mark.skipif(not (models_dir() / "french.onnx").exists(), reason="no committed french model")


@pytest.fixture
def model(copy_models: Callable[..., Path]) -> Path:
    return copy_models("french")


def _set_floor(folder: Path, floor: object) -> None:
    path = folder / "french.json"
    data = json.loads(path.read_text())
    data["still_floor"] = floor
    path.write_text(json.dumps(data))


def test_a_floor_in_the_json_reaches_the_classifier_and_not_an_enrolled_one(model: Path) -> None:
    _set_floor(model, {"AS": 0.995})
    clf = CardClassifier.load("french", model, threads=1)
    assert clf.still_floor == {"AS": 0.995}
    clf.enrollment = object()  # type: ignore[assignment]  # an enrolled deck reads by its prototypes
    assert clf.still_floor == {}


@pytest.mark.parametrize(("floor", "message"), [
    ({"XS": 0.9}, r"french\.json: still_floor\.XS: expected a card of the french recogniser"),
    ({"back": 0.9}, r"french\.json: still_floor\.back: expected a card of the french recogniser"),
    ({"AS": 1.5}, r"french\.json: still_floor\.AS: expected a probability between 0 and 1"),
    ({"AS": "high"}, r"french\.json: still_floor\.AS: expected a probability between 0 and 1"),
    ([0.9], r"french\.json: still_floor: expected an object of card -> probability"),
])
def test_a_bad_floor_is_refused_naming_the_file_and_key(model: Path, floor: object, message: str) -> None:
    _set_floor(model, floor)
    with pytest.raises(ModelError, match=message):
        CardClassifier.load("french", model)
