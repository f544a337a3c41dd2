"""Extra 'back' samples (paper clutter, zoomed-in card parts, windows inside a face) as a recipe of their own."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.recognition import dataset, synth, train
from referee.recognition.dataset import (
    BACK_SHARE,
    PAPER_BACK_SHARE,
    NegativeRecipe,
    cache_name,
    default_back_count,
    render_set,
)
from referee.recognition.pip_scale import PipRecipe

PRINTS = ["a/french", "b/french"]
BACK = RECOGNISER_LABELS["french"].index("back")


@pytest.mark.parametrize(("options", "name"), [
    # Names computed before NegativeRecipe existed: every set rendered before keeps its cache.
    ({}, "french-fd3d33bf2e89.npz"),
    ({"root": Path("/x"), "court_swap": 0.0}, "french-fd3d33bf2e89.npz"),
    ({"back_count": 7}, "french-f9dc45668821.npz"),
    ({"pip_scale": 0.5, "pip_recipe": PipRecipe()}, "french-851fe3427ef8.npz"),
    ({"pip_scale": 0.5, "pip_recipe": PipRecipe(zoom_negatives=0.04)}, "french-ede95a373ed7.npz"),
    ({"style": "table"}, "french-c32969e80904.npz"),
    ({"style": "table", "pip_scale": 0.5, "pip_recipe": PipRecipe()}, "french-eacc34356138.npz"),
    # Naming the negatives a set always had changes nothing either.
    ({"negatives": NegativeRecipe()}, "french-fd3d33bf2e89.npz"),
    ({"style": "table", "negatives": NegativeRecipe()}, "french-c32969e80904.npz"),
    ({"pip_scale": 0.5, "negatives": NegativeRecipe(PAPER_BACK_SHARE)}, "french-851fe3427ef8.npz"),
    ({"pip_scale": 0.5, "pip_recipe": PipRecipe(zoom_negatives=0.04), "negatives": NegativeRecipe(PAPER_BACK_SHARE, 0.04)},
     "french-ede95a373ed7.npz"),
])
def test_sets_rendered_before_keep_their_cache_names(options: dict[str, object], name: str) -> None:
    assert cache_name("french", PRINTS, 400, 0, workers=2, **options) == name


def test_other_negatives_get_their_own_cache_names() -> None:
    names = {cache_name("french", PRINTS, 400, 0, **kw) for kw in (
        {}, {"negatives": NegativeRecipe(paper=0.04)}, {"negatives": NegativeRecipe(parts=0.04)},
        {"negatives": NegativeRecipe(0.04, 0.02)}, {"style": "table", "negatives": NegativeRecipe(0.04, 0.02)},
        {"pip_scale": 0.5}, {"pip_scale": 0.5, "negatives": NegativeRecipe(0.04, 0.02)},
        {"pip_scale": 0.5, "negatives": NegativeRecipe()},
        {"negatives": NegativeRecipe(interior=0.03)}, {"negatives": NegativeRecipe(interior=0.02)},
        {"pip_scale": 0.5, "negatives": NegativeRecipe(0, 0, 0.03)},
    )}
    assert len(names) == 11


def test_pip_scaling_implies_its_old_negatives_and_counts_stay() -> None:
    assert NegativeRecipe.of_pip_scaling(0.0, PipRecipe(zoom_negatives=0.04)) == NegativeRecipe()
    assert NegativeRecipe.of_pip_scaling(0.5) == NegativeRecipe(PAPER_BACK_SHARE, 0.0)
    assert NegativeRecipe.of_pip_scaling(0.5, PipRecipe(zoom_negatives=0.04)) == NegativeRecipe(PAPER_BACK_SHARE, 0.04)
    assert default_back_count(10000) == 800
    assert default_back_count(10000, 0.5) == 1200
    assert default_back_count(10000, 0.5, PipRecipe(zoom_negatives=0.04)) == 1600
    assert default_back_count(10000, negatives=NegativeRecipe(0.04, 0.02)) == round((BACK_SHARE + 0.06) * 10000)
    assert default_back_count(10000, 0.5, negatives=NegativeRecipe()) == 800  # explicit beats implied


def test_a_recipe_rejects_shares_out_of_range() -> None:
    for bad in ({"paper": -0.01}, {"parts": 0.6}):
        with pytest.raises(ValueError, match="negative recipe"):
            NegativeRecipe(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="interior"):
        NegativeRecipe(interior=0.51)
    assert NegativeRecipe(0.04, 0.02).shares() == {"back": BACK_SHARE, "paper": 0.04, "parts": 0.02, "interior": 0.0}
    assert default_back_count(10000, negatives=NegativeRecipe(interior=0.03)) == round((BACK_SHARE + 0.03) * 10000)


class _Counter:
    """Counts the calls of one synth renderer (render_set runs in-process with one worker)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.calls = 0
        real = getattr(synth, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(synth, name, counted)


@pytest.mark.slow
@pytest.mark.parametrize("style", ["base", "table"])
def test_the_shares_add_back_samples_of_their_kinds_without_pip_scaling(
        fake_shared: Path, monkeypatch: pytest.MonkeyPatch, style: str) -> None:
    kw = {"workers": 1, "root": fake_shared, "style": style}
    plain = render_set("french", ["fake_a/french"], 2, seed=3, **kw)  # type: ignore[arg-type]
    named = render_set("french", ["fake_a/french"], 2, seed=3, negatives=NegativeRecipe(), **kw)  # type: ignore[arg-type]
    assert np.array_equal(plain.images, named.images) and np.array_equal(plain.labels, named.labels)
    paper, parts = _Counter(monkeypatch, "render_paper_clutter"), _Counter(monkeypatch, "render_card_zoom")
    extra = render_set("french", ["fake_a/french"], 2, seed=3, negatives=NegativeRecipe(0.3, 0.3), **kw)  # type: ignore[arg-type]
    faces = plain.labels != BACK
    assert (plain.labels == BACK).sum() == int(BACK_SHARE * 104)
    assert (extra.labels == BACK).sum() == int((BACK_SHARE + 0.6) * 104)
    # The faces render exactly as without the recipe; the negatives hold both new kinds.
    assert np.array_equal(extra.images[:faces.sum()], plain.images[faces])
    assert paper.calls > 15 and parts.calls > 15
    assert paper.calls + parts.calls < (extra.labels == BACK).sum()  # the old kinds stay
    paper.calls = parts.calls = 0
    interior = _Counter(monkeypatch, "render_card_interior")
    render_set("french", ["fake_a/french"], 2, seed=3, **kw)  # type: ignore[arg-type]
    assert paper.calls == parts.calls == interior.calls == 0
    inside = render_set("french", ["fake_a/french"], 2, seed=3, negatives=NegativeRecipe(interior=0.3), **kw)  # type: ignore[arg-type]
    assert (inside.labels == BACK).sum() == int((BACK_SHARE + 0.3) * 104)
    assert np.array_equal(inside.images[:faces.sum()], plain.images[faces])
    assert 15 < interior.calls < (inside.labels == BACK).sum() and paper.calls == parts.calls == 0


def test_an_interior_window_shows_none_of_the_cards_edge_or_corners() -> None:
    # A card whose outer 12% is saturated green (border, corners, where indices sit) around a grey face,
    # on a green table: no window may show any of that green; a zoomed-in part often does.
    art_h, art_w = 300, 200
    bgr = np.full((art_h, art_w, 3), 128, np.uint8)
    bgr[:int(0.12 * art_h)] = bgr[-int(0.12 * art_h):] = (0, 255, 0)
    bgr[:, :int(0.15 * art_w)] = bgr[:, -int(0.15 * art_w):] = (0, 255, 0)
    art = synth.CardArt(bgr, np.full((art_h, art_w), 255, np.uint8))
    table = [np.full((64, 64, 3), (0, 255, 0), np.uint8)]
    rng = np.random.default_rng(5)

    def green(crop: np.ndarray) -> float:
        c = crop.astype(np.int16)
        return float(((c[..., 1] - np.maximum(c[..., 0], c[..., 2])) > 60).mean())

    inside = [green(synth.render_card_interior(art, table, rng)) for _ in range(60)]
    parts = [green(synth.render_card_zoom(art, table, rng)) for _ in range(60)]
    assert max(inside) < 0.01
    assert sum(p > 0.05 for p in parts) > 30


def test_pip_scaled_sets_render_as_with_their_implied_recipe(fake_shared: Path) -> None:
    kw = {"back_count": 30, "workers": 1, "root": fake_shared, "pip_scale": 0.5}
    implied = render_set("french", ["fake_a/french"], 1, seed=3, **kw)  # type: ignore[arg-type]
    named = render_set("french", ["fake_a/french"], 1, seed=3, negatives=NegativeRecipe(PAPER_BACK_SHARE), **kw)  # type: ignore[arg-type]
    assert np.array_equal(implied.images, named.images)
    none = render_set("french", ["fake_a/french"], 1, seed=3, negatives=NegativeRecipe(), **kw)  # type: ignore[arg-type]
    back = implied.labels == BACK
    assert np.array_equal(implied.images[~back], none.images[~back])
    assert not np.array_equal(implied.images[back], none.images[back])  # no paper clutter any more


def _args(*extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    train.add_arguments(parser)
    return parser.parse_args(["--deck", "french", *extra])


def test_train_options_build_the_negatives() -> None:
    def recipe(*extra: str) -> NegativeRecipe:
        args = _args(*extra)
        return train.negative_recipe(args, train.pip_recipe(args))

    assert recipe() == NegativeRecipe()
    assert recipe("--paper-negatives", "0.04", "--part-negatives", "0.02") == NegativeRecipe(0.04, 0.02)
    assert recipe("--pip-scale", "0.5") == NegativeRecipe(PAPER_BACK_SHARE)
    assert recipe("--pip-scale", "0.5", "--pip-zoom-negatives", "0.04") == NegativeRecipe(PAPER_BACK_SHARE, 0.04)
    assert recipe("--pip-scale", "0.5", "--paper-negatives", "0", "--part-negatives", "0.02") == NegativeRecipe(0, 0.02)
    with pytest.raises(ConfigError, match="give one"):
        recipe("--pip-scale", "0.5", "--pip-zoom-negatives", "0.04", "--part-negatives", "0.02")
    with pytest.raises(ConfigError, match="--paper-negatives"):
        recipe("--paper-negatives", "0.9")
    assert recipe("--interior-negatives", "0.03") == NegativeRecipe(interior=0.03)
    assert recipe("--pip-scale", "0.5", "--paper-negatives", "0", "--interior-negatives", "0.03") == \
        NegativeRecipe(0, 0, 0.03)
    with pytest.raises(ConfigError, match="--interior-negatives"):
        recipe("--interior-negatives", "0.7")


def test_the_training_plan_records_the_shares(fake_shared: Path, tmp_path: Path) -> None:
    args = _args("--samples", "104", "--table-samples", "52", "--val-per-face", "1", "--threads", "1",
                 "--holdout", "fake_b/french", "--shared", str(fake_shared), "--cache", str(tmp_path),
                 "--paper-negatives", "0.1", "--part-negatives", "0.2")
    data, _, plan = train._data(args, "french", train._Logger(True))
    assert plan["negatives"] == {"back": BACK_SHARE, "paper": 0.1, "parts": 0.2, "interior": 0.0}
    assert (data.labels == BACK).sum() == dataset.default_back_count(104, negatives=NegativeRecipe(0.1, 0.2)) + \
        dataset.default_back_count(52, negatives=NegativeRecipe(0.1, 0.2))
