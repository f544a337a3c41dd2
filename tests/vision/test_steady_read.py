"""A still photo's read must hold when its box moves (``referee.vision.steady_read``): the moved
boxes' geometry, the count that keeps or drops a read, and the real pinochle photos whose false
cards were windows over part of a card (``docs/lab/2026-12-07-steady-reads.md``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from referee.errors import ModelError
from referee.paths import models_dir, shared_dir
from referee.recognition.steady_rule import SteadyRule
from referee.vision.detections import Detections
from referee.vision.pipeline import Read
from referee.vision.steady_read import moved_quads, steady_reads

RULE = SteadyRule(shift=0.15, max_agree_drop=1)

QUAD = np.array([[100, 50], [160, 50], [160, 150], [100, 150]], np.float32)  # 60 wide, 100 tall


def test_moved_boxes_shift_each_side_both_ways_then_scale_about_the_centre() -> None:
    moved = moved_quads(QUAD, 0.15)
    assert len(moved) == 6
    centres = np.array([m.mean(axis=0) for m in moved])
    np.testing.assert_allclose(centres, [[139, 100], [121, 100], [130, 115], [130, 85], [130, 100], [130, 100]], atol=1e-4)
    widths = [float(m[1, 0] - m[0, 0]) for m in moved]
    heights = [float(m[3, 1] - m[0, 1]) for m in moved]
    assert widths == pytest.approx([60, 60, 60, 60, 51, 69]) and heights == pytest.approx([100, 100, 100, 100, 85, 115])


class _Scripted:
    """Reads the moved boxes as scripted, in order, and counts its calls."""

    def __init__(self, reads: Sequence[str]) -> None:
        self.reads, self.calls = list(reads), 0

    def __call__(self, crops: Sequence[npt.NDArray[np.uint8]]) -> list[Read]:
        self.calls += 1
        assert len(crops) == len(self.reads) and all(c.shape == (112, 64, 3) for c in crops)
        return [Read(card, 0.9, [(card, 0.9)]) for card in self.reads]


def _found(cards: Sequence[str]) -> Detections:
    quads = np.stack([QUAD + np.float32(200 * i) * np.array([1, 0], np.float32) for i in range(len(cards))])
    return Detections(quad=quads, group=np.arange(len(cards), dtype=np.int32), card=np.array(cards, dtype=object),
                      confidence=np.full(len(cards), 0.95, np.float32), top=[[(c, 0.95)] for c in cards])


def test_a_read_that_one_moved_box_gives_again_is_dropped_two_keep_it() -> None:
    image = np.full((300, 700, 3), 200, np.uint8)
    script = _Scripted(["9H"] * 6 + ["10H", "back", "back", "9H", "back", "back"] + ["QS", "QS", "KS", "back", "KS", "KS"])
    kept = steady_reads(image, _found(["9H", "10H", "QS"]), script, (64, 112), RULE)
    assert kept.tolist() == [True, False, True]
    assert script.calls == 1  # the photo's moved boxes are read in one call


def test_the_count_is_the_rules() -> None:
    image = np.full((300, 300, 3), 200, np.uint8)
    reads = ["AS", "AS", "back", "back", "back", "back"]
    assert steady_reads(image, _found(["AS"]), _Scripted(reads), (64, 112), RULE).tolist() == [True]
    assert steady_reads(image, _found(["AS"]), _Scripted(reads), (64, 112), SteadyRule(max_agree_drop=2)).tolist() == [False]


def test_no_card_reads_nothing() -> None:
    assert steady_reads(np.zeros((10, 10, 3), np.uint8), Detections.empty(), _Scripted([]), (64, 112), RULE).tolist() == []


def test_the_rule_is_the_model_jsons_block_and_a_bad_one_names_its_key() -> None:
    where = Path("models/french.json")
    assert SteadyRule.from_info({}, where) is None  # no block, no check
    assert SteadyRule.from_info({"still_steady": {"shift": 0.2, "max_agree_drop": 2}}, where) == SteadyRule(0.2, 2)
    for block, named in [({"shift": 0.15}, "still_steady: expected an object with exactly the keys shift, max_agree_drop"),
                         ({"shift": 0.15, "max_agree_drop": 1, "views": 3}, "still_steady: expected an object"),
                         ({"shift": 0.0, "max_agree_drop": 1}, "still_steady.shift: expected a number above 0"),
                         ({"shift": "0.1", "max_agree_drop": 1}, "still_steady.shift"),
                         ({"shift": 0.15, "max_agree_drop": 6}, r"still_steady.max_agree_drop: expected a whole number 0..5"),
                         ({"shift": 0.15, "max_agree_drop": True}, "still_steady.max_agree_drop")]:
        with pytest.raises(ModelError, match=f"^models/french.json: {named}"):
            SteadyRule.from_info({"still_steady": block}, where)


@pytest.mark.skipif(not (models_dir() / "french.onnx").is_file(), reason="no committed French model")
def test_the_committed_models_carry_the_rule_measured_on_pinochles_training_half() -> None:
    from referee.recognition import CardClassifier

    for deck in ("french", "italian"):
        assert CardClassifier.load(deck, threads=1).still_steady == RULE


PINOCHLE = "photos/french_pinochle_voc_train"


def _pinochle(name: str) -> npt.NDArray[np.uint8]:
    path = next(Path(shared_dir() / PINOCHLE).rglob(name))
    return np.asarray(cv2.imread(str(path), cv2.IMREAD_COLOR), np.uint8)


@pytest.mark.shared(PINOCHLE)
@pytest.mark.skipif(not (models_dir() / "french.onnx").is_file(), reason="no committed French model")
@pytest.mark.parametrize(("photo", "false_card"), [
    ("IMG_2454.JPG", "10H"),  # the left 60% of a nine of hearts lying on paper, and the paper
    ("IMG_2471.JPG", "9S"),  # part of a nine of clubs
])
def test_a_window_over_part_of_a_card_is_no_card(photo: str, false_card: str) -> None:
    from referee.recognition import CardClassifier
    from referee.recognition.game_faces import GameFaces
    from referee.vision.detect import detect_image
    from referee.vision.pipeline import FramePipeline

    pipe = FramePipeline.create(CardClassifier.load("french", threads=1, game=GameFaces.of("binocolo")))
    pipe.copies = 2
    assert false_card not in [c["card"] for c in detect_image(pipe, _pinochle(photo))["cards"]]


def test_a_bad_block_stops_the_load_naming_the_file_and_an_enrollment_reads_without_it(
        copy_models: Callable[..., Path]) -> None:
    from referee.recognition import CardClassifier

    folder = copy_models("french")
    path = folder / "french.json"
    data = json.loads(path.read_text())
    data["still_steady"] = {"shift": 0.15, "max_agree_drop": -1}
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=r"french\.json: still_steady\.max_agree_drop"):
        CardClassifier.load("french", folder)
    data["still_steady"] = {"shift": 0.15, "max_agree_drop": 1}
    path.write_text(json.dumps(data))
    clf = CardClassifier.load("french", folder)
    assert clf.still_steady == RULE
    clf.enrollment = object()  # type: ignore[assignment]  # the rule was measured on the model's own reads
    assert clf.still_steady is None
