"""Enrolment's long steps call ``tick`` after every batch the model reads (the box pings its
service watchdog with it): the name check, the prototypes, the fit and the read-back never
read two batches in a row without a tick."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

from referee.cards import RECOGNISER_LABELS
from referee.recognition.classifier import CardClassifier, softmax
from referee.recognition.enroll import enroll
from referee.recognition.enroll_check import check_names
from referee.recognition.enroll_readback import read_back
from referee.recognition.enrollment import Enrollment, unit_rows

F32 = npt.NDArray[np.float32]
CODES = [c for c in RECOGNISER_LABELS["italian"] if c != "back"]


class Model:
    """A stand-in recogniser that notes each batch it reads in ``log``."""

    def __init__(self, log: list[str]) -> None:
        from types import SimpleNamespace

        self.log, self.labels = log, tuple(RECOGNISER_LABELS["italian"])
        self.info = SimpleNamespace(deck="italian", temperature=1.0, embedding_dim=8)
        self.model_sha256 = "0" * 64
        self.enrollment: Enrollment | None = None

    def run(self, crops: Sequence[npt.NDArray[np.uint8]]) -> tuple[F32, F32]:
        self.log.append("batch")
        emb = np.stack([np.resize(c.mean(axis=(0, 1)), 8) + np.arange(8) * float(c[0, 0, 0]) for c in crops])
        return np.zeros((len(crops), len(self.labels)), np.float32), emb.astype(np.float32)

    def embed(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        return unit_rows(self.run(crops)[1])

    def probabilities(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        logits, emb = self.run(crops)
        probs = softmax(logits, 1.0)
        return probs if self.enrollment is None else self.enrollment.blend(probs, unit_rows(emb), self.labels)


def test_every_batch_the_enrolment_reads_is_followed_by_a_tick() -> None:
    log: list[str] = []
    model = Model(log)
    clf = cast(CardClassifier, model)
    crops = [np.full((96, 64, 3), 3 * i, np.uint8) for i in range(len(CODES))]

    def tick() -> None:
        log.append("tick")

    check_names(clf, crops, CODES, CODES, tick=tick)
    enrollment = enroll(clf, crops, CODES, tick=tick)
    model.enrollment = enrollment
    read_back(clf, crops, CODES, CODES, tick=tick)
    batches = log.count("batch")
    assert batches >= 2 + 2 + 10 + 4  # the check (both ways up), the prototypes, the fit's copies, the read-back
    assert all(log[i + 1] == "tick" for i, step in enumerate(log) if step == "batch")
