"""``referee train --width/--extra-blocks/--device``: the network's shape as a recipe option.

Wider and deeper networks on the French recipe read no more real cards (models/HISTORY.md,
network shape), so the defaults stay the committed shape.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from referee.errors import ConfigError
from referee.recognition import CardClassifier

torch = pytest.importorskip("torch")

from referee.recognition.net import BLOCKS, STEM, CardNet, block_plan  # noqa: E402

Train = Callable[..., dict[str, object]]


def test_the_default_shape_is_the_committed_network() -> None:
    assert block_plan() == (STEM, BLOCKS)
    # the committed models' parameter count (0.78 MB of float32 weights with the classifier)
    assert sum(p.numel() for p in CardNet(53).parameters()) == 193_048 + 13 * 129


def test_width_scales_every_layer_to_a_multiple_of_eight() -> None:
    stem, blocks = block_plan(1.5)
    assert stem == 32 and [c for c, _ in blocks] == [72, 96, 192, 192, 192, 384, 384]
    assert [s for _, s in blocks] == [s for _, s in BLOCKS]


def test_extra_blocks_go_at_the_end_of_the_last_two_stages() -> None:
    _, blocks = block_plan(1.0, 2)
    assert blocks == ((48, 2), (64, 1), (128, 2), (128, 1), (128, 1), (128, 1), (128, 1),
                      (256, 2), (256, 1), (256, 1), (256, 1))
    out, emb = CardNet(40, extra_blocks=2)(torch.zeros(2, 3, 96, 64))
    assert out.shape == (2, 40) and emb.shape == (2, 128)


def test_a_wider_network_is_trained_exported_and_recorded(train_fake: Train, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = train_fake(tmp_path / "plain", cache)
    wide = train_fake(tmp_path / "wide", cache, "--width", "1.5", "--extra-blocks", "1")
    plain_training, wide_training = plain["training"], wide["training"]
    assert isinstance(plain_training, dict) and isinstance(wide_training, dict)
    assert "net" not in plain_training and "device" not in plain_training  # the committed plans stay as they were
    assert wide_training["net"] == {"width": 1.5, "extra_blocks": 1}
    assert (tmp_path / "wide" / "french.onnx").stat().st_size > 2 * (tmp_path / "plain" / "french.onnx").stat().st_size
    top = CardClassifier.load("french", tmp_path / "wide", threads=1).classify([np.zeros((96, 64, 3), np.uint8)])
    assert len(top[0].top) >= 1


@pytest.mark.parametrize(("args", "match"), [
    (("--width", "9"), "--width/--extra-blocks: width 9"),
    (("--extra-blocks", "-1"), "--width/--extra-blocks: extra blocks -1"),
    (("--device", "tpu"), "--device 'tpu'"),
])
def test_bad_shapes_and_devices_are_named(train_fake: Train, tmp_path: Path, args: tuple[str, ...], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        train_fake(tmp_path / "m", tmp_path / "cache", *args)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is there")
def test_a_gpu_that_is_not_there_is_named(train_fake: Train, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--device 'cuda': this torch sees no CUDA GPU"):
        train_fake(tmp_path / "m", tmp_path / "cache", "--device", "cuda")
