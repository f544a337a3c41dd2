"""Pip-scale augmentation: pips of French pip cards grow/shrink in place; indices, frames, courts stay."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from recognition.fake_prints import KENNARD, write_french_print
from referee.cards import RECOGNISER_LABELS
from referee.recognition import court_swap as cs
from referee.recognition import pip_scale as ps
from referee.recognition import synth
from referee.recognition.dataset import (
    BACK_SHARE,
    PAPER_BACK_SHARE,
    cached_set,
    default_back_count,
    render_set,
)

GENOVESI = "invido_regional_lowres/genovesi"
PIPS = ((70, 90), (150, 90), (70, 230), (150, 230))


def _pip_face(frame: bool = False) -> np.ndarray:
    """A 220x320 white face: four black pips, an index letter in two corners, maybe a frame."""
    img = np.full((320, 220, 3), 250, np.uint8)
    for x, y in PIPS:
        cv2.circle(img, (x, y), 14, (0, 0, 0), -1, cv2.LINE_AA)
    cv2.putText(img, "4", (4, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2)
    cv2.putText(img, "4", (190, 310), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 2)
    if frame:
        cv2.rectangle(img, (24, 20), (196, 300), (0, 0, 0), 2)
    return np.dstack([img, np.full((320, 220), 255, np.uint8)])


def _ink(face: np.ndarray, box: tuple[int, int, int, int] | None = None) -> int:
    x0, y0, x1, y1 = box or (0, 0, face.shape[1], face.shape[0])
    return int((face[y0:y1, x0:x1, :3].max(axis=2) < 128).sum())


def test_pip_cards_are_french_a_to_10() -> None:
    assert ps.is_pip_card("AC") and ps.is_pip_card("10S") and ps.is_pip_card("7D")
    assert not ps.is_pip_card("QS") and not ps.is_pip_card("coppe_1") and not ps.is_pip_card("back")


def test_finds_the_pips_but_not_the_index_or_the_frame() -> None:
    layout = cs.INDEXED[KENNARD]
    found = ps.find_pips(_pip_face(frame=True), layout.inner, layout.keep)
    centres = sorted((round(b[0] + b[2] / 2), round(b[1] + b[3] / 2)) for b in (p.box for p in found.pips))
    assert len(centres) == 4
    assert all(abs(cx - x) <= 2 and abs(cy - y) <= 2 for (cx, cy), (x, y) in zip(centres, sorted(PIPS), strict=True))


def test_scaling_grows_each_pip_in_place_and_keeps_index_and_frame() -> None:
    layout = cs.INDEXED[KENNARD]
    face = _pip_face(frame=True)
    found = ps.find_pips(face, layout.inner, layout.keep)
    same = ps.scale_pips(found, 1.0, 1.0)
    assert np.abs(same.astype(int) - face.astype(int)).max() <= 6  # scale 1 redraws the face
    big = ps.scale_pips(found, 2.0, 2.0)
    x, y = PIPS[0]
    box = (x - 40, y - 40, x + 40, y + 40)
    assert 3.3 < _ink(big, box) / _ink(face, box) < 4.5  # area ~ scale squared, same centre
    assert _ink(big, (x - 18, y - 18, x + 18, y + 18)) == 36 * 36  # solid around the old centre
    for kx0, ky0, kx1, ky1 in found.keep:
        assert np.array_equal(big[ky0:ky1, kx0:kx1], face[ky0:ky1, kx0:kx1])
    assert np.array_equal(big[20:23, 60:160], face[20:23, 60:160])  # the frame line is untouched
    small = ps.scale_pips(found, 0.6, 0.6)
    assert 0.25 < _ink(small, box) / _ink(face, box) < 0.5
    assert big[..., 3].min() == 255 and big.dtype == np.uint8


def test_a_pip_never_grows_beyond_the_region() -> None:
    layout = cs.INDEXED[KENNARD]
    face = np.full((320, 220, 3), 250, np.uint8)
    cv2.circle(face, (110, 160), 30, (0, 0, 0), -1)
    found = ps.find_pips(np.dstack([face, np.full((320, 220), 255, np.uint8)]), layout.inner, layout.keep)
    huge = ps.scale_pips(found, 20.0, 20.0)
    x0, y0, x1, y1 = found.region
    ink = huge[..., :3].max(axis=2) < 128
    assert ink.any() and not ink[:, :x0].any() and not ink[:, x1:].any() and not ink[:y0].any() and not ink[y1:].any()


def _scaler(probability: float) -> ps.PipScaler:
    faces = {KENNARD: {"4C": _pip_face(), "AS": _pip_face(), "QS": _pip_face()},
             GENOVESI: {"4H": _pip_face()}}
    return ps.PipScaler(faces, probability)


def test_courts_and_unknown_faces_are_left_alone_without_drawing() -> None:
    scaler = _scaler(1.0)
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    assert scaler.maybe_scale(KENNARD, "QS", rng) is None
    assert scaler.maybe_scale(KENNARD, "5C", rng) is None  # not among the faces given
    assert scaler.maybe_scale("other/french", "4C", rng) is None
    assert rng.bit_generator.state == before  # no draws: other samples render as before
    assert scaler.maybe_scale(GENOVESI, "4H", rng) is not None  # prints without indices too


def test_scaling_is_seeded_and_follows_its_probability() -> None:
    scaler = _scaler(0.5)
    a = [scaler.maybe_scale(KENNARD, "4C", np.random.default_rng(s)) for s in range(120)]
    b = [scaler.maybe_scale(KENNARD, "4C", np.random.default_rng(s)) for s in range(120)]
    assert all((x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
               for x, y in zip(a, b, strict=True))
    assert 0.35 < sum(x is not None for x in a) / 120 < 0.65
    assert _scaler(0.0).maybe_scale(KENNARD, "4C", np.random.default_rng(0)) is None


def test_aces_draw_a_wider_scale_range() -> None:
    rng = np.random.default_rng(0)
    aces = [ps.draw_scale("AS", rng) for _ in range(400)]
    fours = [ps.draw_scale("4S", rng) for _ in range(400)]
    assert max(max(s) for s in aces) > 2.2 and max(max(s) for s in fours) < 1.6
    assert min(min(s) for s in fours) > 0.7
    assert any(abs(sx / sy - 1) > 0.05 for sx, sy in fours)  # the shape changes too


@pytest.fixture(scope="module")
def pip_shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A print filed under Kennard's name with drawn pip faces and plain courts."""

    def face(suit: str, rank: str) -> npt.NDArray[np.uint8]:
        img = _pip_face()[..., :3].copy()
        if rank in ("J", "Q", "K"):
            cv2.rectangle(img, (40, 60), (180, 260), (0, 0, 200), -1)
        return img

    return write_french_print(tmp_path_factory.mktemp("pips"), face)


