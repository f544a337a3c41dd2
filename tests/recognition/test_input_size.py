"""A model input other than the default: sets render at it, training exports it, the runtime and
the live finder follow the model's JSON (``referee train --input-size W H``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.errors import ConfigError
from referee.recognition import CardClassifier
from referee.recognition.dataset import NegativeRecipe, cache_name, render_set
from referee.recognition.preprocess import INPUT_SIZE, check_input_size

SMALL = (48, 80)


def test_the_default_size_keeps_every_cache_name_and_another_gets_its_own() -> None:
    prints = ["a/french"]
    assert cache_name("french", prints, 400, 0, size=INPUT_SIZE) == cache_name("french", prints, 400, 0)
    assert cache_name("french", prints, 400, 0, size=list(INPUT_SIZE)) == cache_name("french", prints, 400, 0)
    assert cache_name("french", prints, 400, 0, size=(80, 120)) != cache_name("french", prints, 400, 0)
    assert cache_name("french", prints, 400, 0, size=(80, 120)) != cache_name("french", prints, 400, 0, size=(72, 108))


@pytest.mark.slow
@pytest.mark.parametrize("style", ["base", "table"])
def test_every_kind_of_crop_renders_at_the_size_asked(fake_shared: Path, style: str) -> None:
    data = render_set("french", ["fake_a/french"], 1, seed=3, workers=1, root=fake_shared, style=style,
                      negatives=NegativeRecipe(0.2, 0.2, 0.2), size=SMALL)
    assert data.images.shape[1:] == (SMALL[1], SMALL[0], 3)
    default = render_set("french", ["fake_a/french"], 1, seed=3, workers=1, root=fake_shared, style=style)
    assert default.images.shape[1:] == (INPUT_SIZE[1], INPUT_SIZE[0], 3)


@pytest.mark.parametrize("size", [(96, 64), (16, 24), (64, 512), (64,), (64, 96, 3)])
def test_a_bad_input_size_is_named(size: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="model input size"):
        check_input_size(size)
    assert check_input_size([80, 120]) == (80, 120)


@pytest.mark.slow
def test_training_exports_the_input_size_and_the_finder_cuts_at_it(fake_shared: Path, tmp_path: Path) -> None:
    from referee.cli import main
    from referee.vision.pipeline import FramePipeline

    out = tmp_path / "models"
    base = ["train", "--deck", "french", "--out", str(out), "--steps", "2", "--samples", "104",
            "--table-samples", "52", "--val-per-face", "1", "--batch", "16", "--threads", "1", "--seed", "1",
            "--holdout", "fake_b/french", "--shared", str(fake_shared), "--cache", str(tmp_path / "cache"), "--quiet"]
    assert main([*base, "--input-size", str(SMALL[0]), str(SMALL[1])]) == 0
    meta = json.loads((out / "french.json").read_text())
    assert meta["input_size"] == list(SMALL) and meta["training"]["input_size"] == list(SMALL)
    clf = CardClassifier.load("french", out)
    assert clf.input_size == SMALL
    assert clf.prepare([np.zeros((120, 70, 3), np.uint8)]).shape == (1, 3, SMALL[1], SMALL[0])
    assert len(clf.classify([np.full((150, 90, 3), 200, np.uint8)] * 3)) == 3
    assert FramePipeline.create(clf).finder.config.crop_size == SMALL
    with pytest.raises(ConfigError, match="--input-size"):
        main([*base, "--input-size", "96", "64"])
