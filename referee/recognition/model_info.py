"""The JSON written beside each ONNX model: labels, input contract, calibration, provenance."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.cards import RECOGNISER_LABELS
from referee.errors import ModelError


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
        if info.temperature <= 0:
            raise ModelError(f"{path}: temperature must be > 0, got {info.temperature}")
        return info


_KEYS = frozenset({"deck", "labels", "input_size", "input", "mean", "std", "temperature",
                   "embedding_dim", "onnx_sha256"})