def test_rendered_set_rescales_only_pip_cards_and_keys_the_cache(pip_shared: Path, tmp_path: Path) -> None:
    kw = {"back_count": 4, "workers": 1, "root": pip_shared}
    plain = render_set("french", [KENNARD], 1, seed=3, **kw)  # type: ignore[arg-type]
    scaled = render_set("french", [KENNARD], 1, seed=3, pip_scale=1.0, **kw)  # type: ignore[arg-type]
    assert np.array_equal(plain.labels, scaled.labels)
    labels = RECOGNISER_LABELS["french"]
    pip = np.array([ps.is_pip_card(labels[i]) for i in plain.labels])
    differs = np.array([not np.array_equal(a, b) for a, b in zip(plain.images, scaled.images, strict=True)])
    assert pip.sum() == 40 and differs[pip].all()
    back = plain.labels == labels.index("back")
    assert back.sum() == 4 and (scaled.labels[back] == labels.index("back")).all()
    assert not differs[~pip & ~back].any()  # courts render exactly as without it
    cached_set(tmp_path, "french", [KENNARD], 1, 3, **kw)
    cached_set(tmp_path, "french", [KENNARD], 1, 3, pip_scale=0.0, **kw)
    assert len(list(tmp_path.glob("french-*.npz"))) == 1  # off: the old cache key
    cached_set(tmp_path, "french", [KENNARD], 1, 3, pip_scale=0.5, **kw)
    assert len(list(tmp_path.glob("french-*.npz"))) == 2


