"""A non-editable install (``pip install .``) carries the recogniser's models, and the code finds
them there as it finds the checkout's ``models/``."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from referee import paths
from referee.paths import INSTALLED_MODELS, REPO_ROOT, models_dir
from referee.recognition.model_info import model_paths

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def test_the_wheel_carries_every_file_the_recogniser_loads() -> None:
    data_files: dict[str, list[str]] = PYPROJECT["tool"]["setuptools"]["data-files"]
    globs = data_files[INSTALLED_MODELS.as_posix()]
    for deck in ("italian", "french"):
        for path in model_paths(deck, REPO_ROOT / "models"):
            assert path.is_file(), path
            name = path.relative_to(REPO_ROOT).as_posix()
            assert any(fnmatch.fnmatch(name, g) for g in globs), f"{name} is left out of the wheel"


def test_a_checkout_reads_its_own_models_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFEREE_MODELS", raising=False)
    assert models_dir() == REPO_ROOT / "models"
    monkeypatch.setenv("REFEREE_MODELS", "/somewhere/else")
    assert models_dir() == Path("/somewhere/else")


def test_an_installed_package_reads_the_models_its_wheel_put_under_the_data_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFEREE_MODELS", raising=False)
    site = tmp_path / "venv" / "lib" / "site-packages"  # no pyproject.toml beside the code
    site.mkdir(parents=True)
    env_root, user_root = tmp_path / "venv", tmp_path / "user"
    monkeypatch.setattr(paths, "REPO_ROOT", site)
    monkeypatch.setattr(paths, "installed_data_roots", lambda: [env_root, user_root])
    # none installed: the environment's folder is named, so an error says where they belong
    assert models_dir() == env_root / "share" / "card-referee" / "models"
    (user_root / INSTALLED_MODELS).mkdir(parents=True)
    assert models_dir() == user_root / INSTALLED_MODELS  # pip install --user
    (env_root / INSTALLED_MODELS).mkdir(parents=True)
    assert models_dir() == env_root / INSTALLED_MODELS


@pytest.mark.slow
def test_pip_install_of_the_wheel_loads_both_models_without_a_checkout(tmp_path: Path) -> None:
    src = tmp_path / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "HISTORY.md")
    for part in ("referee", "models"):
        shutil.copytree(REPO_ROOT / part, src / part, ignore=skip)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO_ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    built = subprocess.run([*pip, "wheel", str(src), "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist")],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"cannot build a wheel offline here: {built.stderr[-300:]}")
    wheel = next((tmp_path / "dist").glob("card_referee-*.whl"))
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    env_python = env / "bin" / "python"
    # the new environment's own pip, seeing nothing else: this one's pip would first uninstall
    # the card-referee it finds installed here (the checkout's editable install)
    isolated = {**os.environ, "PYTHONPATH": "", "PYTHONNOUSERSITE": "1"}
    subprocess.run([str(env_python), "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-deps",
                    "--no-index", str(wheel)], check=True, env=isolated)
    # the dependencies (numpy, onnxruntime ...) from this environment, after the new one's own
    deps = [p for p in sys.path if p.endswith("site-packages")]
    code = ("import referee, referee.paths as p; from referee.recognition import CardClassifier; "
            "[CardClassifier.load(d) for d in ('italian', 'french')]; print(referee.__file__); print(p.models_dir())")
    run = subprocess.run([str(env_python), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(deps), "REFEREE_MODELS": ""})
    assert run.returncode == 0, run.stderr
    package_file, models = run.stdout.split()
    assert package_file.startswith(str(env)) and models == str(env / INSTALLED_MODELS)
