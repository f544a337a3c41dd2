"""Integrity at load: a damaged model or enrollment file is refused with a ModelError naming the
file and what is wrong, never loaded into a recogniser that is silently blind (every crop read
as one card, or every probability NaN)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from referee.cards import RECOGNISER_LABELS
from referee.errors import ModelError
from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.classifier import softmax
from referee.recognition.enrollment import Enrollment
from referee.recognition.model_info import ModelInfo

pytestmark = pytest.mark.skipif(not (models_dir() / "italian.onnx").exists(), reason="no committed italian model")
CROPS = [np.random.default_rng(i).integers(0, 255, (96, 64, 3), np.uint8) for i in range(6)]


@pytest.fixture
def model(tmp_path: Path) -> Path:
    """A copy of the committed Italian model, to damage."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("italian.onnx", "italian.json"):
        shutil.copy(models_dir() / name, folder / name)
    return folder


def _edit_json(folder: Path, **changes: Any) -> Path:
    path = folder / "italian.json"
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))  # NaN and Infinity written as JSON's non-standard literals
    return path


def test_an_intact_copy_loads_and_reads() -> None:
    clf = CardClassifier.load("italian")
    assert len(clf.classify(CROPS)) == len(CROPS)


def test_sixty_four_overwritten_bytes_in_the_graph_are_refused(model: Path) -> None:
    onnx = model / "italian.onnx"
    graph = bytearray(onnx.read_bytes())
    middle = len(graph) // 2
    graph[middle:middle + 64] = bytes(64)  # weights only: the graph still runs, and reads nonsense
    onnx.write_bytes(bytes(graph))
    with pytest.raises(ModelError, match=r"italian\.onnx: sha256 is [0-9a-f]{64}, but onnx_sha256 in "
                       r".*italian\.json is [0-9a-f]{64}: the model file is damaged"):
        CardClassifier.load("italian", model)


def test_the_enrollment_hash_is_the_loaded_graphs_not_the_file_as_it_is_later(model: Path) -> None:
    clf = CardClassifier.load("italian", model)
    (model / "italian.onnx").write_bytes(b"replaced after loading")
    assert clf.model_sha256 == json.loads((model / "italian.json").read_text())["onnx_sha256"]


@pytest.mark.parametrize(("key", "value", "expected"), [
    ("temperature", float("nan"), "a number 0.01..100"),
    ("temperature", float("inf"), "a number 0.01..100"),
    ("temperature", 1e-272, "a number 0.01..100"),
    ("temperature", 0, "a number 0.01..100"),
    ("std", 0.0, "a number 0.001..1000"),
    ("std", float("nan"), "a number 0.001..1000"),
    ("std", -0.25, "a number 0.001..1000"),
    ("mean", float("nan"), "a number -1000..1000"),
    ("mean", float("-inf"), "a number -1000..1000"),
    ("embedding_dim", 0, "an integer >= 1"),
    ("input_size", [0, 96], "[width, height], each >= 1"),
    ("onnx_sha256", "", "64 lowercase hex digits"),
    ("views", "turn", "a list of distinct view names out of turn, tight, loose"),
    ("views", ["turn", "mirror"], "a list of distinct view names out of turn, tight, loose"),
    ("views", ["turn", "turn"], "a list of distinct view names out of turn, tight, loose"),
])
def test_values_that_blind_the_recogniser_are_refused_naming_the_key(
    model: Path, key: str, value: object, expected: str
) -> None:
    path = _edit_json(model, **{key: value})
    with pytest.raises(ModelError) as refused:
        CardClassifier.load("italian", model)
    assert f"{path}: {key}: expected {expected}" in str(refused.value)


def test_an_embedding_size_the_graph_does_not_give_is_refused(model: Path) -> None:
    _edit_json(model, embedding_dim=64)
    with pytest.raises(ModelError, match=r"italian\.onnx: outputs .* embedding_dim 64"):
        CardClassifier.load("italian", model)


