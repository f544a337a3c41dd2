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


def _conv_bn(cin: int, cout: int, k: int, stride: int, groups: int = 1) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class CardNet(nn.Module):
    """Stem conv, depthwise-separable blocks, global pooling, embedding, classifier."""

    def __init__(self, num_classes: int, embed_dim: int = EMBED_DIM) -> None:
        super().__init__()
        layers: list[nn.Module] = _conv_bn(3, STEM, 3, 2)
        cin = STEM
        for cout, stride in BLOCKS:
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
