"""A template-matching card classifier for simulated frames (tests and benchmarks only).

It knows the exact print the simulator draws, so it isolates the finder and the play tracker
from the learned recogniser: ``benchmarks/vision_e2e.py --oracle`` and tests use it where a
trained model is absent or beside the point.  Same interface as
``referee.recognition.CardClassifier`` (``input_size``, ``classify(crops)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import BACK, RECOGNISER_LABELS
from referee.vision.pipeline import Read
from referee.vision.simulator.assets import AssetError, back_sprite, face_sprite

#: the feature: a small colour thumbnail, normalised (cheap, and plenty for known prints)
_FEATURE_SIZE = (16, 28)


class TemplateClassifier:
    """Nearest template (either way up) among the faces of one print, plus its back."""

    def __init__(self, face_set: str, family: str, input_size: tuple[int, int] = (64, 112),
                 sharpness: float = 40.0, jitter_views: int = 8) -> None:
        self.input_size = input_size
        self.sharpness = sharpness
        codes: list[str] = []
        images: list[npt.NDArray[Any]] = []
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
            images.append(sprite.image)
        if ref is None:
            raise AssetError(f"face set {face_set!r} has no {family} faces")
        codes.append(BACK)
        images.append(back_sprite(face_set, ref).image)
        self.codes = codes
        # Each face either way up and slightly mis-cropped, as a finder's quads are.
        rng = np.random.default_rng(0)
        jitters = [np.zeros((4, 2))] + [rng.normal(0, 0.03, (4, 2)) for _ in range(jitter_views)]
        feats = []
        labels = []
        for index, image in enumerate(images):
            for jitter in jitters:
                view = _jittered(image, jitter)
                feats.append(_feature(view))
                feats.append(_feature(view[::-1, ::-1]))
                labels += [index, index]
        self._templates = np.stack(feats)
        self._labels = np.array(labels)

    def classify(self, crops: Sequence[npt.NDArray[Any]]) -> list[Read]:
        if not crops:
            return []
        x = np.stack([_feature(c) for c in crops])
        sims = x @ self._templates.T / x.shape[1]  # correlation of normalised features
        best = np.full((len(crops), len(self.codes)), -np.inf)
        for label in range(len(self.codes)):  # best view of each card
            best[:, label] = sims[:, self._labels == label].max(axis=1)
        logits = best * self.sharpness
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        out = []
        for row in probs:
            order = np.argsort(-row)[:5]
            top = [(self.codes[i], float(row[i])) for i in order]
            out.append(Read(top[0][0], top[0][1], top))
        return out


def _jittered(image: npt.NDArray[Any], jitter: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``image`` re-cropped with its corners moved by ``jitter`` (fractions of its size)."""
    h, w = image.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    moved = (src + jitter * np.array([w, h])).astype(np.float32)
    m = cv2.getPerspectiveTransform(moved, src)
    out: npt.NDArray[Any] = cv2.warpPerspective(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return out


def _feature(image: npt.NDArray[Any]) -> npt.NDArray[Any]:
    small = cv2.resize(image[..., :3], _FEATURE_SIZE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab -= lab.mean(axis=(0, 1))
    lab /= lab.std() + 1e-6
    flat: npt.NDArray[Any] = lab.ravel()
    return flat
