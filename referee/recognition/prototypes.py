"""Card prototypes on a model's embedding, made from renders of its training prints only.

Each card's prototype is the mean of its renders' unit embeddings about the centre of all the
cards' means, made unit length. A crop whose embedding lies far from the prototype of the card
it is read as (:mod:`referee.recognition.sureness`) is not one the model was taught. The file
(``models/<deck>.prototypes.npz``, plain arrays, never unpickled) records the sha256 of the graph
it was made with, and is refused with any other.

    .venv/bin/python -m referee.recognition.make_prototypes --deck french   # models/french.prototypes.npz
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.errors import ModelError
from referee.recognition.npz_file import read_npz

F32 = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Prototypes:
    """One unit vector a card (the mean of its renders' embeddings about ``center``) and the
    card's ``floor`` (the least cosine similarity to it of a render of the card the model read
    right), for the graph whose sha256 is ``model_sha256``."""

    codes: tuple[str, ...]
    center: F32
    vectors: F32
    floor: F32
    model_sha256: str

    @staticmethod
    def from_embeddings(codes: Sequence[str], embeddings: F32, model_sha256: str) -> Prototypes:
        """Prototypes of renders the model read right (``codes``: each render's card; the
        embeddings are made unit length, as everywhere here): each card's mean about the mean
        of the cards' means (a card rendered more often does not pull the centre), unit length,
        and the least cosine similarity of one of its renders to it."""
        uniq = tuple(sorted(set(codes)))
        owner = np.array(codes)
        embeddings = _unit(embeddings)
        center = np.stack([embeddings[owner == c].mean(axis=0) for c in uniq]).mean(axis=0).astype(np.float32)
        vectors = _unit(np.stack([_unit(embeddings[owner == c] - center).mean(axis=0) for c in uniq]))
        p = Prototypes(uniq, center, vectors, np.zeros(len(uniq), np.float32), model_sha256)
        own = p.cosine(embeddings, codes)
        floor = np.array([own[owner == c].min() for c in uniq], np.float32)
        return Prototypes(uniq, center, vectors, floor, model_sha256)

    def cosine(self, embeddings: F32, cards: Sequence[str]) -> F32:
        """Each embedding's cosine similarity, about the centre, to its card's prototype (-1
        for a card without one: nothing vouches for it)."""
        sims = _unit(_unit(embeddings) - self.center) @ self.vectors.T
        index = {c: i for i, c in enumerate(self.codes)}
        return np.array([sims[i, index[c]] if c in index else -1.0 for i, c in enumerate(cards)], np.float32)

    def below_floor(self, embeddings: F32, cards: Sequence[str]) -> BoolArray:
        """Which embeddings lie farther from their card's prototype than every render of that
        card the model read right (a card without a prototype: always)."""
        index = {c: i for i, c in enumerate(self.codes)}
        floor = np.array([self.floor[index[c]] if c in index else 2.0 for c in cards], np.float32)
        out: BoolArray = self.cosine(embeddings, cards) < floor
        return out

    def save(self, path: Path) -> None:
        """Written beside and renamed over, so a crash leaves the old file whole or none."""
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            with tmp.open("wb") as fh:
                np.savez_compressed(fh, codes=np.array(self.codes), center=self.center, vectors=self.vectors,
                                    floor=self.floor, model_sha256=np.array(self.model_sha256))
                fh.flush()
                os.fsync(fh.fileno())
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)

    @staticmethod
    def load(path: Path, model_sha256: str, labels: Sequence[str], dim: int) -> Prototypes:
        """Read and check ``path`` against the loaded graph; anything wrong is a ModelError
        naming the file: missing, damaged, of another model, cards not the model's labels,
        shapes that do not fit, NaN values."""
        z = read_npz(path, "prototypes file", ModelError)
        try:
            p = Prototypes(tuple(str(c) for c in z["codes"]), z["center"].astype(np.float32),
                           z["vectors"].astype(np.float32), z["floor"].astype(np.float32), str(z["model_sha256"]))
        except KeyError as exc:
            raise ModelError(f"corrupt prototypes file {path}: no {exc} array") from exc
        except (ValueError, TypeError) as exc:
            raise ModelError(f"corrupt prototypes file {path}: {exc}") from exc
        if p.model_sha256 != model_sha256:
            raise ModelError(f"prototypes file {path} was made with another model (sha256 {p.model_sha256[:12]}, "
                             f"the model is {model_sha256[:12]}): remake it: python -m referee.recognition.make_prototypes")
        unknown = [c for c in p.codes if c not in labels]
        if unknown:
            raise ModelError(f"corrupt prototypes file {path}: codes {unknown} are not the model's labels")
        n = len(p.codes)
        if p.vectors.shape != (n, dim) or p.center.shape != (dim,) or p.floor.shape != (n,):
            raise ModelError(f"corrupt prototypes file {path}: vectors {p.vectors.shape}, center {p.center.shape} "
                             f"and floor {p.floor.shape}; {n} codes need ({n}, {dim}), ({dim},) and ({n},)")
        if not all(np.isfinite(a).all() for a in (p.vectors, p.center, p.floor)):
            raise ModelError(f"corrupt prototypes file {path}: NaN or infinite values")
        return p


def _unit(x: F32) -> F32:
    out: F32 = (x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)).astype(np.float32)
    return out
