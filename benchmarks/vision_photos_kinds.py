"""``vision_photos.py`` with each detection's finder hypothesis kind: a lab tool, not product code.

    .venv/bin/python benchmarks/vision_photos_kinds.py --sets pinochle --results build/kp.jsonl

Takes every argument of ``vision_photos.py``; each detection in ``--results`` also carries
``"kind"`` (:attr:`referee.vision.finder.hypothesis.Hypothesis.kind`: ``single``, ``edge``,
``line``, ``corner``, ``outline``, ``partial``, ...). ``CardFinder.last_kinds`` holds only the
last find's kinds, and ``referee detect`` looks at a photo several times, so this keeps the first
kind seen at each quad centre over all of a photo's finds ("~kind": the nearest within 6 px;
"?": none). Why: to learn which proposers give the false cards (docs/lab/2026-12-03-procedural-pips.md).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vision_photos

from referee.vision import detect
from referee.vision.detections import Detections, FloatArray, Image
from referee.vision.finder.card_finder import CardFinder
from referee.vision.pipeline import FramePipeline

#: the kinds seen at each quad centre (rounded image px) over the current photo's finds
SEEN: dict[tuple[int, int], str] = {}
_find = CardFinder.find


def _recording_find(self: CardFinder, image: Image, focus: FloatArray | None = None, cut: bool = True) -> Detections:
    found = _find(self, image, focus, cut)
    for key, kind in self.last_kinds.items():
        SEEN.setdefault(key, kind)
    return found


def kind_at(quad: Any) -> str:
    """The kind seen at ``quad``'s centre, or at the nearest centre within 6 px."""
    centre = np.asarray(quad, np.float32).reshape(4, 2).mean(axis=0)
    key = round(float(centre[0])), round(float(centre[1]))
    if key in SEEN:
        return SEEN[key]
    near = min(SEEN, key=lambda k: abs(k[0] - key[0]) + abs(k[1] - key[1]), default=None)
    if near is not None and abs(near[0] - key[0]) + abs(near[1] - key[1]) <= 6:
        return "~" + SEEN[near]
    return "?"


#: the kinds of the last ``process_still``'s detections, in their order
LAST: list[str] = []
_process_still = FramePipeline.process_still
_detect_image = detect.detect_image


def _recording_process_still(self: FramePipeline, image: Image, sure: float = 0.8) -> Detections:
    SEEN.clear()
    found = _process_still(self, image, sure)
    LAST[:] = [kind_at(q) for q in found.quad]
    return found


def detect_image(pipeline: FramePipeline, image: Image, max_width: int = 1280) -> dict[str, Any]:
    """``referee.vision.detect.detect_image`` with each card's ``"kind"`` (its cards are
    ``process_still``'s detections, in their order)."""
    result = _detect_image(pipeline, image, max_width)
    for card, kind in zip(result["cards"], LAST, strict=True):
        card["kind"] = kind
    return result


if __name__ == "__main__":
    CardFinder.find = _recording_find  # type: ignore[method-assign]
    FramePipeline.process_still = _recording_process_still  # type: ignore[method-assign]
    setattr(vision_photos, "detect_image", detect_image)  # noqa: B010 (vision_photos calls it by this name)
    vision_photos.main()
