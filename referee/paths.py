"""Where data lives: the shared data folder (``$REFEREE_SHARED`` or ``../shared`` beside the
checkout), the committed models, and the small asset set bundled inside the package."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from referee.errors import RefereeError

REPO_ROOT = Path(__file__).resolve().parent.parent
#: card faces and their licences shipped inside the package, so the demo and the tests run
#: from a fresh clone (see ``referee/vision/assets/PROVENANCE.md``)
BUNDLED_ASSETS = Path(__file__).resolve().parent / "vision" / "assets"


class SharedDataMissing(RefereeError, FileNotFoundError):
    """The shared data folder (or a part of it) that training or a benchmark needs is absent."""


def shared_dir() -> Path:
    """The shared data folder (rule documents, faces, textures, photos); read by path, never copied."""
    env = os.environ.get("REFEREE_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def require_shared(needed_by: str, part: str = "", root: Path | None = None) -> Path:
    """``root`` (default :func:`shared_dir`), or :class:`SharedDataMissing` when it, or its
    sub-folder ``part``, is absent: the message names the path, who needs it and what to do."""
    base = root if root is not None else shared_dir()
    wanted = base / part if part else base
    if not wanted.is_dir():
        where = "REFEREE_SHARED" if os.environ.get("REFEREE_SHARED") else "the default ../shared"
        raise SharedDataMissing(
            f"{needed_by} needs the shared data folder: {wanted} is missing ({where}). Put the "
            f"shared folder (rule documents, faces/, photos/) beside the checkout as ../shared, "
            f"or set REFEREE_SHARED=/path/to/shared. The demo and the tests run without it.")
    return base


def exit_without_shared(script: str, part: str = "") -> Path:
    """For benchmark scripts: :func:`require_shared`, or its message on stderr and exit status 2
    (a missing data folder is the user's to fix, not a traceback to read)."""
    try:
        return require_shared(script, part)
    except SharedDataMissing as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None


def models_dir() -> Path:
    """Folder of the committed ONNX models (``$REFEREE_MODELS`` overrides)."""
    env = os.environ.get("REFEREE_MODELS")
    return Path(env) if env else REPO_ROOT / "models"
