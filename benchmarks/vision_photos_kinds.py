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
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vision_photos

from referee.vision.detections import FloatArray, Image
from referee.vision.finder.card_finder import CardFinder
from referee.vision.pipeline import FramePipeline

#: the kinds seen at each quad centre (rounded image px) over the current photo's finds
SEEN: dict[tuple[int, int], str] = {}
_find = CardFinder.find


def _recording_find(self: CardFinder, image: Image, focus: FloatArray | None = None, cut: bool = True) -> Any:
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


def detect_image(pipeline: FramePipeline, image: Image, max_width: int = 1280) -> dict[str, Any]:
    """``referee.vision.detect.detect_image`` with each card's ``"kind"``."""
    SEEN.clear()
    start = time.perf_counter()
    scale = min(1.0, max_width / image.shape[1])
    small = image
    if scale != 1.0:
        small = np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    dets = pipeline.process_still(small)
    kinds = [kind_at(q) for q in dets.quad]
    if scale != 1.0 and len(dets):
        dets = type(dets)(quad=(dets.quad / np.float32(scale)).astype(np.float32), group=dets.group,
                          card=dets.card, confidence=dets.confidence, top=dets.top)
    cards = dets.to_json()
    for card, kind in zip(cards, kinds, strict=True):
        card["kind"] = kind
    return {"cards": cards, "ms": round((time.perf_counter() - start) * 1000, 1)}


if __name__ == "__main__":
    CardFinder.find = _recording_find  # type: ignore[method-assign]
    setattr(vision_photos, "detect_image", detect_image)  # noqa: B010 (vision_photos calls it by this name)
    vision_photos.main()
