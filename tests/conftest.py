"""Test-wide markers: ``shared`` (needs a part of ``../shared``) and ``slow``.

``@pytest.mark.shared("faces")`` (or ``"photos/<set>"``, or no argument for the folder itself)
skips a test, naming the missing folder and how to provide it, when that part of the shared
data folder (``$REFEREE_SHARED`` or ``../shared`` beside the checkout) is absent. Everything
else runs from a fresh clone: the simulator falls back to the faces bundled in the package and
draws its cloths. ``@pytest.mark.slow`` marks the longest tests; they stay in the default run
(``pytest -m "not slow"`` leaves them out for a quick loop).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.paths import models_dir, shared_dir


def shared_missing(part: str = "") -> str | None:
    """Why a test needing ``part`` of the shared folder cannot run, or None when it can."""
    wanted = shared_dir() / part if part else shared_dir()
    if wanted.exists():
        return None
    return (f"needs {wanted}: put the shared data folder beside the checkout as ../shared "
            f"or set REFEREE_SHARED")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for mark in item.iter_markers("shared"):
            why = shared_missing(*mark.args)
            if why is not None:
                item.add_marker(pytest.mark.skip(reason=why))
                break


@pytest.fixture(scope="session")
def need_shared() -> Callable[[str], Path]:
    """For fixtures and tests that find out late what they need: ``need_shared("faces")`` is
    that folder's path, or skips with the same reason as the ``shared`` marker."""

    def need(part: str = "") -> Path:
        why = shared_missing(part)
        if why is not None:
            pytest.skip(why)
        return shared_dir() / part if part else shared_dir()

    return need


@pytest.fixture
def copy_models(tmp_path: Path) -> Callable[..., Path]:
    """``copy_models("french", ...)``: a folder holding copies of those committed models (their
    ``.onnx`` and ``.json``), to damage; skips when one is not committed."""

    def copy(*decks: str) -> Path:
        folder = tmp_path / "models"
        folder.mkdir(exist_ok=True)
        for deck in decks:
            if not (models_dir() / f"{deck}.onnx").exists():
                pytest.skip(f"no committed {deck} model")
            for ext in (".onnx", ".json"):
                shutil.copy(models_dir() / f"{deck}{ext}", folder / f"{deck}{ext}")
        return folder

    return copy
