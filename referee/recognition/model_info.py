"""The JSON written beside each ONNX model: labels, input contract, calibration, provenance."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.cards import RECOGNISER_LABELS
from referee.errors import ModelError
from referee.recognition.black_pips import PipVote
from referee.recognition.steady_rule import SteadyRule
from referee.recognition.views import VIEWS, check_views


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


SHA256_HEX = re.compile(r"[0-9a-f]{64}")
#: Sane bounds of a model's calibration and input normalisation (NaN fails every comparison).
TEMPERATURE_RANGE = (0.01, 100.0)
STD_RANGE = (1e-3, 1e3)
MAX_MEAN = 1e3


def model_paths(deck: str, model_dir: Path) -> tuple[Path, Path]:
    """(``<deck>.onnx``, ``<deck>.json``) in ``model_dir``."""
    return model_dir / f"{deck}.onnx", model_dir / f"{deck}.json"


@dataclass(frozen=True)
class ModelInfo:
    """What the runtime needs to know about a model besides its graph."""

    deck: str
    labels: tuple[str, ...]
    input_size: tuple[int, int]
    mean: float
    std: float
    temperature: float
    embedding_dim: int
    onnx_sha256: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def views(self) -> tuple[str, ...]:
        """The test-time views the runtime reads each crop in (:mod:`referee.recognition.views`;
        the JSON's ``"views"``, checked at load; none by default)."""
        return check_views(self.extra.get("views", []), "views")

    @property
    def still_floor(self) -> dict[str, float]:
        """Per card, how sure a single photo's read of it must be to count as a card (the JSON's
        ``"still_floor"``, checked at load; none by default). A class the model gives whatever it
        does not know (the French model: ``AS``, a big dark shape on light paper; the Italian one:
        ``denari_1``, a round shape on a light ground) reads non-cards surely, where its right
        reads are surer still (models/HISTORY.md, 2 and 3 Dec)."""
        return {str(k): float(v) for k, v in self.extra.get("still_floor", {}).items()}

    def black_pips(self, path: Path) -> PipVote | None:
        """The rule that reads a single photo's spade whose pips are clubs as the club
        (:mod:`referee.recognition.black_pips`; the JSON's ``"black_pips"``, checked at load;
        none by default)."""
        return PipVote.from_info(self.extra, path)

    def still_steady(self, path: Path) -> SteadyRule | None:
        """How a single photo's read is checked in boxes moved about it
        (:mod:`referee.recognition.steady_rule`; the JSON's ``"still_steady"``, checked at load;
        none by default)."""
        return SteadyRule.from_info(self.extra, path)

    def to_json(self) -> str:
        data = {
            "deck": self.deck,
            "labels": list(self.labels),
            "input_size": list(self.input_size),
            "input": "BGR uint8 crop -> resize to input_size (INTER_AREA when shrinking) -> RGB "
            "-> /255 -> (x - mean) / std -> NCHW float32",
            "mean": self.mean,
            "std": self.std,
            "temperature": self.temperature,
            "embedding_dim": self.embedding_dim,
            "onnx_sha256": self.onnx_sha256,
            **self.extra,
        }
        return json.dumps(data, indent=1) + "\n"

    @staticmethod
    def load(path: Path, deck: str) -> ModelInfo:
        """Read and check ``path``; a missing/garbled file or foreign labels raise ModelError."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            info = ModelInfo(
                deck=str(data["deck"]),
                labels=tuple(str(x) for x in data["labels"]),
                input_size=(int(data["input_size"][0]), int(data["input_size"][1])),
                mean=float(data["mean"]),
                std=float(data["std"]),
                temperature=float(data["temperature"]),
                embedding_dim=int(data["embedding_dim"]),
                onnx_sha256=str(data["onnx_sha256"]),
                extra={k: v for k, v in data.items() if k not in _KEYS},
            )
        except FileNotFoundError as exc:
            raise ModelError(f"model labels file not found: {path}") from exc
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise ModelError(f"corrupt model labels file {path}: {exc}") from exc
        if info.deck != deck or info.labels != RECOGNISER_LABELS[deck]:
            raise ModelError(f"{path}: labels are not those of the {deck!r} recogniser")
        info.check(path)
        return info

    def check(self, path: Path) -> None:
        """Values that would make the recogniser silently blind are refused, naming the key: a
        NaN, zero or vanishing ``temperature`` makes every probability NaN (so every crop reads
        as the first label) and a huge one makes them all equal; a NaN ``mean`` or a zero or
        vanishing ``std`` makes every input NaN or infinite. The ranges are far wider than any
        trained model's (temperature about 0.5-2, pixels 0..1)."""
        def bad(key: str, expected: str, got: object) -> ModelError:
            return ModelError(f"{path}: {key}: expected {expected}, got {got!r}")

        low, high = TEMPERATURE_RANGE
        if not low <= self.temperature <= high:
            raise bad("temperature", f"a number {low:g}..{high:g}", self.temperature)
        if not -MAX_MEAN <= self.mean <= MAX_MEAN:
            raise bad("mean", f"a number -{MAX_MEAN:g}..{MAX_MEAN:g}", self.mean)
        low, high = STD_RANGE
        if not low <= self.std <= high:
            raise bad("std", f"a number {low:g}..{high:g}", self.std)
        if self.embedding_dim < 1:
            raise bad("embedding_dim", "an integer >= 1", self.embedding_dim)
        if min(self.input_size) < 1:
            raise bad("input_size", "[width, height], each >= 1", list(self.input_size))
        try:
            check_views(self.extra.get("views", []), "views")
        except ValueError:
            raise bad("views", f"a list of distinct view names out of {', '.join(VIEWS)}", self.extra["views"]) from None
        floor = self.extra.get("still_floor", {})
        if not isinstance(floor, dict):
            raise bad("still_floor", "an object of card -> probability", floor)
        for card, value in floor.items():
            if card not in self.labels or card == "back":
                raise bad(f"still_floor.{card}", f"a card of the {self.deck} recogniser", card)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
                raise bad(f"still_floor.{card}", "a probability between 0 and 1", value)
        if self.extra.get("black_pips") is not None and self.deck != "french":
            raise bad("black_pips", "no block: clubs and spades are the French recogniser's", self.extra["black_pips"])
        self.black_pips(path)
        self.still_steady(path)
        if not SHA256_HEX.fullmatch(self.onnx_sha256):
            raise bad("onnx_sha256", "64 lowercase hex digits (the sha256 of the .onnx file)", self.onnx_sha256)


_KEYS = frozenset({"deck", "labels", "input_size", "input", "mean", "std", "temperature",
                   "embedding_dim", "onnx_sha256"})
