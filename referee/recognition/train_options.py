"""What a training run is asked to do, as one typed value: :class:`TrainOptions`.

The command line (``referee/cli/train.py``) and a recipe file (:mod:`referee.recognition.recipe`)
fill it in; the training code (:mod:`referee.recognition.train`) takes nothing else. Its fields
are ``referee train``'s options, named as the options without their dashes. Most say what a
model is made from and how (a recipe's keys); :data:`RUN_FIELDS` say where a run reads and
writes and how it reports, and stay on the command line. A value out of range is a
:class:`~referee.errors.ConfigError` naming the option, raised when the options are made, before
anything is rendered or written.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.paths import REPO_ROOT

#: ``memory_format`` choices. The layout changes the float rounding of the convolutions, so a
#: run replays bit for bit only with the layout (and thread count) it was made with.
MEMORY_FORMATS = ("channels_last", "contiguous")
#: where rendered sets are cached unless ``cache`` says otherwise
DEFAULT_CACHE = REPO_ROOT / "build" / "recognition"
#: fields that say where a run reads and writes, or how it reports: never part of a recipe
RUN_FIELDS = frozenset({"out", "cache", "shared", "quiet", "recalibrate", "snapshot_minutes"})


def _choices(*values: str) -> Any:
    return {"choices": values}


@dataclass(frozen=True)
class TrainOptions:
    """One ``referee train`` run. Defaults are the committed models' unless their recipe says otherwise."""

    #: the recogniser's deck: ``italian`` or ``french``
    deck: str = field(metadata=_choices(*sorted(RECOGNISER_LABELS)))
    #: wall-clock budget, all included; the step count is fitted to it (``steps`` overrides)
    minutes: float = 60.0
    #: exact number of steps (replays a run's schedule)
    steps: int | None = None
    seed: int = 0
    #: synthetic training crops (cached)
    samples: int = 60000
    #: extra crops of cards among other cards, cut as the table pipeline cuts them
    table_samples: int = 0
    #: probability that a training face is drawn as another print of its pattern
    print_variation: float = 0.0
    #: with ``print_variation``: the other cards in a sample and the backs vary too
    vary_others: bool = False
    #: share of each batch of real crops (french: the pinochle photos; italian: ``real_decks``)
    real_photos: float = 0.0
    #: italian, with ``real_photos``: the real Napoletane decks trained on
    real_decks: tuple[str, ...] = ()
    #: prints held out for validation (None: the model card's; empty: train on everything)
    holdout: tuple[str, ...] | None = None
    val_per_face: int = 24
    batch: int = 128
    lr: float = 4e-3
    #: torch threads (and render workers unless ``workers``)
    threads: int = 2
    workers: int | None = None
    memory_format: str = field(default="channels_last", metadata=_choices(*MEMORY_FORMATS))
    #: sets the softmax temperature is fitted on instead of the held-out prints' validation crops
    calibrate_on: tuple[str, ...] = ()
    #: sets whose calibration is reported in the JSON but not fitted on
    report_on: tuple[str, ...] = ()
    calibration_per_face: int = 24
    # where a run reads and writes, and how it reports (RUN_FIELDS)
    #: output folder (None: models/)
    out: Path | None = None
    cache: Path = DEFAULT_CACHE
    #: shared data folder (None: ../shared or $REFEREE_SHARED)
    shared: Path | None = None
    #: also export an interim model to <cache>/snapshots every N minutes (0: never)
    snapshot_minutes: float = 0.0
    #: do not train: refit the temperature of the model in this folder on ``calibrate_on``
    recalibrate: Path | None = None
    quiet: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            choices = f.metadata.get("choices")
            if choices is not None and getattr(self, f.name) not in choices:
                raise ConfigError(f"{option(f.name)} {getattr(self, f.name)!r}: expected one of {', '.join(choices)}")
        for name in ("samples", "val_per_face", "batch", "threads", "calibration_per_face"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{option(name)} {getattr(self, name)}: expected at least 1")
        for name in ("steps", "workers"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"{option(name)} {value}: expected at least 1")
        for name in ("table_samples", "minutes", "snapshot_minutes"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{option(name)} {getattr(self, name)}: expected 0 or more")
        if not self.lr > 0:
            raise ConfigError(f"--lr {self.lr}: expected a learning rate above 0")
        if not 0 <= self.print_variation <= 1:
            raise ConfigError(f"--print-variation {self.print_variation}: expected a probability in 0-1")
        if self.vary_others and not self.print_variation:
            raise ConfigError("--vary-others needs --print-variation P (P > 0)")
        self._check_real_photos()

    def _check_real_photos(self) -> None:
        """``real_photos`` and ``real_decks`` (the decks' names are checked against the photos by
        the training code, which knows where they are)."""
        if self.real_photos == 0:
            if self.real_decks:
                raise ConfigError("--real-decks: needs --real-photos SHARE (the share of the batch)")
            return
        if not 0 < self.real_photos < 1:
            raise ConfigError(f"--real-photos {self.real_photos}: expected a share of the batch in 0-1")
        if (self.deck == "italian") != bool(self.real_decks):
            raise ConfigError("--real-photos: the italian deck trains on --real-decks DECK..., the french deck on the "
                              "pinochle photos (--real-decks is italian only)")

    @property
    def render_workers(self) -> int:
        """Processes that render the synthetic sets."""
        return self.workers or self.threads

    @property
    def real_per_batch(self) -> int:
        """Real crops added to each batch of synthetic ones (at least one; used with ``real_photos``)."""
        return max(1, round(self.real_photos * self.batch))


def option(name: str) -> str:
    """The command-line option that sets field ``name``: ``table_samples`` -> ``--table-samples``."""
    return "--" + name.replace("_", "-")


def default(name: str) -> Any:
    """Field ``name``'s default (for help texts)."""
    return next(f.default for f in fields(TrainOptions) if f.name == name)


def choices(name: str) -> tuple[str, ...] | None:
    """The values field ``name`` may take, when it names them."""
    found: tuple[str, ...] | None = next(f.metadata.get("choices") for f in fields(TrainOptions) if f.name == name)
    return found


def recipe_fields() -> dict[str, Any]:
    """The fields a recipe may set, each with its type (every field but :data:`RUN_FIELDS`)."""
    import typing

    hints = typing.get_type_hints(TrainOptions)
    return {f.name: hints[f.name] for f in fields(TrainOptions) if f.name not in RUN_FIELDS}
