"""The committed recipes still build the training sets their models were trained on.

Options no adopted recipe used (court swap, pip scaling, extra kinds of negatives, other input
sizes and network shapes) left the product; what each committed model's training exercised,
defaults included, stays. The digests below were taken with the code the committed models were
trained with: a small set (each training set's first print, one crop per face, 16 'back'
crops) rendered with exactly the options ``referee train --recipe`` hands the renderer, and the
cache names of the full sets, so sets cached before keep being found. Both depend only on the
recipe, the faces in ``../shared`` and the numpy/OpenCV builds the ``train`` extra pins (the
renderer is seeded per sample, so the worker count does not matter).

Regression (2 Dec): OpenCV 5.1.0.95 reached PyPI and renders other bytes than 5.0.0.93, the build
the committed models were trained with; the unpinned install failed this test in CI.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.paths import REPO_ROOT

MODELS = REPO_ROOT / "models"

#: deck -> (training, table-style, validation) set cache names, as the committed models' runs named them
CACHE_NAMES = {
    "italian": ("italian-3d8418fc5ebf.npz", "italian-a8bc91bf08ce.npz", "italian-13ad5e8a6752.npz"),
    "french": ("french-a513cf10b6d0.npz", "french-1ccdd03907fa.npz", "french-c125aa5a5764.npz"),
}
#: deck -> sha256 of (images, labels, set ids) of the small training and table-style sets
DIGESTS = {
    "italian": ("b5d43199d48470f68c0aff06f08ef7f2467993501a4e89793a8db295566618a0",
                "613284b28f026ae1a74dcf78a16c66947d6e4583254487731e89fe8cb91e4233"),
    "french": ("94a8e4e403860de755ce7bfb521a205690bb0d18a24ff8af423b5d2c18e8f75e",
               "2ed0f8c7a04f93bfbe4b7b1a5df21432429c1350a6d9e1f7efea061c68852f06"),
}


class _Named(Exception):
    """Stops a training run once it has asked for its three sets."""


def _sets_asked(deck: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[Any, ...]]:
    """(family, prints, per_face, seed, options) of each set ``referee train --recipe`` renders."""
    torch = pytest.importorskip("torch")
    from referee.cli import main
    from referee.recognition import train
    from referee.recognition.dataset import SynthSet

    asked: list[tuple[Any, ...]] = []

    def record(cache: Path, family: str, sets: list[str], per_face: int, seed: int, **kw: Any) -> SynthSet:
        kw.pop("progress", None), kw.pop("root", None), kw.pop("workers", None)
        asked.append((family, list(sets), per_face, seed, kw))
        if len(asked) == 3:
            raise _Named
        return SynthSet(np.zeros((1, 96, 64, 3), np.uint8), np.zeros(1, np.int64), np.zeros(1, np.int64), tuple(sets))

    monkeypatch.setattr(train, "cached_set", record)
    monkeypatch.setattr(train, "join_sets", lambda a, b: a)
    threads = torch.get_num_threads()
    try:
        with pytest.raises(_Named):
            main(["train", "--recipe", str(MODELS / f"{deck}.recipe.toml"), "--out", str(tmp_path / "m"),
                  "--cache", str(tmp_path / "c"), "--quiet"])
    finally:
        torch.set_num_threads(threads)
    return asked


@pytest.mark.shared("faces")
@pytest.mark.parametrize("deck", ["italian", "french"])
def test_the_recipe_keeps_the_cache_names_of_the_committed_models_sets(
        deck: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from referee.recognition.dataset import cache_name

    asked = _sets_asked(deck, monkeypatch, tmp_path)
    assert tuple(cache_name(f, s, n, seed, **kw) for f, s, n, seed, kw in asked) == CACHE_NAMES[deck]


@pytest.mark.slow
@pytest.mark.shared("faces")
@pytest.mark.parametrize("deck", ["italian", "french"])
def test_the_recipe_renders_the_same_bytes_as_when_its_model_was_trained(
        deck: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from referee.recognition.dataset import render_set

    asked = _sets_asked(deck, monkeypatch, tmp_path)
    digests = []
    for family, sets, _, seed, kw in asked[:2]:  # training and table-style; validation renders plain
        data = render_set(family, sets[:1], 1, seed, back_count=16, workers=1, **kw)
        digests.append(hashlib.sha256(data.images.tobytes() + data.labels.tobytes() + data.set_ids.tobytes()).hexdigest())
    assert tuple(digests) == DIGESTS[deck], (
        f"rendered with OpenCV {cv2.__version__} and numpy {np.__version__}; the digests were taken with"
        f" the builds pinned in pyproject's train extra")