def test_pip_scaled_sets_get_the_paper_negatives_on_top_of_the_usual_backs() -> None:
    assert default_back_count(10000) == round(BACK_SHARE * 10000)
    assert default_back_count(10000, pip_scale=0.5) == round((BACK_SHARE + PAPER_BACK_SHARE) * 10000)
    assert default_back_count(3) == 1  # never an empty negative set


def test_paper_clutter_crop_is_reproducible_and_model_sized() -> None:
    rng = np.random.default_rng
    a = synth.render_paper_clutter([], [], rng(4))
    assert a.shape == (96, 64, 3) and a.dtype == np.uint8
    assert np.array_equal(a, synth.render_paper_clutter([], [], rng(4)))
    assert not np.array_equal(a, synth.render_paper_clutter([], [], rng(5)))


def test_paper_sheet_covers_the_crop_centre_in_white() -> None:
    w, h = 60, 90
    for seed in range(20):
        canvas = np.zeros((3 * h, 3 * w, 3), np.float32)
        synth._sheet(canvas, w, h, np.random.default_rng(seed))
        assert canvas[int(1.5 * h), int(1.5 * w)].min() >= 190  # paper, slightly tinted


def test_paper_marks_stay_near_the_crop_and_change_it() -> None:
    w, h = 60, 90
    for seed in range(30):
        canvas = np.full((3 * h, 3 * w, 3), 240.0, np.float32)
        synth._mark(canvas, [], w, h, np.random.default_rng(seed))
        crop = canvas[h:2 * h, w:2 * w]
        assert (np.abs(crop - 240.0).max(axis=2) > 20).sum() > 0  # something is drawn in the crop


def test_a_recipe_with_aces_only_leaves_other_pip_cards_undrawn() -> None:
    faces = {KENNARD: {"4C": _pip_face(), "AS": _pip_face()}}
    scaler = ps.PipScaler(faces, 1.0, ps.PipRecipe(ranks=("A",)))
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    assert scaler.maybe_scale(KENNARD, "4C", rng) is None
    assert rng.bit_generator.state == before  # the 4 renders exactly as without pip scaling
    assert scaler.maybe_scale(KENNARD, "AS", rng) is not None


def test_a_recipe_sets_the_ranges_and_can_keep_the_pip_shape() -> None:
    recipe = ps.PipRecipe(ace_scale=(1.5, 2.8), pip_scale=(1.0, 1.2), aspect_jitter=0.0)
    rng = np.random.default_rng(1)
    aces = [ps.draw_scale("AD", rng, recipe) for _ in range(300)]
    fours = [ps.draw_scale("4D", rng, recipe) for _ in range(300)]
    assert all(sx == sy for sx, sy in aces + fours)  # no shape change
    assert min(s for s, _ in aces) >= 1.5 and max(s for s, _ in aces) <= 2.8
    assert min(s for s, _ in fours) >= 1.0 and max(s for s, _ in fours) <= 1.2
    # Same number of draws as the default recipe: a recipe changes no later sample's stream.
    a, b = np.random.default_rng(2), np.random.default_rng(2)
    ps.draw_scale("4D", a, recipe)
    ps.draw_scale("4D", b)
    assert a.bit_generator.state == b.bit_generator.state


def test_a_recipe_reports_only_its_changes_and_rejects_nonsense() -> None:
    assert ps.PipRecipe().changes() == {}
    assert ps.PipRecipe(ranks=("A",), aspect_jitter=0.0).changes() == {"ranks": ["A"], "aspect_jitter": 0.0}
    for bad in ({"ranks": ("J",)}, {"ranks": ()}, {"ace_scale": (2.0, 1.0)}, {"pip_scale": (0.0, 1.0)},
                {"aspect_jitter": -0.1}):
        with pytest.raises(ValueError, match="pip recipe"):
            ps.PipRecipe(**bad)  # type: ignore[arg-type]


