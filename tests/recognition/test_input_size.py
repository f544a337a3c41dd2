"""A model input other than the default: sets render at it, a model exported for it says so in its
JSON, and the runtime and the live finder follow that JSON. (The committed models take 64x96;
``referee train`` trains only that size since a larger input read no better: models/HISTORY.md.)"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.recognition import CardClassifier
from referee.recognition.dataset import cache_name, render_set
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
    data = render_set("french", ["fake_a/french"], 1, seed=3, workers=1, root=fake_shared, style=style, size=SMALL)
    assert data.images.shape[1:] == (SMALL[1], SMALL[0], 3)
    default = render_set("french", ["fake_a/french"], 1, seed=3, workers=1, root=fake_shared, style=style)
    assert default.images.shape[1:] == (INPUT_SIZE[1], INPUT_SIZE[0], 3)


@pytest.mark.parametrize("size", [(96, 64), (16, 24), (64, 512), (64,), (64, 96, 3)])
def test_a_bad_input_size_is_named(size: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="model input size"):
        check_input_size(size)
    assert check_input_size([80, 120]) == (80, 120)


def test_a_model_exported_for_another_input_is_read_and_cut_at_it(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from referee.cards import RECOGNISER_LABELS
    from referee.recognition.export import export
    from referee.recognition.net import CardNet
    from referee.vision.pipeline import FramePipeline

    torch.manual_seed(0)
    out = tmp_path / "models"
    export(CardNet(len(RECOGNISER_LABELS["french"])).eval(), "french", out, 1.0, {}, SMALL)
    assert json.loads((out / "french.json").read_text())["input_size"] == list(SMALL)
    clf = CardClassifier.load("french", out)
    assert clf.input_size == SMALL
    assert clf.prepare([np.zeros((120, 70, 3), np.uint8)]).shape == (1, 3, SMALL[1], SMALL[0])
    assert len(clf.classify([np.full((150, 90, 3), 200, np.uint8)] * 3)) == 3
    assert FramePipeline.create(clf).finder.config.crop_size == SMALL
