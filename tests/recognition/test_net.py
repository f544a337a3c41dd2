"""The recogniser network's shape: the committed models' network, nothing else."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from referee.recognition.net import BLOCKS, STEM, CardNet  # noqa: E402


def test_the_network_is_the_committed_models_shape() -> None:
    net = CardNet(53)
    convs = [m for m in net.features if isinstance(m, torch.nn.Conv2d)]
    assert convs[0].out_channels == STEM and [c.out_channels for c in convs[2::2]] == [c for c, _ in BLOCKS]
    # the committed models' parameter count (0.78 MB of float32 weights with the classifier)
    assert sum(p.numel() for p in net.parameters()) == 193_048 + 13 * 129
    logits, emb = CardNet(40)(torch.zeros(2, 3, 96, 64))
    assert logits.shape == (2, 40) and emb.shape == (2, 128)
