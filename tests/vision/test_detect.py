"""``referee detect`` and the frame pipeline, with a fake classifier (no model needed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.vision.detect import detect_file
from referee.vision.detections import Image
from referee.vision.finder_scenes import PlacedCard, StandInClassifier, make_scene
from referee.vision.pipeline import FramePipeline, Read


class FakeClassifier(StandInClassifier):
    """Bright crops are ``coppe_3``; dark ones (backs, cloth) are ``back``."""

    def classify(self, crops: Sequence[Image]) -> list[Read]:
        for crop in crops:
            assert crop.shape == (80, 48, 3)  # the finder honours the classifier's input size
        return super().classify(crops)


def _pipeline() -> FramePipeline:
    """The still path over a deck of two of each card: the fake reads both face-up cards of
    :func:`_scene` as ``coppe_3``, and a photo never shows one card more times than the deck
    holds it."""
    pipe = FramePipeline.create(FakeClassifier())
    pipe.copies = 2
    return pipe


def _scene() -> tuple[Image, list[np.ndarray]]:
    rng = np.random.default_rng(11)
    cards = [
        PlacedCard((300, 300), 10, 150),
        PlacedCard((900, 400), 70, 150),
        PlacedCard((640, 600), 0, 150, face_up=False),
    ]
    return make_scene(cards, rng, "felt")


def test_pipeline_keeps_face_up_cards_in_one_classifier_call() -> None:
    image, quads = _scene()
    clf = FakeClassifier()
    dets = FramePipeline.create(clf).process(image)
    assert clf.batches and len(clf.batches) == 1
    assert sorted(dets.card.tolist()) == ["coppe_3", "coppe_3"]
    centres = sorted(tuple(np.round(c / 50)) for c in dets.centers)
    assert centres == sorted(tuple(np.round(q.mean(axis=0) / 50)) for q in quads[:2])


def test_detect_file_prints_the_documented_json(tmp_path: Path) -> None:
    image, _ = _scene()
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), image)
    result = detect_file(_pipeline(), str(path))
    assert set(result) == {"image", "cards", "ms"} and result["image"] == str(path)
    assert len(result["cards"]) == 2
    card = result["cards"][0]
    assert card["card"] == "coppe_3" and 0 < card["confidence"] <= 1
    assert len(card["quad"]) == 4 and all(len(p) == 2 for p in card["quad"])
    json.dumps(result)  # plain JSON types only


def test_large_photos_are_analysed_small_but_quads_come_back_in_photo_pixels(tmp_path: Path) -> None:
    image, quads = _scene()
    big = cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
    path = tmp_path / "big.png"
    cv2.imwrite(str(path), big)
    result = detect_file(_pipeline(), str(path), max_width=1280)
    got = sorted(tuple(np.round(np.mean(c["quad"], axis=0) / 100)) for c in result["cards"])
    assert got == sorted(tuple(np.round(q.mean(axis=0) * 2 / 100)) for q in quads[:2])


def test_missing_and_corrupt_images_are_error_objects(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg")
    pipe = FramePipeline.create(FakeClassifier())
    assert "no such file" in detect_file(pipe, str(tmp_path / "nope.jpg"))["error"]
    assert "not a readable image" in detect_file(pipe, str(bad))["error"]


def test_cli_prints_one_json_line_per_image_and_fails_on_a_bad_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import referee.recognition as recognition

    monkeypatch.setattr(recognition.CardClassifier, "load", classmethod(lambda cls, *a, **k: FakeClassifier()))
    image, _ = _scene()
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), image)
    # two of each card: the fake reads both face-up cards as one card
    status = main(["detect", "--deck", "italian", "--copies", "2", str(good), str(tmp_path / "missing.png")])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1 and len(lines) == 2
    assert len(lines[0]["cards"]) == 2 and "error" in lines[1]


def test_a_card_lying_still_is_not_classified_again_in_the_live_loop() -> None:
    from referee.vision.pipeline import ReadCache

    image, _ = _scene()
    clf = FakeClassifier()
    pipe = FramePipeline.create(clf)
    pipe.cache = ReadCache()
    first = pipe.process(image)
    moved = image.copy()
    moved[250:350, 850:950] = 255 - moved[250:350, 850:950]  # something changes on one card only
    again = pipe.process(moved)
    assert clf.batches[0] >= 2 and clf.batches[1] < clf.batches[0]
    assert sorted(first.card.tolist()) == sorted(again.card.tolist())


def test_detect_reads_with_the_clubs_enrollment_and_names_a_missing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.errors import ModelError
    from referee.paths import models_dir

    image, _ = _scene()
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), image)
    if (models_dir() / "french.onnx").exists():  # the real loader names the file
        with pytest.raises(ModelError, match=r"enrollment file not found: .*club\.npz"):
            main(["detect", "--deck", "french", "--enrollment", str(tmp_path / "club.npz"), str(good)])
    import referee.recognition as recognition

    seen: list[object] = []

    def load(*args: object, **kwargs: object) -> FakeClassifier:
        seen.append(kwargs.get("enrollment"))
        return FakeClassifier()

    monkeypatch.setattr(recognition.CardClassifier, "load", load)
    assert main(["detect", "--deck", "italian", "--enrollment", "club.npz", str(good)]) == 0
    assert seen == ["club.npz"]


def test_detect_tells_the_pipeline_how_many_of_each_card_the_deck_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import referee.recognition as recognition

    image, _ = _scene()
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), image)
    monkeypatch.setattr(recognition.CardClassifier, "load", lambda *a, **k: FakeClassifier())
    copies: list[int] = []
    still = FramePipeline.process_still

    def spy(self: FramePipeline, image: Image, sure: float = 0.8) -> object:
        copies.append(self.copies)
        return still(self, image, sure)

    monkeypatch.setattr(FramePipeline, "process_still", spy)
    assert main(["detect", "--deck", "french", "--copies", "2", str(good)]) == 0
    assert main(["detect", "--deck", "french", str(good)]) == 0
    assert copies == [2, 1]
    with pytest.raises(SystemExit):
        main(["detect", "--deck", "french", "--copies", "3", str(good)])
    assert "--copies" in capsys.readouterr().err
