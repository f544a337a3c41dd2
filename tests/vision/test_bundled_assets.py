"""The faces bundled in the package stand in for ``../shared`` on a fresh clone, and only then."""

from __future__ import annotations

import filecmp
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from referee.cards import FRENCH_52, ITALIAN_40
from referee.paths import (
    BUNDLED_ASSETS,
    SharedDataMissing,
    exit_without_shared,
    require_shared,
    shared_dir,
)
from referee.vision.simulator.assets import AssetError, back_sprite, face_file, face_sets
from referee.vision.simulator.random_scene import DEFAULT_FACE_SETS
from referee.vision.simulator.textures import GENERATED, make_texture


@pytest.fixture
def no_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    missing = tmp_path / "shared"
    monkeypatch.setenv("REFEREE_SHARED", str(missing))
    back_sprite.cache_clear()
    yield missing
    back_sprite.cache_clear()


def test_without_shared_the_default_sets_come_from_the_package(no_shared: Path) -> None:
    assert face_sets() == sorted(DEFAULT_FACE_SETS.values())
    assert face_sets("italian") == [DEFAULT_FACE_SETS["italian"]]
    for family, deck in (("italian", ITALIAN_40), ("french", FRENCH_52)):
        for card in deck:
            path = face_file(DEFAULT_FACE_SETS[family], card.code)
            assert path.is_relative_to(BUNDLED_ASSETS), path
    assert back_sprite(DEFAULT_FACE_SETS["french"]).size == (200, 280)  # the bundled back, not drawn


def test_a_set_that_is_not_bundled_names_the_missing_shared_folder(no_shared: Path) -> None:
    with pytest.raises(AssetError, match="REFEREE_SHARED") as err:
        face_file("beezlie_napoletane_digital/napoletane", "coppe_1")
    assert str(no_shared / "faces") in str(err.value)


def test_every_cloth_the_demo_and_tests_use_is_drawn_without_files(no_shared: Path) -> None:
    for name in (*GENERATED, "random"):
        cloth = make_texture(name, (64, 48), np.random.default_rng(0))
        assert cloth.shape == (48, 64, 3) and cloth.dtype == np.uint8
    with pytest.raises(AssetError, match="drawn cloths are check"):
        make_texture("legno", (64, 48), np.random.default_rng(0))


def test_training_and_benchmarks_name_the_missing_shared_folder_and_what_to_do(no_shared: Path) -> None:
    with pytest.raises(SharedDataMissing, match="set REFEREE_SHARED") as err:
        require_shared("referee train", "faces")
    assert "referee train" in str(err.value) and str(no_shared / "faces") in str(err.value)


def test_a_benchmark_without_the_shared_folder_exits_2_with_the_message(
        no_shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        exit_without_shared("benchmarks/vision_photos.py", "photos")
    assert done.value.code == 2
    assert "benchmarks/vision_photos.py needs" in capsys.readouterr().err


def test_bundled_sets_carry_their_licence_and_provenance() -> None:
    provenance = (BUNDLED_ASSETS / "PROVENANCE.md").read_text(encoding="utf-8")
    for face_set in DEFAULT_FACE_SETS.values():
        folder = BUNDLED_ASSETS / "faces" / face_set
        assert f"faces/{face_set}/" in provenance
        assert any(p.name.lower().startswith(("mit", "license")) for p in folder.parent.iterdir())
    images = [p for p in BUNDLED_ASSETS.rglob("*") if p.suffix in (".png", ".jpg")]
    assert sum(p.stat().st_size for p in images) < 3_000_000  # a few MB at most


@pytest.mark.shared("faces")
def test_the_bundled_italian_faces_are_the_shared_ones_unchanged() -> None:
    """So the demo's Italian deal renders the same with or without ``../shared``."""
    face_set = DEFAULT_FACE_SETS["italian"]
    bundled, shared = BUNDLED_ASSETS / "faces" / face_set, shared_dir() / "faces" / face_set
    names = sorted(p.name for p in bundled.glob("*.png"))
    assert len(names) == 40
    assert all(filecmp.cmp(bundled / n, shared / n, shallow=False) for n in names)
