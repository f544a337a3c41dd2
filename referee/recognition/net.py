"""The recogniser network (PyTorch, training only): a small depthwise-separable CNN.

Inference never imports this module: the exported ONNX graph is all the runtime needs.
Outputs ``(logits, embedding)``; the embedding (after the projection, before the classifier)
is what deck enrollment builds its prototypes on.
"""

from __future__ import annotations

import torch
from torch import nn

EMBED_DIM = 128
#: (out_channels, stride) of each depthwise-separable block after the stem.
#: Downsampling early (stride 2 twice before any wide layer) keeps CPU training fast.
BLOCKS: tuple[tuple[int, int], ...] = (
    (48, 2), (64, 1), (128, 2), (128, 1), (128, 1), (256, 2), (256, 1),
)
STEM = 24
#: The committed models' shape: ``CardNet(n)`` is ``CardNet(n, width=1.0, extra_blocks=0)``.
DEFAULT_WIDTH = 1.0
DEFAULT_EXTRA_BLOCKS = 0


def block_plan(width: float = DEFAULT_WIDTH, extra_blocks: int = DEFAULT_EXTRA_BLOCKS) -> tuple[int, tuple[tuple[int, int], ...]]:
    """(stem channels, blocks) of a network ``width`` times as wide (channels rounded to a
    multiple of 8) with ``extra_blocks`` more stride-1 blocks after each of the last two stages
    (12x8 and 6x4 cells for a 64x96 crop: capacity that costs little compute)."""
    if not 0.25 <= width <= 4.0:
        raise ValueError(f"width {width}: expected 0.25-4")
    if not 0 <= extra_blocks <= 8:
        raise ValueError(f"extra blocks {extra_blocks}: expected 0-8")

    def ch(c: int) -> int:
        return max(8, round(c * width / 8) * 8)

    blocks = [(ch(c), s) for c, s in BLOCKS]
    # the last two stages begin at the last two stride-2 blocks; extras go at each stage's end
    starts = [i for i, (_, s) in enumerate(blocks) if s == 2][-2:]
    ends = [starts[1] - 1, len(blocks) - 1]
    out: list[tuple[int, int]] = []
    for i, block in enumerate(blocks):
        out.append(block)
        if i in ends:
            out += [(block[0], 1)] * extra_blocks
    return ch(STEM), tuple(out)


def _conv_bn(cin: int, cout: int, k: int, stride: int, groups: int = 1) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class CardNet(nn.Module):
    """Stem conv, depthwise-separable blocks, global pooling, embedding, classifier."""

    def __init__(self, num_classes: int, embed_dim: int = EMBED_DIM, width: float = DEFAULT_WIDTH,
                 extra_blocks: int = DEFAULT_EXTRA_BLOCKS) -> None:
        super().__init__()
        stem, blocks = block_plan(width, extra_blocks)
        layers: list[nn.Module] = _conv_bn(3, stem, 3, 2)
        cin = stem
        for cout, stride in blocks:
            layers += _conv_bn(cin, cin, 3, stride, groups=cin) + _conv_bn(cin, cout, 1, 1)
            cin = cout
        self.features = nn.Sequential(*layers)
        self.embed = nn.Sequential(nn.Linear(cin, embed_dim), nn.BatchNorm1d(embed_dim), nn.ReLU())
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Linear(embed_dim, num_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.features(x).mean(dim=(2, 3))
        emb: torch.Tensor = self.embed(pooled)
        logits: torch.Tensor = self.classifier(self.dropout(emb))
        return logits, emb
