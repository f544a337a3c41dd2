"""Deck enrollment: per-card prototypes on the model's embedding, from a club's own photos.

The prototypes are blended with the base model: a crop's probability mass on cards is
shared between the base model and a softmax over cosine similarity to the prototypes.

Similarity is measured about the enrolled deck's own mean embedding (``center``): the base
model maps every card of a deck it has never seen to one small region of its embedding (on
the real EPFL photos, every card's nearest prototype is at cosine 0.96-1.0), so plain cosine
cannot separate them at any sensible ``scale``; about their mean they spread out again.
``scale`` and ``weight`` are fitted per deck by :mod:`referee.recognition.enroll_fit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.errors import ModelError
from referee.recognition.model_info import ModelInfo

F32 = npt.NDArray[np.float32]
#: Weight of the prototypes against the base model, and sharpness of their softmax.
DEFAULT_WEIGHT = 0.7
DEFAULT_SCALE = 20.0
#: Fewer distinct cards than this: no centring (the mean of a handful of cards is not the
#: deck's, and with one card the centred prototype would vanish).
MIN_CODES_TO_CENTER = 8


@dataclass(frozen=True)
class Enrollment:
    """Prototypes (L2-normalised mean embeddings) for some or all cards of one deck."""

    deck: str
    codes: tuple[str, ...]
    prototypes: F32
    model_sha256: str
    weight: float = DEFAULT_WEIGHT
    scale: float = DEFAULT_SCALE
    #: subtracted from every embedding before cosine similarity (zeros: plain cosine)
    center: F32 | None = None

    @staticmethod
    def from_embeddings(deck: str, codes: Sequence[str], embeddings: F32, model_sha256: str,
                        weight: float = DEFAULT_WEIGHT, scale: float = DEFAULT_SCALE,
                        centered: bool = True) -> Enrollment:
        """Average the embeddings of each code into one prototype (about the deck's mean when
        ``centered`` and at least :data:`MIN_CODES_TO_CENTER` distinct cards are enrolled)."""
        uniq = tuple(sorted(set(codes)))
        center = np.zeros(embeddings.shape[1], np.float32)
        if centered and len(uniq) >= MIN_CODES_TO_CENTER:
            # the mean of the per-card means, so a card photographed twice does not pull it
            center = np.stack([embeddings[[c == u for c in codes]].mean(axis=0) for u in uniq]).mean(axis=0)
        moved = unit_rows(embeddings - center)
        protos = unit_rows(np.stack([moved[[c == u for c in codes]].mean(axis=0) for u in uniq]))
        return Enrollment(deck, uniq, protos, model_sha256, weight, scale, center.astype(np.float32))

    def with_fit(self, weight: float, scale: float) -> Enrollment:
        return replace(self, weight=float(weight), scale=float(scale))

    def similarities(self, embeddings: F32) -> F32:
        """Cosine similarity (N, len(codes)) of embeddings to the prototypes, about the centre."""
        center = np.zeros(embeddings.shape[1], np.float32) if self.center is None else self.center
        out: F32 = (unit_rows(embeddings - center) @ self.prototypes.T).astype(np.float32)
        return out

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            center = np.zeros(self.prototypes.shape[1], np.float32) if self.center is None else self.center
            np.savez_compressed(fh, deck=self.deck, codes=np.array(self.codes), prototypes=self.prototypes,
                                model_sha256=self.model_sha256, weight=self.weight, scale=self.scale,
                                center=center)

    @staticmethod
    def load(path: Path) -> Enrollment:
        try:
            with np.load(path, allow_pickle=False) as z:
                # files written before centring was added have no "center": plain cosine
                center = z["center"].astype(np.float32) if "center" in z.files else None
                return Enrollment(str(z["deck"]), tuple(str(c) for c in z["codes"]),
                                  z["prototypes"].astype(np.float32), str(z["model_sha256"]),
                                  float(z["weight"]), float(z["scale"]), center)
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
        z = self.scale * self.similarities(embeddings)
        z -= z.max(axis=1, keepdims=True)
        proto = np.exp(z)
        proto /= proto.sum(axis=1, keepdims=True)
        # The prototypes share out only the mass the base model gives the enrolled codes:
        # 'back' (unless enrolled) and cards without a prototype keep their base share.
        target = probs.copy()
        target[:, index] = proto * probs[:, index].sum(axis=1, keepdims=True)
        out: F32 = ((1.0 - self.weight) * probs + self.weight * target).astype(np.float32)
        return out


def unit_rows(x: F32) -> F32:
    """Each row scaled to length 1 (embeddings, prototypes); all-zero rows stay zero."""
    out: F32 = (x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)).astype(np.float32)
    return out
