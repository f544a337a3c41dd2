"""``benchmarks/enroll_photos.py`` loaded as a module, for the tests that cut and name the real
EPFL photos exactly as its figures do."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_enroll_photos() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "enroll_photos.py"
    spec = importlib.util.spec_from_file_location("enroll_photos", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["enroll_photos"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
