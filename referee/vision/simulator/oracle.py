"""A template-matching card classifier for simulated frames (tests and benchmarks only).

It knows the exact print the simulator draws, so it isolates the finder and the play tracker
from the learned recogniser: ``benchmarks/vision_e2e.py --oracle`` and tests use it where a
trained model is absent or beside the point.  Same interface as
``referee.recognition.CardClassifier`` (``input_size``, ``classify(crops)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import BACK, RECOGNISER_LABELS
from referee.vision.simulator.assets import AssetError, back_sprite, face_sprite

#: the feature: a small colour thumbnail, normalised (cheap, and plenty for known prints)
_FEATURE_SIZE = (20, 34)


@dataclass(frozen=True)
class OraclePrediction:
    card: str
    confidence: float
    top: list[tuple[str, float]]


class TemplateClassifier:
    """Nearest template (either way up) among the faces of one print, plus its back."""

    def __init__(self, face_set: str, family: str, input_size: tuple[int, int] = (64, 112),
                 sharpness: float = 25.0) -> None:
        self.input_size = input_size
        self.sharpness = sharpness
        codes: list[str] = []
        feats: list[npt.NDArray[Any]] = []
        ref = None
        for code in RECOGNISER_LABELS[family]:
            if code == BACK:
                continue
            try:
                sprite = face_sprite(face_set, code)
            except AssetError:
                continue
            ref = sprite.size
            codes.append(code)
            feats.append(_feature(sprite.image))
        if ref is None:
            raise AssetError(f"face set {face_set!r} has no {family} faces")
        codes.append(BACK)
        feats.append(_feature(back_sprite(face_set, ref).image))
        self.codes = codes
        upright = np.stack(feats)
        turned = np.stack([f.reshape(_FEATURE_SIZE[1], _FEATURE_SIZE[0], 3)[::-1, ::-1].ravel() for f in feats])
        self._templates = np.concatenate([upright, turned])

    def classify(self, crops: Sequence[npt.NDArray[Any]]) -> list[OraclePrediction]:
        if not crops:
            return []
        x = np.stack([_feature(c) for c in crops])
        sims = x @ self._templates.T / x.shape[1]  # correlation of normalised features
        n = len(self.codes)
        sims = np.maximum(sims[:, :n], sims[:, n:])
        logits = sims * self.sharpness
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        out = []
        for row in probs:
            order = np.argsort(-row)[:5]
            top = [(self.codes[i], float(row[i])) for i in order]
            out.append(OraclePrediction(top[0][0], top[0][1], top))
        return out


def _feature(image: npt.NDArray[Any]) -> npt.NDArray[Any]:
    small = cv2.resize(image[..., :3], _FEATURE_SIZE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab -= lab.mean(axis=(0, 1))
    lab /= lab.std() + 1e-6
    flat: npt.NDArray[Any] = lab.ravel()
    return flat
