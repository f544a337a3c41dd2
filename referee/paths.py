"""Where data lives: the shared data folder (``$REFEREE_SHARED`` or ``../shared`` beside the
checkout), the committed models, and the small asset set bundled inside the package."""

from __future__ import annotations

import os
import sys
import sysconfig
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


#: where a wheel (``pip install .``) puts the models, under an install scheme's data root
#: (pyproject.toml, ``[tool.setuptools.data-files]``)
INSTALLED_MODELS = Path("share") / "card-referee" / "models"


def models_dir() -> Path:
    """Folder of the ONNX models: ``$REFEREE_MODELS``; else the checkout's ``models/`` when the
    code runs from one (also an editable install); else where a wheel installed them
    (``<prefix>/share/card-referee/models``), that folder named even when it is missing."""
    env = os.environ.get("REFEREE_MODELS")
    if env:
        return Path(env)
    if (REPO_ROOT / "pyproject.toml").is_file():
        return REPO_ROOT / "models"
    roots = installed_data_roots()
    return next((root / INSTALLED_MODELS for root in roots if (root / INSTALLED_MODELS).is_dir()),
                roots[0] / INSTALLED_MODELS)


def installed_data_roots() -> list[Path]:
    """The data roots a wheel's data files may have gone to: this environment's, then the
    user's (``pip install --user``)."""
    roots = [sysconfig.get_path("data"), sysconfig.get_path("data", f"{os.name}_user"), sys.prefix]
    return list(dict.fromkeys(Path(root) for root in roots))
