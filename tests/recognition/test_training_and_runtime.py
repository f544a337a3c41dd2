"""Training path (tiny smoke run) and the runtime API contract on the model it exports."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import BadCardError, ModelError
from referee.recognition import CardClassifier, Prediction
from referee.recognition.classifier import softmax
from referee.recognition.preprocess import INPUT_SIZE, check_crop, resize_crop, to_tensor


def crops(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 255, (int(rng.integers(40, 200)), int(rng.integers(30, 150)), 3), np.uint8)
            for _ in range(n)]


def test_training_writes_onnx_and_labels_json(smoke_models: Path) -> None:
    meta = json.loads((smoke_models / "french.json").read_text())
    assert meta["labels"] == list(RECOGNISER_LABELS["french"])
    assert meta["input_size"] == list(INPUT_SIZE)
    assert meta["training"]["steps"] == 3 and meta["training"]["holdout_sets"] == ["fake_b/french"]
    # 104 base crops + 52 table-style crops (one per face) + their 'back' samples
    assert meta["training"]["table_per_face"] == 1 and meta["training"]["train_crops"] == 104 + 8 + 52 + 4
    assert "fake_b/french" in meta["validation"]["per_set"]
    assert meta["temperature"] > 0


def test_classify_returns_calibrated_top_k_per_crop(smoke_models: Path) -> None:
    clf = CardClassifier.load("french", smoke_models, threads=1)
    assert clf.labels == RECOGNISER_LABELS["french"] and clf.input_size == INPUT_SIZE
    preds = clf.classify(crops(5))
    assert len(preds) == 5 and all(isinstance(p, Prediction) for p in preds)
    for p in preds:
        probs = [c for _, c in p.top]
        assert p.card == p.top[0][0] and p.confidence == probs[0]
        assert probs == sorted(probs, reverse=True) and sum(probs) <= 1.0 + 1e-5
    assert clf.classify([]) == []


def test_a_batch_is_one_onnxruntime_call(smoke_models: Path) -> None:
    clf = CardClassifier.load("french", smoke_models)
    calls: list[int] = []
    real = clf._session

    class Spy:
        def run(self, names: object, feeds: dict[str, np.ndarray]) -> object:
            calls.append(len(next(iter(feeds.values()))))
            return real.run(names, feeds)  # type: ignore[attr-defined]

    clf._session = Spy()
    clf.classify(crops(8))
    assert calls == [8]


def test_embeddings_are_unit_vectors(smoke_models: Path) -> None:
    emb = CardClassifier.load("french", smoke_models).embed(crops(3))
    assert emb.shape == (3, 128)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)


def test_the_turn_view_reads_a_crop_the_same_either_way_up(smoke_models: Path) -> None:
    plain = CardClassifier.load("french", smoke_models, views=())
    turned = CardClassifier.load("french", smoke_models, views=("turn",))
    rng = np.random.default_rng(3)  # at the input size, so no resampling differs between the two
    x = [rng.integers(0, 255, (INPUT_SIZE[1], INPUT_SIZE[0], 3), np.uint8) for _ in range(4)]
    upside_down = [np.ascontiguousarray(c[::-1, ::-1]) for c in x]
    one_way, other_way = plain.run(x)[0], plain.run(upside_down)[0]
    assert np.allclose(turned.probabilities(x), turned.probabilities(upside_down), atol=1e-6)
    # ... and it is the mean of the two plain reads' probabilities
    t = plain.info.temperature
    assert np.allclose(turned.probabilities(x), (softmax(one_way, t) + softmax(other_way, t)) / 2, atol=1e-6)
    calls: list[int] = []
    real = turned._session

    class Spy:
        def run(self, names: object, feeds: dict[str, np.ndarray]) -> object:
            calls.append(len(next(iter(feeds.values()))))
            return real.run(names, feeds)  # type: ignore[attr-defined]

    turned._session = Spy()
    turned.classify(x)
    assert calls == [8]
    turned.classify(x + x)  # more reads than one call takes well are split into calls of 8
    assert calls == [8, 8, 8]


def test_every_view_is_read_and_the_reads_probabilities_averaged(smoke_models: Path, tmp_path: Path) -> None:
    from referee.recognition.views import expand

    shutil.copy(smoke_models / "french.onnx", tmp_path / "french.onnx")
    meta = json.loads((smoke_models / "french.json").read_text())
    (tmp_path / "french.json").write_text(json.dumps({**meta, "views": ["turn", "tight", "loose"]}))
    clf = CardClassifier.load("french", tmp_path)  # the views the model's JSON names
    assert clf.views == ("turn", "tight", "loose")
    plain = CardClassifier.load("french", tmp_path, views=())
    rng = np.random.default_rng(4)
    x = [rng.integers(0, 255, (INPUT_SIZE[1], INPUT_SIZE[0], 3), np.uint8) for _ in range(3)]
    every = list(expand(np.stack(x), clf.views))
    assert len(every) == 18 and np.array_equal(every[0], x[0]) and np.array_equal(every[9], x[0][::-1, ::-1])
    want = softmax(plain.run(every)[0], clf.info.temperature).reshape(6, 3, -1).mean(0)
    assert np.allclose(clf.probabilities(x), want, atol=1e-5)
    assert np.allclose(softmax(clf.run(x)[0], clf.info.temperature), want, atol=1e-5)
    # a card turned 180 degrees reads the same, the zooms being point-symmetric too
    turned = [np.ascontiguousarray(c[::-1, ::-1]) for c in x]
    assert np.allclose(clf.probabilities(turned), clf.probabilities(x), atol=1e-5)


def test_unknown_deck_is_a_bad_card_error(smoke_models: Path) -> None:
    with pytest.raises(BadCardError, match="tarocchi"):
        CardClassifier.load("tarocchi", smoke_models)


def test_missing_model_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"italian\.onnx"):
        CardClassifier.load("italian", tmp_path)


def test_corrupt_model_names_the_file(smoke_models: Path, tmp_path: Path) -> None:
    shutil.copy(smoke_models / "french.json", tmp_path / "french.json")
    (tmp_path / "french.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(ModelError, match=r"french\.onnx"):
        CardClassifier.load("french", tmp_path)


def test_input_size_mismatch_is_refused(smoke_models: Path, tmp_path: Path) -> None:
    shutil.copy(smoke_models / "french.onnx", tmp_path / "french.onnx")
    meta = json.loads((smoke_models / "french.json").read_text())
    meta["input_size"] = [48, 72]
    (tmp_path / "french.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="input"):
        CardClassifier.load("french", tmp_path)


def test_labels_of_another_deck_are_refused(smoke_models: Path, tmp_path: Path) -> None:
    shutil.copy(smoke_models / "french.onnx", tmp_path / "italian.onnx")
    meta = json.loads((smoke_models / "french.json").read_text())
    meta["deck"] = "italian"
    (tmp_path / "italian.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="labels"):
        CardClassifier.load("italian", tmp_path)


@pytest.mark.parametrize("bad", [np.zeros((90, 60), np.uint8), np.zeros((90, 60, 3), np.float32),
                                 np.zeros((4, 60, 3), np.uint8), "crop.png"])
def test_bad_crops_are_refused_by_index(bad: object) -> None:
    with pytest.raises(BadCardError, match="crop 2"):
        check_crop(bad, 2)


def test_landscape_crops_are_turned_portrait() -> None:
    crop = np.zeros((60, 90, 3), np.uint8)
    crop[:, :10] = 255  # left edge of a landscape crop ends up on top after a clockwise turn
    out = resize_crop(crop)
    assert out.shape == (INPUT_SIZE[1], INPUT_SIZE[0], 3)
    assert out[:5].mean() > 200 and out[-5:].mean() < 10


def test_tensor_is_rgb_nchw_normalised() -> None:
    img = np.zeros((INPUT_SIZE[1], INPUT_SIZE[0], 3), np.uint8)
    img[..., 2] = 255  # red in BGR
    t = to_tensor(img)
    assert t.shape == (1, 3, INPUT_SIZE[1], INPUT_SIZE[0])
    assert t[0, 0].mean() == pytest.approx(2.0) and t[0, 2].mean() == pytest.approx(-2.0)


def test_temperature_softens_probabilities() -> None:
    logits = np.array([[4.0, 1.0, 0.0]], np.float32)
    assert softmax(logits, 2.0)[0, 0] < softmax(logits, 1.0)[0, 0]
    assert softmax(logits, 2.0).sum() == pytest.approx(1.0)


def test_unknown_holdout_print_is_named(fake_shared: Path, tmp_path: Path) -> None:
    from referee.cli import main
    from referee.errors import ConfigError

    with pytest.raises(ConfigError, match="fake_z/french"):
        main(["train", "--deck", "french", "--out", str(tmp_path), "--steps", "1",
              "--holdout", "fake_z/french", "--shared", str(fake_shared), "--quiet"])


def test_training_is_seeded(smoke_models: Path, fake_shared: Path, tmp_path: Path) -> None:
    from referee.cli import main

    again = tmp_path / "again"
    assert main(["train", "--deck", "french", "--out", str(again), "--steps", "3", "--samples", "104",
                 "--table-samples", "52", "--val-per-face", "1", "--batch", "16", "--threads", "1", "--seed", "1",
                 "--holdout", "fake_b/french", "--shared", str(fake_shared),
                 "--cache", str(tmp_path / "cache"), "--quiet"]) == 0
    x = crops(4, seed=9)
    first = CardClassifier.load("french", smoke_models).run(x)[0]
    second = CardClassifier.load("french", again).run(x)[0]
    assert np.allclose(first, second, atol=1e-5)


def test_a_run_replays_bit_for_bit_with_its_layout_and_records_it(train_fake: Callable[..., dict[str, object]], tmp_path: Path) -> None:
    """Seeded training is reproducible: the same command gives the same graph bytes; the tensor
    layout (``--memory-format``, channels_last by default) changes the float
    rounding, so it is recorded in the JSON for the replay command."""
    cache = tmp_path / "cache"
    first = train_fake(tmp_path / "a", cache)
    again = train_fake(tmp_path / "b", cache)
    other = train_fake(tmp_path / "c", cache, "--memory-format", "contiguous")
    assert first["onnx_sha256"] == again["onnx_sha256"]
    training = [m["training"] for m in (first, other)]
    assert [t["memory_format"] for t in training if isinstance(t, dict)] == ["channels_last", "contiguous"]
    # both layouts export a graph that ONNX Runtime reads like PyTorch (export checks it)
    assert CardClassifier.load("french", tmp_path / "c", threads=1).classify(crops(2))[0].top


def test_a_photo_reads_the_french_models_views_the_live_loop_and_an_enrollment_read_once() -> None:
    """The committed French model names its views for a single photo; the live loop (its 25 ms
    frame budget) and a club's enrollment (prototypes of single reads) read each crop once."""
    from referee.recognition.enrollment import Enrollment
    from referee.recognition.views import LIVE_VIEWS

    photo = CardClassifier.load("french")
    assert photo.views == ("turn", "tight", "loose")
    assert CardClassifier.load("french", views=LIVE_VIEWS).views == ()
    dim = photo.info.embedding_dim
    club = Enrollment("french", ("AS",), np.eye(1, dim, dtype=np.float32), photo.model_sha256, weight=0.7, scale=20.0)
    assert CardClassifier.load("french", enrollment=club).views == ()


