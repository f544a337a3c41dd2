"""Court-picture swap: courts of indexed prints get another court's picture, nothing else changes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from recognition.fake_prints import KENNARD, write_french_print
from referee.recognition import court_swap as cs
from referee.recognition.dataset import cached_set, render_set

BELLOT = "bellot_svgcards_lgpl/french"
GENOVESI = "invido_regional_lowres/genovesi"


def _face(value: int, h: int = 320, w: int = 220) -> np.ndarray:
    """A noisy opaque face around grey level ``value`` (noise so that resizing shows)."""
    rng = np.random.default_rng(value)
    bgr = np.clip(rng.normal(value, 4, (h, w, 3)), 0, 255).astype(np.uint8)
    return np.dstack([bgr, np.full((h, w), 255, np.uint8)])


def _boxes(layout: cs.IndexLayout, w: int, h: int) -> list[tuple[int, int, int, int]]:
    return [cs._pixels(r, w, h) for r in layout.keep]


def test_swap_keeps_every_index_box_and_replaces_the_centre() -> None:
    face, donor = _face(30), _face(220)
    layout = cs.INDEXED[KENNARD]
    out = cs.swap_picture(face, layout, cs.picture_of(donor, BELLOT))
    assert out.shape == face.shape and out.dtype == np.uint8
    assert len(layout.keep) == 4  # Kennard prints the index in all four corners
    for x0, y0, x1, y1 in _boxes(layout, 220, 320):
        assert np.array_equal(out[y0:y1, x0:x1], face[y0:y1, x0:x1])
    assert abs(float(out[140:180, 90:130, :3].mean()) - 220) < 3  # the donor's picture
    assert float(face[140:180, 90:130, :3].mean()) < 40  # the input is left as it was


def test_index_boxes_sit_in_opposite_corners() -> None:
    tl, br = cs.INDEXED[BELLOT].keep
    assert tl[:2] == (0.0, 0.0) and br[2:] == (1.0, 1.0)
    assert br == pytest.approx((1 - tl[2], 1 - tl[3], 1.0, 1.0))


def _swapper(probability: float) -> cs.CourtSwapper:
    faces = {
        BELLOT: {"QS": _face(10), "KS": _face(60), "QH": _face(200), "5S": _face(240)},
        GENOVESI: {"JS": _face(100), "KH": _face(180)},
    }
    return cs.CourtSwapper(faces, probability)


def test_donors_are_courts_of_the_same_suit_only() -> None:
    swapper = _swapper(1.0)
    assert sorted(code for _, code, _ in swapper.donors["S"]) == ["JS", "KS", "QS"]  # no 5S
    means = set()
    for seed in range(40):
        out = swapper.maybe_swap(_face(10), BELLOT, "QS", np.random.default_rng(seed))
        assert out is not None
        means.add(round(float(out[150:170, 100:120, :3].mean()) / 10) * 10)
    assert means == {60, 100}  # KS of its own print or JS of another; never itself, never a heart


def test_pip_cards_and_prints_without_indices_are_left_alone() -> None:
    swapper = _swapper(1.0)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    assert swapper.maybe_swap(_face(240), BELLOT, "5S", rng) is None
    assert swapper.maybe_swap(_face(100), GENOVESI, "JS", rng) is None
    assert swapper.maybe_swap(_face(100), BELLOT, "coppe_8", rng) is None
    assert rng.bit_generator.state == before  # no draws: other samples render as before
    assert not cs.is_court("10S") and not cs.is_court("AS") and cs.is_court("KD")


@pytest.mark.slow
def test_swap_is_seeded_and_follows_its_probability() -> None:
    swapper = _swapper(0.5)
    a = [swapper.maybe_swap(_face(10), BELLOT, "QS", np.random.default_rng(s)) for s in range(200)]
    b = [swapper.maybe_swap(_face(10), BELLOT, "QS", np.random.default_rng(s)) for s in range(200)]
    assert all((x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
               for x, y in zip(a, b, strict=True))
    assert 0.35 < sum(x is not None for x in a) / 200 < 0.65
    assert _swapper(0.0).maybe_swap(_face(10), BELLOT, "QS", np.random.default_rng(0)) is None


@pytest.fixture(scope="module")
def indexed_shared(tmp_path_factory: pytest.TempPathFactory, face_drawer: object) -> Path:
    """A print filed under Kennard's name (so it counts as indexed) with plain drawn faces."""
    rng = np.random.default_rng(1)

    def face(suit: str, rank: str) -> npt.NDArray[np.uint8]:
        img = np.full((96, 64, 3), 245, np.uint8)
        cv2.rectangle(img, (10, 22), (54, 74), tuple(int(c) for c in rng.integers(0, 255, 3)), -1)
        return img

    return write_french_print(tmp_path_factory.mktemp("indexed"), face)


def test_rendered_set_swaps_only_courts_and_keeps_labels(indexed_shared: Path, tmp_path: Path) -> None:
    kw = {"back_count": 4, "workers": 1, "root": indexed_shared}
    plain = render_set("french", [KENNARD], 1, seed=3, **kw)  # type: ignore[arg-type]
    swapped = render_set("french", [KENNARD], 1, seed=3, court_swap=1.0, **kw)  # type: ignore[arg-type]
    assert np.array_equal(plain.labels, swapped.labels)
    from referee.cards import RECOGNISER_LABELS

    labels = RECOGNISER_LABELS["french"]
    court = np.array([cs.is_court(labels[i]) for i in plain.labels])
    differs = np.array([not np.array_equal(a, b) for a, b in zip(plain.images, swapped.images, strict=True)])
    assert court.sum() == 12 and differs[court].all()
    assert not differs[~court].any()  # pips and negatives render exactly as without the swap
    cached_set(tmp_path, "french", [KENNARD], 1, 3, **kw)
    cached_set(tmp_path, "french", [KENNARD], 1, 3, court_swap=0.5, **kw)
    assert len(list(tmp_path.glob("french-*.npz"))) == 2  # the swap is part of the cache key


def test_sets_without_the_swap_keep_their_cache_key(indexed_shared: Path, tmp_path: Path) -> None:
    kw = {"back_count": 4, "workers": 1, "root": indexed_shared}
    cached_set(tmp_path, "french", [KENNARD], 1, 3, **kw)  # type: ignore[arg-type]
    cached_set(tmp_path, "french", [KENNARD], 1, 3, court_swap=0.0, **kw)  # type: ignore[arg-type]
    assert len(list(tmp_path.glob("french-*.npz"))) == 1


def test_benchmark_splits_courts_from_pips() -> None:
    from referee.recognition.evaluate import court_pip_split, is_court_code

    assert is_court_code("QS") and is_court_code("coppe_9") and is_court_code("spade_10")
    assert not is_court_code("10S") and not is_court_code("coppe_1") and not is_court_code("back")
    labels = ["QS", "10S", "back"]
    truth = np.array([0, 0, 1, 1, 2])
    pred = np.array([0, 1, 1, 1, 0])
    split = court_pip_split(pred, truth, ["a", "a", "a", "b", "a"], labels)
    assert split == {"a": {"courts": [2, 0.5], "pips": [1, 1.0]}, "b": {"pips": [1, 1.0]}}
