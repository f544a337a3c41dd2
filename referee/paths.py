"""Where the shared data lives: ``$REFEREE_SHARED`` or ``../shared`` beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """The shared data folder (rule documents, faces, textures, photos); read by path, never copied."""
    env = os.environ.get("REFEREE_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def models_dir() -> Path:
    """Folder of the committed ONNX models (``$REFEREE_MODELS`` overrides)."""
    env = os.environ.get("REFEREE_MODELS")
    return Path(env) if env else REPO_ROOT / "models"
