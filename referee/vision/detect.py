"""Finding and recognising the face-up cards in one still image (``referee detect``, whose
command line is :mod:`referee.cli.detect`).

Runs :class:`referee.vision.pipeline.FramePipeline`, the code of the live loop.  Large photos
are analysed at ``max_width`` (the camera's analysis size by default) and the quads scaled back;
face-down cards are omitted; quads are in the image's own pixels.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.vision.detections import Image
from referee.vision.pipeline import FramePipeline


def detect_file(pipeline: FramePipeline, path: str, max_width: int = 1280) -> dict[str, Any]:
    raw = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
    if raw is None:
        why = "no such file" if not Path(path).exists() else "not a readable image"
        return {"image": path, "error": f"{why}: {path}"}
    try:
        return {"image": path, **detect_image(pipeline, np.asarray(raw, np.uint8), max_width)}
    except (RefereeError, cv2.error) as exc:  # this image only (a 1x1 one holds no card): the batch goes on
        return {"image": path, "error": f"{path} ({raw.shape[1]}x{raw.shape[0]}): {exc}"}


def detect_image(pipeline: FramePipeline, image: Image, max_width: int = 1280) -> dict[str, Any]:
    """``{"cards": [...], "ms": ...}`` for one BGR image (timing excludes file decoding)."""
    start = time.perf_counter()
    scale = min(1.0, max_width / image.shape[1])
    small = image
    if scale != 1.0:
        small = np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    dets = pipeline.process_still(small)
    if scale != 1.0 and len(dets):
        dets = type(dets)(
            quad=(dets.quad / np.float32(scale)).astype(np.float32),
            group=dets.group,
            card=dets.card,
            confidence=dets.confidence,
            top=dets.top,
        )
    ms = (time.perf_counter() - start) * 1000
    return {"cards": dets.to_json(), "ms": round(ms, 1)}

