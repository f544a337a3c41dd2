"""One frame in, identified face-up cards out: finder -> classifier -> one card per physical card.

The same :class:`FramePipeline` runs in ``referee detect``, ``referee watch`` and ``referee demo``::

    from referee.recognition import CardClassifier
    pipe = FramePipeline.create(CardClassifier.load("italian", threads=1))
    dets = pipe.process(bgr_image)          # Detections: card, confidence, top, quad
    [(d["card"], d["confidence"]) for d in dets.to_json()]

Precision comes from the classifier: the finder over-proposes (card backs with white borders,
ArUco markers, cloth squares) and anything classified ``back`` is dropped; of the alternative
hypotheses for one card (same ``group``) the most confident card wins; two hypotheses of the
same card code on top of each other are one card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from referee.cards import BACK
from referee.vision.detections import Detections, Image
from referee.vision.finder import CardFinder, FinderConfig


class PredictionLike(Protocol):
    @property
    def card(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def top(self) -> list[tuple[str, float]]: ...


class Recogniser(Protocol):
    """What the pipeline needs of ``referee.recognition.CardClassifier`` (fakes in tests)."""

    @property
    def input_size(self) -> tuple[int, int]: ...

    def classify(self, crops: Sequence[Image]) -> Sequence[PredictionLike]: ...


class ZoneMap(Protocol):
    """What the pipeline needs of ``referee.vision.layout.TableLayout``."""

    def zone_of(self, image_point: Sequence[float]) -> str: ...


@dataclass
class FramePipeline:
    finder: CardFinder
    classifier: Recogniser
    #: drop reads below this (they are rarely right and the tracker votes over frames anyway)
    min_confidence: float = 0.3
    #: when set, cards outside the mat (markers, the players' own laps) are ignored
    layout: ZoneMap | None = None
    _last_ms: float = field(default=0.0, init=False)

    @classmethod
    def create(
        cls, classifier: Recogniser, layout: ZoneMap | None = None, config: FinderConfig | None = None
    ) -> FramePipeline:
        cfg = config or FinderConfig()
        cfg = replace(cfg, crop_size=tuple(classifier.input_size))  # type: ignore[arg-type]
        return cls(CardFinder(cfg), classifier, layout=layout)

    def process(self, image: Image) -> Detections:
        dets = self.finder.find(image)
        if self.layout is not None and len(dets):
            zones = [self.layout.zone_of(tuple(c)) for c in dets.centers]
            dets = dets[np.array([z != "outside" for z in zones])]
        return identify(dets, self.classifier, self.min_confidence)


def identify(dets: Detections, classifier: Recogniser, min_confidence: float = 0.3) -> Detections:
    """Classify the crops; keep one face-up card per group and per spot, crops dropped."""
    if not len(dets):
        return dets.without_crops()
    preds = classifier.classify(dets.crops)
    dets = dets.with_identities(
        [p.card for p in preds], [p.confidence for p in preds], [list(p.top) for p in preds]
    ).without_crops()
    keep = (dets.card != BACK) & (dets.confidence >= min_confidence)
    dets = dets[keep]
    return _dedupe(_best_per_group(dets))


def _best_per_group(dets: Detections) -> Detections:
    best: dict[int, int] = {}
    for i, g in enumerate(dets.group.tolist()):
        if g not in best or dets.confidence[i] > dets.confidence[best[g]]:
            best[g] = i
    return dets[np.array(sorted(best.values()), np.int64)]


def _dedupe(dets: Detections) -> Detections:
    """Same card code twice with close centres is one card (two hypotheses of one blob)."""
    if len(dets) < 2:
        return dets
    order = np.argsort(-dets.confidence)
    centres = dets.centers
    sizes = np.linalg.norm(dets.quad[:, 0] - dets.quad[:, 1], axis=1)
    kept: list[int] = []
    for i in order.tolist():
        if all(
            dets.card[i] != dets.card[j] or np.linalg.norm(centres[i] - centres[j]) > 0.6 * sizes[j]
            for j in kept
        ):
            kept.append(i)
    return dets[np.array(sorted(kept), np.int64)]