# ---- enrollment files ------------------------------------------------------------------------
def _enrollment(path: Path, dim: int = 128, **changes: Any) -> Path:
    codes = [c for c in RECOGNISER_LABELS["italian"] if c != "back"][:10]
    rng = np.random.default_rng(0)
    sha = json.loads((models_dir() / "italian.json").read_text())["onnx_sha256"]
    e = Enrollment.from_embeddings("italian", codes, rng.normal(size=(10, dim)).astype(np.float32), sha,
                                   turned=rng.normal(size=(10, dim)).astype(np.float32))
    arrays = {k: getattr(e, k) for k in ("prototypes", "center", "whiten", "turned")}
    for key, value in changes.items():
        if key in arrays:
            arrays[key] = value(arrays[key])
        else:
            e = Enrollment(**{**{f: getattr(e, f) for f in e.__dataclass_fields__}, key: value})
    e = Enrollment(**{**{f: getattr(e, f) for f in e.__dataclass_fields__}, **arrays})
    e.save(path)
    return path


def test_a_sound_enrollment_file_loads_with_the_model(tmp_path: Path) -> None:
    clf = CardClassifier.load("italian", enrollment=_enrollment(tmp_path / "club.npz"))
    probs = clf.probabilities(CROPS)
    assert np.isfinite(probs).all() and np.allclose(probs.sum(axis=1), 1, atol=1e-4)


def _nan_row(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a[3] = np.nan
    return a


@pytest.mark.parametrize(("change", "message"), [
    ({"prototypes": _nan_row}, r"prototypes holds 128 NaN or infinite value\(s\)"),
    ({"turned": _nan_row}, r"turned holds 128 NaN"),
    ({"center": lambda c: c * np.inf}, r"center holds \d+ NaN or infinite"),
    ({"whiten": _nan_row}, r"whiten holds 128 NaN"),
    ({"weight": float("nan")}, r"weight: expected a number 0..1, got nan"),
    ({"scale": 0.0}, r"scale: expected a number > 0 and <= 1000, got 0.0"),
    ({"scale": 1e9}, r"scale: expected a number > 0 and <= 1000, got 1000000000.0"),
    ({"whiten": lambda w: w * 1e30}, r"whiten holds values beyond ±1e\+06"),
    ({"back_gate": float("nan")}, r"back_gate: expected a finite similarity, got nan"),
])
def test_enrollment_values_that_blind_the_blend_are_refused(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = _enrollment(tmp_path / "club.npz", **change)
    with pytest.raises(ModelError, match=rf"corrupt enrollment file .*club\.npz: {message}"):
        CardClassifier.load("italian", enrollment=path)


@pytest.mark.parametrize(("cut", "message"), [
    (0, r"the file is empty \(0 bytes\)"),
    (0.5, "cut short or not an .npz file"),
    (0.97, "cut short or not an .npz file"),
])
def test_an_enrollment_file_cut_short_names_itself(tmp_path: Path, cut: float, message: str) -> None:
    path = _enrollment(tmp_path / "club.npz")
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * cut)])
    with pytest.raises(ModelError, match=rf"corrupt enrollment file .*club\.npz: .*{message}"):
        Enrollment.load(path)


def test_a_file_of_object_arrays_is_refused_without_unpickling(tmp_path: Path) -> None:
    path = tmp_path / "club.npz"
    np.savez(path, deck=np.array(["italian"], dtype=object), codes=np.array(["coppe_1"]),
             prototypes=np.zeros((1, 128)), model_sha256="x", weight=0.5, scale=20.0)
    with pytest.raises(ModelError, match=r"club\.npz: array .deck. holds Python objects, which are never unpickled"):
        Enrollment.load(path)


def test_prototypes_of_another_embedding_size_are_refused(tmp_path: Path) -> None:
    path = _enrollment(tmp_path / "club.npz", dim=64)
    with pytest.raises(ModelError, match=r"club\.npz: enrollment prototypes have 64 values each, the "
                       "model's embedding has 128"):
        CardClassifier.load("italian", enrollment=path)


