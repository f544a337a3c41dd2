"""``referee train``: render the synthetic set, train the CNN on the CPU, export ONNX + JSON.

    referee train --recipe models/italian.recipe.toml --out DIR     # replay a committed model
    referee train --deck italian --out models/ --minutes 60 --seed 0

The step count is fitted to ``--minutes`` after timing the first steps and recorded in the
JSON; ``--steps N`` replays exactly that schedule (same seed -> same model on the same torch
build and thread count). The options are
:class:`~referee.recognition.train_options.TrainOptions`' fields (their defaults are there); a
``--recipe`` file gives the same fields as data (:mod:`referee.recognition.recipe`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from referee.recognition.train_options import MEMORY_FORMATS, TrainOptions, default


def _d(name: str) -> str:
    return f"(default {default(name)})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # Every default is SUPPRESS: only what the command line gives reaches TrainOptions (which
    # holds the defaults), so an option given both here and in the recipe is told apart.
    parser.argument_default = argparse.SUPPRESS
    add = parser.add_argument
    add("--recipe", type=Path, metavar="FILE",
        help="a recipe file (TOML, e.g. models/italian.recipe.toml) giving the options below; the command line "
             "adds --out, --cache, --shared")
    what = parser.add_argument_group("what the model is made from (recipe keys: the option without its dashes)")
    what.add_argument("--deck", choices=("italian", "french"), help="the recogniser's deck (required, here or in --recipe)")
    what.add_argument("--samples", type=int, metavar="N", help=f"synthetic training crops (cached) {_d('samples')}")
    what.add_argument("--table-samples", type=int, metavar="N",
                      help=f"extra crops of cards among other cards, cut as the table pipeline cuts them {_d('table_samples')}")
    what.add_argument("--print-variation", type=float, metavar="P",
                      help="probability that a training face is drawn as another print of its pattern (ink shades, "
                           f"line weight, a slightly redrawn figure; referee/recognition/print_style.py) {_d('print_variation')}")
    what.add_argument("--vary-others", action="store_true",
                      help="with --print-variation: the other cards in a sample (neighbours, occluders, the card a "
                           "'back' crop shows the edge of) and the card backs come from varied prints half the time "
                           "too, so a varied print is no sign of a card")
    what.add_argument("--real-photos", type=float, metavar="SHARE",
                      help="add this share (of --batch) of real crops to every batch: french, the training half of the "
                           "Apache-2.0 pinochle photos (rank-only labels; the other half stays held out); italian, the "
                           f"--real-decks {_d('real_photos')}")
    what.add_argument("--real-decks", nargs="+", metavar="DECK",
                      help="italian only, with --real-photos: train on the photos of these real Napoletane decks "
                           "(CC BY 4.0; e.g. deck01 deck02), the others stay unseen (referee/recognition/real_decks.py)")
    what.add_argument("--holdout", nargs="*", metavar="PRINT",
                      help="prints held out for validation, e.g. omerkel_scopa_commons/napoletane (default: the model "
                           "card's; give none to train on everything)")
    how = parser.add_argument_group("how it is fitted (recipe keys too)")
    how.add_argument("--minutes", type=float, metavar="MIN", help=f"wall-clock budget, all included {_d('minutes')}")
    how.add_argument("--steps", type=int, metavar="N", help="exact number of steps (overrides --minutes; replays a run)")
    how.add_argument("--seed", type=int, metavar="N", help=_d("seed"))
    how.add_argument("--batch", type=int, metavar="N", help=_d("batch"))
    how.add_argument("--lr", type=float, metavar="LR", help=f"peak learning rate {_d('lr')}")
    how.add_argument("--threads", type=int, metavar="N", help=f"torch threads (and render workers) {_d('threads')}")
    how.add_argument("--workers", type=int, metavar="N", help="render processes (default: --threads)")
    how.add_argument("--memory-format", choices=MEMORY_FORMATS,
                     help="tensor layout while fitting: channels_last trains this network ~1.6x faster on one CPU "
                          "thread and ~2.4x on two (models/HISTORY.md); contiguous replays runs made with it "
                          f"{_d('memory_format')}")
    how.add_argument("--val-per-face", type=int, metavar="N", help=f"validation crops per held-out face {_d('val_per_face')}")
    how.add_argument("--calibrate-on", nargs="+", metavar="SET",
                     help="fit the softmax temperature on these sets instead of the held-out prints' validation "
                          "crops: PRINT, table:PRINT or crops:FILE.npz (see referee/recognition/calibration.py)")
    how.add_argument("--report-on", nargs="*", metavar="SET",
                     help="sets whose calibration is reported in the JSON but not fitted on")
    how.add_argument("--calibration-per-face", type=int, metavar="N",
                     help=f"rendered crops per face of a calibration set {_d('calibration_per_face')}")
    where = parser.add_argument_group("where it reads and writes (command line only)")
    where.add_argument("--out", type=Path, metavar="DIR", help="output folder (default: models/)")
    where.add_argument("--cache", type=Path, metavar="DIR", help=f"rendered sets' cache {_d('cache')}")
    where.add_argument("--shared", type=Path, metavar="DIR", help="shared data folder (default ../shared or $REFEREE_SHARED)")
    where.add_argument("--snapshot-minutes", type=float, metavar="MIN",
                       help="also export an interim model to <cache>/snapshots every N minutes (default: never)")
    where.add_argument("--recalibrate", type=Path, metavar="MODEL_DIR",
                       help="do not train: refit the temperature of the model in MODEL_DIR on --calibrate-on and "
                            "write it to --out (default: in place)")
    where.add_argument("--quiet", action="store_true")


def options(args: argparse.Namespace) -> TrainOptions:
    """The run's options: what the command line gives, with ``--recipe``'s filled in."""
    from referee.recognition.recipe import with_recipe

    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in vars(args).items()
                             if k not in ("command", "recipe")}
    return with_recipe(given, getattr(args, "recipe", None))


def run(args: argparse.Namespace) -> int:
    from referee.recognition.train import recalibrate, train

    chosen = options(args)
    if chosen.recalibrate is not None:
        recalibrate(chosen)
    else:
        train(chosen)
    return 0
