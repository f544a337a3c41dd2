"""Print variation: a face drawn as another print of its pattern (inks, line weight, redrawing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.errors import ConfigError
from referee.recognition import synth, train
from referee.recognition.dataset import cache_name, render_set, varied_copies
from referee.recognition.print_style import THIN_MIN_HEIGHT, vary_print
from referee.recognition.train_options import TrainOptions

PAPER = 245


def _art(h: int, w: int) -> synth.CardArt:
    """Paper with a red square (a heart), a black 1 px line (an index stroke) and a blue bar."""
    bgr = np.full((h, w, 3), PAPER, np.uint8)
    bgr[h // 4: h // 2, w // 4: 3 * w // 4] = (30, 30, 210)  # red, BGR
    bgr[3 * h // 4, w // 8: 7 * w // 8] = 0  # a one-pixel black line
    bgr[h // 2 + 4: h // 2 + 12, w // 4: 3 * w // 4] = (200, 80, 20)  # blue
    return synth.CardArt(bgr, synth.rounded_mask(w, h, 0.06 * w))


def test_a_variant_keeps_the_cards_shape_and_is_seeded() -> None:
    art = _art(320, 200)
    one = vary_print(art, np.random.default_rng(3))
    assert one.bgr.shape == art.bgr.shape and one.bgr.dtype == np.uint8
    assert one.mask is art.mask  # the blank's silhouette is never touched
    assert np.array_equal(one.bgr, vary_print(art, np.random.default_rng(3)).bgr)
    assert not np.array_equal(one.bgr, vary_print(art, np.random.default_rng(4)).bgr)
    assert not np.array_equal(one.bgr, art.bgr)


@pytest.mark.parametrize("seed", range(40))
def test_paper_stays_paper_and_red_stays_red(seed: int) -> None:
    art = _art(320, 200)
    out = vary_print(art, np.random.default_rng(seed)).bgr
    # Paper far from any drawing stays light and grey.
    corner = out[8:40, 8:40].astype(int)
    assert corner.min() > 215 and np.ptp(corner, axis=-1).max() < 12
    # The middle of the red square stays a red (a red suit never turns black or another colour).
    hsv = cv2.cvtColor(out[100:140, 70:130], cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(int)
    hue, sat, val = np.median(hsv, axis=0)
    assert (hue <= 12 or hue >= 168) and sat > 120 and val > 120


@pytest.mark.parametrize("seed", range(40))
def test_a_low_resolution_scans_thin_lines_are_never_thinned_away(seed: int) -> None:
    h = THIN_MIN_HEIGHT - 106  # an invido-sized scan (144 px)
    art = _art(h, 80)
    out = vary_print(art, np.random.default_rng(seed)).bgr
    # The 1 px line still shows (moved by the redrawing, at worst spread over two pixels at half
    # strength by the interpolation; a 2 px dilation would leave paper, 245).
    band = out[3 * h // 4 - 3: 3 * h // 4 + 4, 20:60].min(axis=0).max(axis=-1)
    assert band.max() < 150


def test_big_art_is_sometimes_thinned_and_sometimes_thickened(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    erode, dilate = cv2.erode, cv2.dilate

    def heavier(*args: object, **kwargs: object) -> object:
        seen.append("heavier")
        return erode(*args, **kwargs)  # type: ignore[call-overload]

    def finer(*args: object, **kwargs: object) -> object:
        seen.append("finer")
        return dilate(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(cv2, "erode", heavier)
    monkeypatch.setattr(cv2, "dilate", finer)
    for seed in range(60):
        vary_print(_art(320, 200), np.random.default_rng(seed))
    assert 10 < seen.count("heavier") < 40 and 5 < seen.count("finer") < 30
    seen.clear()
    for seed in range(60):
        vary_print(_art(144, 80), np.random.default_rng(seed))
    assert "finer" not in seen and 15 < seen.count("heavier") < 45


def test_sets_without_variation_render_and_cache_as_before(fake_shared: Path) -> None:
    kw = {"workers": 1, "root": fake_shared, "back_count": 4}
    plain = render_set("french", ["fake_a/french"], 1, seed=3, **kw)  # type: ignore[arg-type]
    off = render_set("french", ["fake_a/french"], 1, seed=3, print_variation=0.0, **kw)  # type: ignore[arg-type]
    varied = render_set("french", ["fake_a/french"], 1, seed=3, print_variation=1.0, **kw)  # type: ignore[arg-type]
    assert np.array_equal(plain.images, off.images)
    faces = plain.labels != plain.labels.max()
    assert (np.abs(varied.images[faces].astype(int) - plain.images[faces]).mean(axis=(1, 2, 3)) > 1).all()
    assert np.array_equal(varied.labels, plain.labels)
    prints = ["a/french", "b/french"]
    assert cache_name("french", prints, 400, 0, print_variation=0.0) == cache_name("french", prints, 400, 0) \
        == "french-fd3d33bf2e89.npz"
    assert len({cache_name("french", prints, 400, 0, print_variation=p) for p in (0.0, 0.3, 0.5)}) == 3
    with pytest.raises(ValueError, match="print variation"):
        render_set("french", ["fake_a/french"], 1, seed=3, print_variation=1.5, **kw)  # type: ignore[arg-type]


def _train_options(fake_shared: Path, cache: Path) -> Callable[..., TrainOptions]:
    """``referee train``'s options for a tiny French run on the fake prints, plus ``extra``."""

    def options(**extra: Any) -> TrainOptions:
        return TrainOptions("french", samples=52, val_per_face=1, threads=1, holdout=("fake_b/french",),
                            shared=fake_shared, cache=cache, **extra)
    return options


