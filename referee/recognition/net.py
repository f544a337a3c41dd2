"""The recogniser network (PyTorch, training only): a small depthwise-separable CNN.

Inference never imports this module: the exported ONNX graph is all the runtime needs.
Outputs ``(logits, embedding)``; the embedding (after the projection, before the classifier)
is what deck enrollment builds its prototypes on.

With :class:`CardFactors` the network also has a suit head and a rank head whose logits are
added to each card's own (card = card head + suit head[suit] + rank head[rank]; ``back`` has
neither), so what tells a suit apart is learned from every rank of it. All three heads are
linear maps of the same embedding, so :meth:`CardNet.folded` sums them into the one classifier
the runtime knows: the exported graph is the usual one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from referee.cards import BACK, parse_card

EMBED_DIM = 128
#: (out_channels, stride) of each depthwise-separable block after the stem.
#: Downsampling early (stride 2 twice before any wide layer) keeps CPU training fast.
BLOCKS: tuple[tuple[int, int], ...] = (
    (48, 2), (64, 1), (128, 2), (128, 1), (128, 1), (256, 2), (256, 1),
)
STEM = 24


@dataclass(frozen=True)
class CardFactors:
    """Each label's suit and rank as indices into :attr:`suits` / :attr:`ranks` (-1 for ``back``)."""

    suits: tuple[str, ...]
    ranks: tuple[str, ...]
    suit_of: tuple[int, ...]
    rank_of: tuple[int, ...]

    @classmethod
    def of(cls, labels: Sequence[str]) -> CardFactors:
        cards = [None if code == BACK else parse_card(code) for code in labels]
        suits = tuple(dict.fromkeys(c.suit for c in cards if c is not None))
        ranks = tuple(dict.fromkeys(c.rank for c in cards if c is not None))
        return cls(suits, ranks, tuple(-1 if c is None else suits.index(c.suit) for c in cards),
                   tuple(-1 if c is None else ranks.index(c.rank) for c in cards))

    def maps(self) -> tuple[torch.Tensor, torch.Tensor]:
        """0/1 matrices (suits x labels) and (ranks x labels): which labels each suit/rank adds to."""
        out = []
        for names, index in ((self.suits, self.suit_of), (self.ranks, self.rank_of)):
            m = np.zeros((len(names), len(index)), np.float32)
            for label, i in enumerate(index):
                if i >= 0:
                    m[i, label] = 1.0
            out.append(torch.from_numpy(m))
        return out[0], out[1]


def _conv_bn(cin: int, cout: int, k: int, stride: int, groups: int = 1) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class CardNet(nn.Module):
    """Stem conv, depthwise-separable blocks, global pooling, embedding, classifier
    (plus suit and rank heads with ``factors``)."""

    suit_map: torch.Tensor
    rank_map: torch.Tensor

    def __init__(self, num_classes: int, embed_dim: int = EMBED_DIM, factors: CardFactors | None = None) -> None:
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
        # Made after every other layer, so a network without them draws the same initial weights.
        self.factors = factors
        if factors is not None:
            if len(factors.suit_of) != num_classes:
                raise ValueError(f"factors cover {len(factors.suit_of)} labels, the network has {num_classes}")
            self.suit_head = nn.Linear(embed_dim, len(factors.suits))
            self.rank_head = nn.Linear(embed_dim, len(factors.ranks))
            suit_map, rank_map = factors.maps()
            self.register_buffer("suit_map", suit_map)
            self.register_buffer("rank_map", rank_map)

    def parts(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """(card logits, embedding, suit logits, rank logits); the last two None without factors.
        The card logits already include the suit and rank heads' shares."""
        pooled = self.features(x).mean(dim=(2, 3))
        emb: torch.Tensor = self.embed(pooled)
        dropped = self.dropout(emb)
        logits: torch.Tensor = self.classifier(dropped)
        if self.factors is None:
            return logits, emb, None, None
        suit: torch.Tensor = self.suit_head(dropped)
        rank: torch.Tensor = self.rank_head(dropped)
        return logits + suit @ self.suit_map + rank @ self.rank_map, emb, suit, rank

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, emb, _, _ = self.parts(x)
        return logits, emb

    def folded(self) -> CardNet:
        """The same function as one plain network (the heads summed into the classifier): what
        is exported, so the runtime sees the usual graph. Returns ``self`` without factors."""
        if self.factors is None:
            return self
        plain = CardNet(self.classifier.out_features, self.classifier.in_features)
        own = {k: v for k, v in self.state_dict().items() if not k.startswith(("suit_", "rank_", "classifier."))}
        with torch.no_grad():
            weight = (self.classifier.weight + self.suit_map.T @ self.suit_head.weight
                      + self.rank_map.T @ self.rank_head.weight)
            bias = self.classifier.bias + self.suit_map.T @ self.suit_head.bias + self.rank_map.T @ self.rank_head.bias
        plain.load_state_dict({**own, "classifier.weight": weight, "classifier.bias": bias})
        plain.train(self.training)
        return plain
