"""Deck enrollment: per-card prototypes on the model's embedding, from a club's own photos.

The prototypes are blended with the base model: a crop's probability mass on cards is
shared between the base model and a softmax over cosine similarity to the prototypes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.errors import ModelError
from referee.recognition.model_info import ModelInfo

F32 = npt.NDArray[np.float32]
#: Weight of the prototypes against the base model, and sharpness of their softmax.
DEFAULT_WEIGHT = 0.7
DEFAULT_SCALE = 20.0


@dataclass(frozen=True)
class Enrollment:
    """Prototypes (L2-normalised mean embeddings) for some or all cards of one deck."""

    deck: str
    codes: tuple[str, ...]
    prototypes: F32
    model_sha256: str
    weight: float = DEFAULT_WEIGHT
    scale: float = DEFAULT_SCALE

    @staticmethod
    def from_embeddings(deck: str, codes: Sequence[str], embeddings: F32, model_sha256: str,
                        weight: float = DEFAULT_WEIGHT, scale: float = DEFAULT_SCALE) -> Enrollment:
        """Average the (L2-normalised) embeddings of each code into one prototype."""
        uniq = tuple(sorted(set(codes)))
        protos = np.stack([embeddings[[c == u for c in codes]].mean(axis=0) for u in uniq])
        protos /= np.maximum(np.linalg.norm(protos, axis=1, keepdims=True), 1e-9)
        return Enrollment(deck, uniq, protos.astype(np.float32), model_sha256, weight, scale)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(fh, deck=self.deck, codes=np.array(self.codes), prototypes=self.prototypes,
                                model_sha256=self.model_sha256, weight=self.weight, scale=self.scale)

    @staticmethod
    def load(path: Path) -> Enrollment:
        try:
            with np.load(path, allow_pickle=False) as z:
                return Enrollment(str(z["deck"]), tuple(str(c) for c in z["codes"]),
                                  z["prototypes"].astype(np.float32), str(z["model_sha256"]),
                                  float(z["weight"]), float(z["scale"]))
        except FileNotFoundError as exc:
            raise ModelError(f"enrollment file not found: {path}") from exc
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"corrupt enrollment file {path}: {exc}") from exc

    def check_compatible(self, info: ModelInfo, onnx_sha256: str) -> None:
        """Prototypes only mean something on the embedding of the model they were made with."""
        if self.deck != info.deck:
            raise ModelError(f"enrollment is for deck {self.deck!r}, model is {info.deck!r}")
        if self.model_sha256 != onnx_sha256:
            raise ModelError("enrollment was made with another model (sha256 "
                             f"{self.model_sha256[:12]}), re-run referee enroll")
        unknown = [c for c in self.codes if c not in info.labels]
        if unknown:
            raise ModelError(f"enrollment has codes not in the {info.deck!r} labels: {unknown}")

    def blend(self, probs: F32, embeddings: F32, labels: Sequence[str]) -> F32:
        """Mix the base probabilities with prototype similarity (rows still sum to 1)."""
        index = [labels.index(c) for c in self.codes]
        sims = embeddings @ self.prototypes.T
        z = self.scale * sims
        z -= z.max(axis=1, keepdims=True)
        proto = np.exp(z)
        proto /= proto.sum(axis=1, keepdims=True)
        # The prototypes share out only the mass the base model gives the enrolled codes:
        # 'back' (unless enrolled) and cards without a prototype keep their base share.
        target = probs.copy()
        target[:, index] = proto * probs[:, index].sum(axis=1, keepdims=True)
        out: F32 = ((1.0 - self.weight) * probs + self.weight * target).astype(np.float32)
        return out
