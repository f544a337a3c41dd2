"""Found cards in one frame: parallel numpy arrays, validated once, filtered with boolean masks.

Spirit: supervision's ``Detections``.  Every stage of the vision pipeline takes and returns this
one type, so ``detections = stage(detections)`` reads top to bottom::

    dets = finder.find(image)                  # quads, crops, groups; no identities yet
    dets = identify(dets, classifier)          # cards + confidences + runner-up codes
    dets = dets[dets.confidence >= 0.5]        # a boolean mask gives a Detections again

Fields (N = number of detections):

* ``quad`` (N, 4, 2) float32: corners in image pixels, clockwise from the top-left corner of the
  upright card (portrait: short side first).
* ``crops``: N rectified portrait BGR uint8 crops (all the same size) or an empty list when the
  crops have been dropped (JSON output, tracking).
* ``group`` (N,) int32: alternative hypotheses for one physical card share a group (the finder
  is unsure of the card's extent; the classifier picks the best one).  Unique otherwise.
* ``card`` (N,) object: card code, ``"back"``, or ``""`` while not yet classified.
* ``confidence`` (N,) float32: the classifier's probability of ``card`` (0 before).
* ``top``: N lists of ``(code, p)`` runner-ups (may be empty before classification).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.errors import RefereeError

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int32]
ObjArray = npt.NDArray[np.object_]
BoolArray = npt.NDArray[np.bool_]
Image = npt.NDArray[np.uint8]


class DetectionsError(RefereeError, ValueError):
    """Parallel arrays of a :class:`Detections` that disagree in length or shape."""


@dataclass(frozen=True)
class Detections:
    quad: FloatArray
    crops: list[Image] = field(default_factory=list)
    group: IntArray = field(default_factory=lambda: np.zeros(0, np.int32))
    card: ObjArray = field(default_factory=lambda: np.zeros(0, object))
    confidence: FloatArray = field(default_factory=lambda: np.zeros(0, np.float32))
    top: list[list[tuple[str, float]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.quad)
        quad = np.asarray(self.quad, np.float32).reshape(n, 4, 2)
        object.__setattr__(self, "quad", quad)
        # Missing per-detection arrays get defaults so callers only pass what they know.
        if len(self.group) == 0 and n:
            object.__setattr__(self, "group", np.arange(n, dtype=np.int32))
        if len(self.card) == 0 and n:
            object.__setattr__(self, "card", np.full(n, "", dtype=object))
        if len(self.confidence) == 0 and n:
            object.__setattr__(self, "confidence", np.zeros(n, np.float32))
        if not self.top and n:
            object.__setattr__(self, "top", [[] for _ in range(n)])
        object.__setattr__(self, "group", np.asarray(self.group, np.int32))
        object.__setattr__(self, "confidence", np.asarray(self.confidence, np.float32))
        object.__setattr__(self, "card", np.asarray(self.card, dtype=object))
        lengths = {
            "group": len(self.group),
            "card": len(self.card),
            "confidence": len(self.confidence),
            "top": len(self.top),
        }
        if self.crops:
            lengths["crops"] = len(self.crops)
        bad = {k: v for k, v in lengths.items() if v != n}
        if bad:
            raise DetectionsError(f"Detections with {n} quads but lengths {bad}")

    @staticmethod
    def empty() -> Detections:
        return Detections(quad=np.zeros((0, 4, 2), np.float32))

    def __len__(self) -> int:
        return len(self.quad)

    def __getitem__(self, index: BoolArray | npt.NDArray[np.integer[Any]] | Sequence[int] | slice) -> Detections:
        """A subset as a new :class:`Detections` (boolean mask, index array or slice)."""
        idx = np.arange(len(self))[index]
        return Detections(
            quad=self.quad[idx],
            crops=[self.crops[i] for i in idx] if self.crops else [],
            group=self.group[idx],
            card=self.card[idx],
            confidence=self.confidence[idx],
            top=[self.top[i] for i in idx],
        )

    def with_identities(
        self,
        card: Sequence[str],
        confidence: Sequence[float],
        top: Sequence[list[tuple[str, float]]],
    ) -> Detections:
        return replace(
            self,
            card=np.asarray(list(card), dtype=object),
            confidence=np.asarray(confidence, np.float32),
            top=[list(t) for t in top],
        )

    def joined(self, other: Detections) -> Detections:
        """Both detections' identities, each detection a group of its own, without crops (the
        reads of several passes over one image, pooled)."""
        if not len(self) or not len(other):
            return self if len(self) else other
        return Detections(
            quad=np.concatenate([self.quad, other.quad]),
            group=np.arange(len(self) + len(other), dtype=np.int32),
            card=np.concatenate([self.card, other.card]),
            confidence=np.concatenate([self.confidence, other.confidence]),
            top=[*self.top, *other.top],
        )

    def without_crops(self) -> Detections:
        return replace(self, crops=[])

    @property
    def centers(self) -> FloatArray:
        """(N, 2) quad centres in image pixels."""
        centres: FloatArray = self.quad.mean(axis=1).astype(np.float32)
        return centres

    @property
    def face_up(self) -> BoolArray:
        mask: BoolArray = (self.card != "back") & (self.card != "")
        return mask

    def to_json(self) -> list[dict[str, Any]]:
        """The ``cards`` list of ``referee detect`` (quad rounded to 0.1 px)."""
        return [
            {
                "card": str(self.card[i]),
                "confidence": round(float(self.confidence[i]), 4),
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad[i]],
            }
            for i in range(len(self))
        ]
