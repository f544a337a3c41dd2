"""``referee detect --deck italian|french IMAGE...`` (or ``--game NAME``): one JSON object per
image on stdout.

    {"image": "a.jpg", "cards": [{"card": "coppe_3", "confidence": 0.98,
     "quad": [[x, y], [x, y], [x, y], [x, y]]}], "ms": 12.3}

Face-down cards are omitted; quads are in the image's own pixels.  Runs
:class:`referee.vision.pipeline.FramePipeline`, the code of the live loop.  Large photos are
analysed at ``--max-width`` (default 1280, the camera's analysis size) and the quads scaled
back.  An unreadable image, or one the pipeline refuses (too small to hold a card), gives
``{"image": ..., "error": "..."}`` and exit status 1 at the end; the other images are still
processed.  A model that cannot be loaded stops before any image, with one line naming the file
(status 2).

``--game NAME`` (briscola-2, briscola-4, briscola-chiamata, belotta, binocolo) reads the photo
as that game's cards: the game's deck gives the recogniser (``--deck``), how many of each card
the deck holds (``--copies``) and the faces read (belotta: no 2-6; binocolo: 9 to ace only; see
:mod:`referee.recognition.game_faces`).  A ``--deck`` or ``--copies`` that contradicts the game
is an error (status 2).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from referee.errors import ConfigError
from referee.recognition.game_faces import GameFaces
from referee.rules.game import GAME_CLASSES
from referee.vision.detect import detect_file
from referee.vision.pipeline import FramePipeline


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (jpg, png, ...)")
    parser.add_argument("--deck", choices=("italian", "french"), default=None,
                        help="the recogniser's deck family (required unless --game gives it)")
    parser.add_argument("--game", choices=tuple(GAME_CLASSES), default=None,
                        help="read only this game's cards (its deck's faces; implies --deck and --copies)")
    parser.add_argument("--models", default=None, help="model folder (default: the committed models/)")
    parser.add_argument("--threads", type=int, default=1, help="classifier threads (default 1)")
    parser.add_argument("--enrollment", default=None, help="the club's deck, from `referee enroll` (.npz)")
    parser.add_argument("--max-width", type=_width, default=1280, help="analysis width (default 1280, at least 64)")
    parser.add_argument("--min-confidence", type=float, default=0.3)
    parser.add_argument("--copies", type=int, choices=(1, 2), default=None,
                        help="how many of each card the deck holds (2: binocolo's 48 cards, a pinochle deck); "
                        "with 1, the same card read twice where two reads overlap is one card "
                        "(default: the game's, else 1)")


def _width(text: str) -> int:
    """``--max-width``: a whole number of pixels wide enough to find a card in."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of pixels, got {text!r}") from None
    if value < 64:
        raise argparse.ArgumentTypeError(f"expected at least 64 pixels, got {value}")
    return value


def deck_of(args: argparse.Namespace) -> tuple[str, int, GameFaces | None]:
    """(deck family, copies, the game's faces or None) from ``--deck``, ``--copies`` and
    ``--game``; a ``--deck`` or ``--copies`` the game contradicts is a ConfigError naming both."""
    if args.game is None:
        if args.deck is None:
            raise ConfigError("give --deck italian|french, or --game NAME (the game's deck)")
        return args.deck, 1 if args.copies is None else args.copies, None
    game = GameFaces.of(args.game)
    if args.deck is not None and args.deck != game.family:
        raise ConfigError(f"--deck {args.deck} contradicts --game {args.game}, played with a {game.family} deck "
                          f"(leave --deck out: the game gives it)")
    if args.copies is not None and args.copies != game.copies:
        raise ConfigError(f"--copies {args.copies} contradicts --game {args.game}, whose deck holds "
                          f"{game.copies} of each card (leave --copies out: the game gives it)")
    return game.family, game.copies, game


def run(args: argparse.Namespace) -> int:
    from referee.recognition import CardClassifier  # lazy: onnxruntime start-up is not free

    family, copies, game = deck_of(args)
    classifier = CardClassifier.load(family, model_dir=args.models, threads=args.threads,
                                     enrollment=args.enrollment, game=game)
    pipeline = FramePipeline.create(classifier)
    pipeline.min_confidence = args.min_confidence
    pipeline.copies = copies
    w, h = classifier.input_size
    classifier.classify([np.zeros((h, w, 3), np.uint8)])  # warm up: the first run is slow, not the frame
    status = 0
    for path in args.images:
        result = detect_file(pipeline, path, args.max_width)
        status = 1 if "error" in result else status
        print(json.dumps(result), flush=True)
    return status
