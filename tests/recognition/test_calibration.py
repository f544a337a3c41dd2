"""Recalibration: the temperature refitted on chosen sets, the graph untouched, the fit recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.recognition import CardClassifier
from referee.recognition.calibration import parse_set
from referee.recognition.metrics import fit_temperature, reliability


def _logits(n: int, sharpness: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Logits whose softmax at T=1 is calibrated when ``sharpness`` is 1 (labels drawn from it)."""
    z = rng.normal(0, 2.0, (n, 5)).astype(np.float32)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    truth = np.array([rng.choice(5, p=row) for row in p], np.int64)
    return z * sharpness, truth


def test_reliability_tells_calibrated_from_over_and_under_confident() -> None:
    rng = np.random.default_rng(0)
    logits, truth = _logits(4000, 1.0, rng)
    calibrated = reliability(logits, truth, 1.0)
    assert calibrated["ece"] < 0.03 and calibrated["n"] == 4000
    assert reliability(logits * 3, truth, 1.0)["ece"] > 0.1  # overconfident
    assert reliability(logits / 3, truth, 1.0)["ece"] > 0.1  # underconfident
    assert calibrated["conf_right"] > calibrated["conf_wrong"]
    # The fitted temperature undoes a sharpening of the logits.
    assert fit_temperature(logits * 2, truth) == pytest.approx(2.0, rel=0.1)


def test_set_specs_are_parsed_and_bad_ones_named() -> None:
    assert parse_set("omerkel_scopa_commons/napoletane") == ("base", "omerkel_scopa_commons/napoletane")
    assert parse_set("table:fake_b/french") == ("table", "fake_b/french")
    assert parse_set("crops:build/x.npz") == ("crops", "build/x.npz")
    with pytest.raises(ConfigError, match="tabel:fake_b"):
        parse_set("tabel:fake_b/french")


def _recalibrate(models: Path, out: Path, shared: Path, cache: Path, *sets: str) -> int:
    from referee.cli import main

    return main(["train", "--deck", "french", "--recalibrate", str(models), "--out", str(out),
                 "--calibrate-on", *sets, "--report-on", "fake_a/french", "--calibration-per-face", "1",
                 "--shared", str(shared), "--cache", str(cache), "--threads", "1", "--quiet"])


@pytest.mark.slow
def test_recalibration_keeps_the_graph_and_records_the_fit(smoke_models: Path, fake_shared: Path,
                                                           tmp_path: Path) -> None:
    before = json.loads((smoke_models / "french.json").read_text())
    out = tmp_path / "out"
    assert _recalibrate(smoke_models, out, fake_shared, tmp_path / "cache", "fake_b/french", "table:fake_b/french") == 0
    after = json.loads((out / "french.json").read_text())
    assert (out / "french.onnx").read_bytes() == (smoke_models / "french.onnx").read_bytes()
    assert after["onnx_sha256"] == before["onnx_sha256"]
    assert after["training"] == before["training"] and after["validation"] == before["validation"]
    cal = after["calibration"]
    assert cal["fitted_on"] == ["fake_b/french", "table:fake_b/french"] and cal["reported_only"] == ["fake_a/french"]
    assert cal["previous_temperature"] == before["temperature"] and after["temperature"] == cal["temperature"] > 0
    for group in ("fake_b/french", "table:fake_b/french", "fake_a/french", "fitted sets together"):
        assert {"before", "after"} <= set(cal["reliability"][group])
    # The runtime loads it and uses the new temperature.
    assert CardClassifier.load("french", out).info.temperature == after["temperature"]
    # Replaying the same command gives the same file (seeded renders).
    again = tmp_path / "again"
    assert _recalibrate(smoke_models, again, fake_shared, tmp_path / "cache2", "fake_b/french",
                        "table:fake_b/french") == 0
    assert (again / "french.json").read_text() == (out / "french.json").read_text()


def test_crops_file_sets_are_grouped_by_mode_and_print(smoke_models: Path, fake_shared: Path,
                                                      tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, (6, 96, 64, 3), np.uint8)
    rows = np.array([("finder", "p/x", "AS", 0.1)] * 3 + [("true", "p/x", "back", 0.0)] * 3, dtype=str)
    path = tmp_path / "crops.npz"
    np.savez_compressed(path, images=images, rows=rows, finder_errors=np.zeros(3))
    models = tmp_path / "models"
    shutil.copytree(smoke_models, models)
    assert _recalibrate(models, models, fake_shared, tmp_path / "cache", f"crops:{path}") == 0
    cal = json.loads((models / "french.json").read_text())["calibration"]
    assert cal["reliability"]["sim-finder:p/x"]["after"]["n"] == 3
    assert cal["reliability"]["sim-true:p/x"]["after"]["n"] == 3
    assert "AS" in RECOGNISER_LABELS["french"]


def test_bad_sets_and_missing_sets_are_named(smoke_models: Path, fake_shared: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="fake_z/french"):
        _recalibrate(smoke_models, tmp_path / "o", fake_shared, tmp_path / "c", "fake_z/french")
    with pytest.raises(ConfigError, match=r"nowhere\.npz"):
        _recalibrate(smoke_models, tmp_path / "o", fake_shared, tmp_path / "c", f"crops:{tmp_path}/nowhere.npz")
    from referee.cli import main

    with pytest.raises(ConfigError, match="--calibrate-on"):
        main(["train", "--deck", "french", "--recalibrate", str(smoke_models), "--out", str(tmp_path / "o"),
              "--quiet"])


@pytest.mark.slow
def test_training_with_calibrate_on_writes_the_recalibrated_model(smoke_models: Path, fake_shared: Path,
                                                                  tmp_path: Path) -> None:
    """One training command gives the final files: the same run as ``smoke_models`` plus the refit."""
    from referee.cli import main

    trained = tmp_path / "trained"
    assert main(["train", "--deck", "french", "--out", str(trained), "--steps", "3", "--samples", "104",
                 "--table-samples", "52", "--val-per-face", "1", "--batch", "16", "--threads", "1", "--seed", "1",
                 "--holdout", "fake_b/french", "--shared", str(fake_shared), "--cache", str(tmp_path / "cache"),
                 "--calibrate-on", "fake_b/french", "--report-on", "fake_a/french", "--calibration-per-face", "1",
                 "--quiet"]) == 0
    refit = tmp_path / "refit"
    assert _recalibrate(smoke_models, refit, fake_shared, tmp_path / "cache2", "fake_b/french") == 0
    a = json.loads((trained / "french.json").read_text())
    b = json.loads((refit / "french.json").read_text())
    assert a["calibration"]["fitted_on"] == b["calibration"]["fitted_on"] == ["fake_b/french"]
    assert a["temperature"] == pytest.approx(b["temperature"], rel=0.02)
    assert a["calibration"]["previous_temperature"] == pytest.approx(a["validation"]["temperature"])
