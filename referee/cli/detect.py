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

import numpy as np

from referee.vision.detect import detect_file
from referee.vision.pipeline import FramePipeline


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (jpg, png, ...)")
    parser.add_argument("--deck", choices=("italian", "french"), required=True)
    parser.add_argument("--models", default=None, help="model folder (default: the committed models/)")
    parser.add_argument("--threads", type=int, default=1, help="classifier threads (default 1)")
    parser.add_argument("--enrollment", default=None, help="the club's deck, from `referee enroll` (.npz)")
    parser.add_argument("--max-width", type=_width, default=1280, help="analysis width (default 1280, at least 64)")
    parser.add_argument("--min-confidence", type=float, default=0.3)
    parser.add_argument("--copies", type=int, choices=(1, 2), default=1,
                        help="how many of each card the deck holds (2: binocolo's 48 cards, a pinochle deck); "
                        "with 1, the same card read twice where two reads overlap is one card (default 1)")


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
    pipeline.copies = args.copies
    w, h = classifier.input_size
    classifier.classify([np.zeros((h, w, 3), np.uint8)])  # warm up: the first run is slow, not the frame
    status = 0
    for path in args.images:
        result = detect_file(pipeline, path, args.max_width)
        status = 1 if "error" in result else status
        print(json.dumps(result), flush=True)
    return status