def test_a_recipe_keys_the_cache_but_the_default_recipe_keeps_the_old_key(pip_shared: Path, tmp_path: Path) -> None:
    kw = {"back_count": 2, "workers": 1, "root": pip_shared}
    cached_set(tmp_path, "french", [KENNARD], 1, 3, pip_scale=0.5, **kw)  # type: ignore[arg-type]
    cached_set(tmp_path, "french", [KENNARD], 1, 3, pip_scale=0.5, pip_recipe=ps.PipRecipe(), **kw)  # type: ignore[arg-type]
    assert len(list(tmp_path.glob("french-*.npz"))) == 1
    aces = cached_set(tmp_path, "french", [KENNARD], 1, 3, pip_scale=1.0,  # type: ignore[arg-type]
                      pip_recipe=ps.PipRecipe(ranks=("A",)), **kw)
    assert len(list(tmp_path.glob("french-*.npz"))) == 2
    plain = render_set("french", [KENNARD], 1, seed=3, **kw)  # type: ignore[arg-type]
    labels = RECOGNISER_LABELS["french"]
    ace = np.array([labels[i].startswith("A") for i in plain.labels])
    face = plain.labels != labels.index("back")
    differs = np.array([not np.array_equal(a, b) for a, b in zip(plain.images, aces.images, strict=True)])
    assert ace.sum() == 4 and differs[ace].all()
    assert not differs[face & ~ace].any()  # only the aces change


def test_train_options_build_the_recipe_and_name_a_bad_one() -> None:
    import argparse

    from referee.errors import ConfigError
    from referee.recognition import train

    parser = argparse.ArgumentParser()
    train.add_arguments(parser)
    base = ["--deck", "french", "--pip-scale", "0.5"]
    assert train.pip_recipe(parser.parse_args(base)) == ps.PipRecipe()
    args = parser.parse_args([*base, "--pip-ranks", "A", "--pip-ace-range", "1.5", "2.8", "--pip-aspect-jitter", "0"])
    assert train.pip_recipe(args) == ps.PipRecipe(ranks=("A",), ace_scale=(1.5, 2.8), aspect_jitter=0.0)
    with pytest.raises(ConfigError, match=r"--pip-.*ranks"):
        train.pip_recipe(parser.parse_args([*base, "--pip-ranks", "Z"]))


def _plain_art() -> synth.CardArt:
    return synth.prepare_art(_pip_face(), 0.03)


def test_zoomed_card_part_is_reproducible_model_sized_and_mostly_card() -> None:
    textures = [np.full((64, 64, 3), (40, 120, 40), np.uint8)]  # green cloth
    a = synth.render_card_zoom(_plain_art(), textures, np.random.default_rng(5))
    b = synth.render_card_zoom(_plain_art(), textures, np.random.default_rng(5))
    assert np.array_equal(a, b) and a.shape == (96, 64, 3)
    # The part lies on the card: the crop is mostly the card's paper, little cloth (a green
    # colour cast of the lighting may tint a few crops).
    shares = []
    for seed in range(20):
        crop = synth.render_card_zoom(_plain_art(), textures, np.random.default_rng(seed)).astype(int)
        shares.append(((crop[..., 1] - crop[..., 0] > 40) & (crop[..., 1] - crop[..., 2] > 40)).mean())
    assert np.median(shares) < 0.05 and sum(s < 0.25 for s in shares) >= 17


@pytest.mark.slow
def test_zoom_negatives_come_on_top_and_only_with_pip_scaling(pip_shared: Path) -> None:
    recipe = ps.PipRecipe(zoom_negatives=0.04)
    assert default_back_count(10000, 0.5, recipe) == round((BACK_SHARE + PAPER_BACK_SHARE + 0.04) * 10000)
    assert default_back_count(10000, 0.0, recipe) == round(BACK_SHARE * 10000)
    kw = {"back_count": 12, "workers": 1, "root": pip_shared}
    zoomed = render_set("french", [KENNARD], 1, seed=3, pip_scale=0.5, pip_recipe=ps.PipRecipe(zoom_negatives=0.5),
                        **kw)  # type: ignore[arg-type]
    plain = render_set("french", [KENNARD], 1, seed=3, pip_scale=0.5, **kw)  # type: ignore[arg-type]
    labels = RECOGNISER_LABELS["french"]
    back = plain.labels == labels.index("back")
    assert np.array_equal(plain.labels, zoomed.labels)
    assert np.array_equal(plain.images[~back], zoomed.images[~back])  # the faces render as before
    assert not np.array_equal(plain.images[back], zoomed.images[back])