def _rows_per_call(clf: CardClassifier) -> list[int]:
    """The rows of each model call ``clf`` makes from now on (its ONNX session wrapped)."""
    session = clf._session
    rows: list[int] = []

    class Counting:
        def get_inputs(self) -> object:
            return session.get_inputs()  # type: ignore[attr-defined]

        def run(self, names: object, feeds: dict[str, np.ndarray]) -> object:
            rows.extend(len(v) for v in feeds.values())
            return session.run(names, feeds)  # type: ignore[attr-defined]

    clf._session = Counting()
    return rows


def test_a_photo_reads_the_italian_models_views_and_the_live_loop_reads_once() -> None:
    """The committed Italian model's JSON names the views a single photo (``referee detect``) is
    read in: five crops take six reads each, in model calls of at most 8 rows, combined into one
    read a crop; the live loop's classifier (views.LIVE_VIEWS) reads the same crops once, in one call."""
    from referee.paths import models_dir
    from referee.recognition.views import LIVE_VIEWS

    assert json.loads((models_dir() / "italian.json").read_text())["views"] == ["turn", "tight", "loose"]
    photo = CardClassifier.load("italian", threads=1)
    assert photo.views == ("turn", "tight", "loose")
    photo_rows = _rows_per_call(photo)
    assert len(photo.classify(crops(5, seed=3))) == 5
    assert sum(photo_rows) == 6 * 5 and max(photo_rows) <= 8
    live = CardClassifier.load("italian", threads=1, views=LIVE_VIEWS)
    live_rows = _rows_per_call(live)
    assert len(live.classify(crops(5, seed=3))) == 5
    assert live.views == () and live_rows == [5]
