"""A stand-in for the recogniser as enrolment uses it (``run`` -> logits and embeddings,
``embed``, ``probabilities`` blended with an enrolment as :class:`CardClassifier` does).

Shared by the enrolment's tests (``tests/recognition``) and the box's (``tests/box``);
importable as ``recogniser_doubles`` however pytest is started (``pythonpath`` in pyproject).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import numpy.typing as npt

from referee.recognition.classifier import softmax
from referee.recognition.enrollment import Enrollment, unit_rows

F32 = npt.NDArray[np.float32]


class StandInRecogniser:
    """Reads no card surely (all-zero logits: a deck it does not know); subclasses say how a
    crop is embedded (:meth:`embeddings`)."""

    def __init__(self, labels: Sequence[str], embedding_dim: int) -> None:
        self.labels = tuple(labels)
        self.info = SimpleNamespace(deck="italian", temperature=1.0, embedding_dim=embedding_dim)
        self.model_sha256 = "0" * 64
        self.enrollment: Enrollment | None = None

    def embeddings(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        raise NotImplementedError

    def run(self, crops: Sequence[npt.NDArray[np.uint8]]) -> tuple[F32, F32]:
        return np.zeros((len(crops), len(self.labels)), np.float32), self.embeddings(crops)

    def embed(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        return unit_rows(self.run(crops)[1])

    def probabilities(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        logits, emb = self.run(crops)
        probs = softmax(logits, 1.0)
        return probs if self.enrollment is None else self.enrollment.blend(probs, unit_rows(emb), self.labels)
