"""No data file is ever unpickled: a crafted ``.npz`` (calibration crops, a benchmark's crops, an
enrollment) that would run code when loaded with ``allow_pickle=True`` is refused by name, and no
code on a data path loads with pickle."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from recognition.benchmark_module import load_benchmark
from referee.errors import ConfigError, ModelError
from referee.paths import REPO_ROOT
from referee.recognition.calibration import _sim_crops
from referee.recognition.enrollment import Enrollment


class Payload:
    """Unpickling this creates ``marker`` (it calls ``open(marker, "w")``): any code could run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def _crafted(path: Path, marker: Path) -> Path:
    rows = np.empty((1, 4), dtype=object)
    rows[0] = [Payload(marker), "p/x", "AS", 0.0]
    np.savez(path, images=np.zeros((1, 96, 64, 3), np.uint8), rows=rows, finder_errors=np.zeros(1))
    return path


def test_a_crafted_calibration_crops_file_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = _crafted(tmp_path / "crops.npz", marker)
    with pytest.raises(ConfigError, match=rf"calibration crops file {path}: array 'rows' holds Python "
                       "objects, which are never unpickled"):
        _sim_crops(path, ["AS", "back"])
    assert not marker.exists()


def test_a_crafted_enrollment_file_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "club.npz"
    codes = np.empty(1, dtype=object)
    codes[0] = Payload(marker)
    np.savez(path, deck="french", codes=codes, prototypes=np.zeros((1, 4), np.float32), model_sha256="0" * 64,
             weight=0.5, scale=20.0)
    with pytest.raises(ModelError, match="array 'codes' holds Python objects"):
        Enrollment.load(path)
    assert not marker.exists()



def test_the_benchmarks_crops_round_trip_without_pickle_and_a_crafted_one_is_refused(tmp_path: Path) -> None:
    crops_type = load_benchmark("recognition_sim").Crops
    crops = crops_type([np.full((96, 64, 3), 7, np.uint8)] * 2, [("true", "p/x", "AS", 0.25), ("finder", "p/y", "back", 0.0)],
                       [1.5])
    crops.save(tmp_path / "french.npz")
    again = crops_type.load(tmp_path / "french.npz")
    assert again.rows == crops.rows and again.finder_errors == [1.5] and len(again.images) == 2
    # the calibration reads the same file
    images, truth, groups = _sim_crops(tmp_path / "french.npz", ["AS", "back"])
    assert len(images) == 2 and truth.tolist() == [0, 1] and groups == ["sim-true:p/x", "sim-finder:p/y"]
    marker = tmp_path / "pwned"
    with pytest.raises(ConfigError, match="holds Python objects"):
        crops_type.load(_crafted(tmp_path / "italian.npz", marker))
    assert not marker.exists()


UNSAFE = re.compile(r"allow_pickle\s*=\s*True|\bpickle\.loads?\(|\bjoblib\.load\(|\bshelve\.open\(|"
                    r"torch\.load\((?![^)]*weights_only\s*=\s*True)")


def test_no_code_on_a_data_path_unpickles() -> None:
    users = {str(p.relative_to(REPO_ROOT)) for folder in ("referee", "benchmarks")
             for p in (REPO_ROOT / folder).rglob("*.py") if UNSAFE.search(p.read_text(encoding="utf-8"))}
    assert users == set()