def test_the_train_option_is_checked_and_recorded(fake_shared: Path, tmp_path: Path) -> None:
    options = _train_options(fake_shared, tmp_path)
    assert options().print_variation == 0.0
    with pytest.raises(ConfigError, match=r"--print-variation 1\.2"):
        options(print_variation=1.2)
    _, _, plan = train._data(options(), train._Logger(True))
    assert "print_variation" not in plan
    _, _, plan = train._data(options(print_variation=0.5), train._Logger(True))
    assert plan["print_variation"] == 0.5


def test_vary_others_draws_the_other_cards_and_backs_from_varied_prints(fake_shared: Path) -> None:
    kw = {"workers": 1, "root": fake_shared, "back_count": 40, "print_variation": 0.5}
    faces_only = render_set("french", ["fake_a/french"], 1, seed=3, **kw)  # type: ignore[arg-type]
    others = render_set("french", ["fake_a/french"], 1, seed=3, vary_others=True, **kw)  # type: ignore[arg-type]
    back = others.labels == others.labels.max()
    # The 'back' samples (backs, parts of cards) now show varied prints too: some change.
    changed = np.abs(others.images[back].astype(int) - faces_only.images[back]).mean(axis=(1, 2, 3)) > 1
    assert 0 < changed.sum() < back.sum()  # bare cloth and clutter show no card and stay as they were
    prints = ["a/french", "b/french"]
    # Sets varying their own faces only keep their cache names; varying the others is another set.
    assert cache_name("french", prints, 400, 0, print_variation=0.5, vary_others=False) \
        == cache_name("french", prints, 400, 0, print_variation=0.5)
    assert cache_name("french", prints, 400, 0, print_variation=0.5, vary_others=True) \
        != cache_name("french", prints, 400, 0, print_variation=0.5)
    with pytest.raises(ValueError, match="needs a print variation"):
        render_set("french", ["fake_a/french"], 1, seed=3, workers=1, root=fake_shared, back_count=4,
                   vary_others=True)


def test_varied_copies_are_the_same_in_every_worker() -> None:
    arts = [_art(144, 80), _art(320, 200)]
    one, two = varied_copies(arts), varied_copies(arts)
    assert all(np.array_equal(a.bgr, b.bgr) for a, b in zip(one, two, strict=True))
    assert not np.array_equal(one[0].bgr, arts[0].bgr)
    assert all(c.mask is a.mask for c, a in zip(one, arts, strict=True))


def test_the_vary_others_option_needs_a_variation_and_is_recorded(fake_shared: Path, tmp_path: Path) -> None:
    options = _train_options(fake_shared, tmp_path)
    with pytest.raises(ConfigError, match="--vary-others needs --print-variation"):
        options(vary_others=True)
    _, _, plan = train._data(options(print_variation=0.5), train._Logger(True))
    assert "vary_others" not in plan
    _, _, plan = train._data(options(print_variation=0.5, vary_others=True), train._Logger(True))
    assert plan["vary_others"] is True
