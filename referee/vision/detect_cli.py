"""``referee detect --deck italian|french IMAGE...``: one JSON object per image on stdout.

    {"image": "a.jpg", "cards": [{"card": "coppe_3", "confidence": 0.98,
     "quad": [[x, y], [x, y], [x, y], [x, y]]}], "ms": 12.3}

Face-down cards are omitted; quads are in the image's own pixels.  Runs
:class:`referee.vision.pipeline.FramePipeline`, the code of the live loop.  Large photos are
analysed at ``--max-width`` (default 1280, the camera's analysis size) and the quads scaled
back.  An unreadable image, or one the pipeline refuses (too small to hold a card), gives
``{"image": ..., "error": "..."}`` and exit status 1 at the end; the other images are still
processed.  A model that cannot be loaded stops before any image, with one line naming the file
(status 2).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.errors import RefereeError
from referee.vision.detections import Image
from referee.vision.pipeline import FramePipeline


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (jpg, png, ...)")
    parser.add_argument("--deck", choices=("italian", "french"), required=True)
    parser.add_argument("--models", default=None, help="model folder (default: the committed models/)")
    parser.add_argument("--threads", type=int, default=1, help="classifier threads (default 1)")
    parser.add_argument("--enrollment", default=None, help="the club's deck, from `referee enroll` (.npz)")
    parser.add_argument("--max-width", type=_width, default=1280, help="analysis width (default 1280, at least 64)")
    parser.add_argument("--min-confidence", type=float, default=0.3)


def _width(text: str) -> int:
    """``--max-width``: a whole number of pixels wide enough to find a card in."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of pixels, got {text!r}") from None
    if value < 64:
        raise argparse.ArgumentTypeError(f"expected at least 64 pixels, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    from referee.recognition import CardClassifier  # lazy: onnxruntime start-up is not free

    classifier = CardClassifier.load(args.deck, model_dir=args.models, threads=args.threads,
                                     enrollment=args.enrollment)
    pipeline = FramePipeline.create(classifier)
    pipeline.min_confidence = args.min_confidence
    w, h = classifier.input_size
    classifier.classify([np.zeros((h, w, 3), np.uint8)])  # warm up: the first run is slow, not the frame
    status = 0
    for path in args.images:
        result = detect_file(pipeline, path, args.max_width)
        status = 1 if "error" in result else status
        print(json.dumps(result), flush=True)
    return status


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

