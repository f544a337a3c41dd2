"""``referee detect`` on bad input: a clear error naming the file, never a traceback, and an
image the pipeline refuses costs only that image, not the rest of the batch."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import referee.recognition as recognition
from referee.cli import main
from referee.errors import ConfigError
from referee.paths import models_dir
from referee.vision.finder_scenes import PlacedCard, StandInClassifier, make_scene


def _table(path: Path) -> None:
    image, _ = make_scene([PlacedCard((300, 300), 10, 150)], np.random.default_rng(3), "felt")
    cv2.imwrite(str(path), image)


def test_a_one_pixel_image_is_an_error_line_and_the_batch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(recognition.CardClassifier, "load", lambda *a, **k: StandInClassifier())
    tiny, good = tmp_path / "tiny.png", tmp_path / "good.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    _table(good)
    assert main(["detect", "--deck", "italian", str(tiny), str(good)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == [str(tiny), str(good)]
    assert "tiny.png (1x1)" in lines[0]["error"] and "too small" in lines[0]["error"]
    assert "error" not in lines[1] and len(lines[1]["cards"]) == 1


def _command_line(monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    """``referee ARGV`` as the installed command runs it (main() reads sys.argv)."""
    monkeypatch.setattr(sys, "argv", ["referee", *argv])
    return main()


@pytest.mark.parametrize("damage", ["missing onnx", "missing json", "garbled json", "garbled onnx"])
def test_every_model_error_is_one_line_naming_the_file(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    onnx, labels = models / "italian.onnx", models / "italian.json"
    onnx.write_bytes((models_dir() / "italian.onnx").read_bytes())
    labels.write_text((models_dir() / "italian.json").read_text())
    named = {"missing onnx": onnx, "garbled onnx": onnx}.get(damage, labels)
    if damage.startswith("missing"):
        named.unlink()
    elif damage == "garbled json":
        labels.write_text("{not json")
    else:
        onnx.write_bytes(b"\x08\x07not a graph")
    image = tmp_path / "good.png"
    _table(image)
    assert _command_line(monkeypatch, "detect", "--deck", "italian", "--models", str(models), str(image)) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.startswith("referee detect: error: ") and str(named) in err and len(err.splitlines()) == 1


def test_a_missing_enrollment_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "good.png"
    _table(image)
    club = tmp_path / "club.npz"
    assert _command_line(monkeypatch, "detect", "--deck", "italian", "--enrollment", str(club), str(image)) == 2
    err = capsys.readouterr().err
    assert f"enrollment file not found: {club}" in err and "Traceback" not in err


def test_no_classifier_threads_is_a_config_error_not_a_card_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    image = tmp_path / "good.png"
    _table(image)
    assert _command_line(monkeypatch, "detect", "--deck", "italian", "--threads", "0", str(image)) == 2
    with pytest.raises(ConfigError, match="threads must be >= 1, got 0"):
        main(["detect", "--deck", "italian", "--threads", "0", str(image)])


@pytest.mark.parametrize("width", ["0", "-5", "wide"])
def test_an_analysis_width_no_card_fits_in_is_refused_on_the_command_line(
    width: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["detect", "--deck", "italian", "--max-width", width, "x.png"])
    assert exited.value.code == 2 and "--max-width: expected" in capsys.readouterr().err
