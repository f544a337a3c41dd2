"""Enrolment's long steps call ``tick`` after every batch the model reads (the box pings its
service watchdog with it): the name check, the prototypes, the fit and the read-back never
read two batches in a row without a tick."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt
from recogniser_doubles import F32, StandInRecogniser

from referee.cards import RECOGNISER_LABELS
from referee.recognition.classifier import CardClassifier
from referee.recognition.enroll import enroll
from referee.recognition.enroll_check import check_names
from referee.recognition.enroll_readback import read_back

CODES = [c for c in RECOGNISER_LABELS["italian"] if c != "back"]


class Model(StandInRecogniser):
    """A stand-in recogniser that notes each batch it reads in ``log``."""

    def __init__(self, log: list[str]) -> None:
        super().__init__(RECOGNISER_LABELS["italian"], 8)
        self.log = log

    def embeddings(self, crops: Sequence[npt.NDArray[np.uint8]]) -> F32:
        self.log.append("batch")
        emb = np.stack([np.resize(c.mean(axis=(0, 1)), 8) + np.arange(8) * float(c[0, 0, 0]) for c in crops])
        return emb.astype(np.float32)


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