# ---- any enrollment file: refused by name, or a blend that stays a distribution -----------------
finite_or_not = st.floats(allow_nan=True, allow_infinity=True, width=32)


@st.composite
def enrollment_files(draw: st.DrawFn) -> dict[str, Any]:
    n, dim = draw(st.integers(1, 4)) * (draw(st.integers(0, 9)) > 0), draw(st.integers(1, 5))

    def array(shape: tuple[int, ...]) -> np.ndarray:
        if draw(st.integers(0, 4)) == 0:  # sometimes a shape that does not fit
            shape = tuple(draw(st.integers(0, 5)) for _ in range(draw(st.integers(1, 2))))
        elements = finite_or_not if draw(st.integers(0, 3)) == 0 else st.floats(-2, 2, width=32)
        return draw(hnp.arrays(np.float32, shape, elements=elements))

    data: dict[str, Any] = {"deck": "test", "codes": np.array(draw(st.lists(st.sampled_from("ABCD"), min_size=n, max_size=n,
                                                                              unique=draw(st.integers(0, 4)) > 0))),
                            "prototypes": array((n, dim)), "model_sha256": "sha"}
    for key, usual in (("weight", st.floats(0, 1)), ("scale", st.floats(1, 50)), ("back_gate", st.floats(-1, 1))):
        data[key] = np.float32(draw(finite_or_not if draw(st.integers(0, 3)) == 0 else usual))
    for key, shape in (("center", (dim,)), ("whiten", (dim, dim)), ("turned", (n, dim))):
        if draw(st.booleans()):
            data[key] = array(shape)
    if draw(st.integers(0, 4)) == 0:
        del data[draw(st.sampled_from(sorted(data)))]
    return data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=enrollment_files(), seed=st.integers(0, 2**16))
def test_any_enrollment_file_is_refused_or_blends_to_a_distribution(
    tmp_path: Path, data: dict[str, Any], seed: int
) -> None:
    path = tmp_path / "fuzz.npz"
    np.savez(path, **data)
    try:
        e = Enrollment.load(path)
    except ModelError as exc:
        assert str(exc).startswith(f"corrupt enrollment file {path}")
        event("refused")
        return
    event("loaded")
    rng = np.random.default_rng(seed)
    labels = ("A", "B", "C", "D", "back")
    probs = rng.dirichlet(np.ones(len(labels)), 3).astype(np.float32)
    out = e.blend(probs, rng.normal(size=(3, e.prototypes.shape[1])).astype(np.float32), labels)
    assert np.isfinite(out).all() and np.allclose(out.sum(axis=1), 1, atol=1e-3)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=5,
)
COMMITTED_JSON = json.loads((models_dir() / "italian.json").read_text()) if (models_dir() / "italian.json").exists() else {}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(sorted(COMMITTED_JSON) or ["deck"]), value=json_values)
def test_any_value_at_any_key_of_a_model_json_is_refused_naming_the_file_or_sound(
    tmp_path: Path, key: str, value: object
) -> None:
    path = tmp_path / "italian.json"
    path.write_text(json.dumps({**COMMITTED_JSON, key: value}))
    try:
        info = ModelInfo.load(path, "italian")
    except ModelError as exc:
        assert str(exc).startswith((f"{path}: ", f"corrupt model labels file {path}: "))
        return
    logits = np.random.default_rng(0).normal(0, 30, (4, len(info.labels))).astype(np.float32)
    probs = softmax(logits, info.temperature)
    assert np.isfinite(probs).all() and math.isfinite(info.mean) and math.isfinite(info.std)
    pixels = (np.float32(1.0) - np.float32(info.mean)) / np.float32(info.std)
    assert np.isfinite(pixels)


def test_an_enrollment_save_that_fails_midway_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _enrollment(tmp_path / "club.npz")
    before = path.read_bytes()
    e = Enrollment.load(path)

    def disk_full(fh: Any, **arrays: Any) -> None:
        fh.write(b"PK\x03\x04 half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError, match="No space left"):
        e.save(path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["club.npz"]
