"""Index-free card windows as 'back' samples (``--window-negatives``): the window is card-shaped,
lies mostly on the card, and shows no corner index; the set is reproducible and all 'back'."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.errors import ConfigError
from referee.recognition import synth
from referee.recognition.dataset import NEGATIVES, cache_name, render_set
from referee.recognition.preprocess import INPUT_SIZE
from referee.recognition.train_options import TrainOptions


def _overlap(q: np.ndarray, x: float, y: float, w: float, h: float) -> float:
    x0, y0, x1, y1 = q[0, 0], q[0, 1], q[2, 0], q[2, 1]
    return float(max(0.0, min(x1, x + w) - max(x0, x)) * max(0.0, min(y1, y + h) - max(y0, y)))


@pytest.mark.parametrize(("w", "h"), [(100, 140), (60, 130), (200, 270)])
def test_a_window_is_card_shaped_mostly_on_the_card_and_clear_of_every_index(w: int, h: int) -> None:
    rng = np.random.default_rng(0)
    iw, ih = synth.INDEX_BOX[0] * w, synth.INDEX_BOX[1] * h
    for _ in range(300):
        q = synth.window_quad(w, h, rng)
        ww, hh = q[1, 0] - q[0, 0], q[3, 1] - q[0, 1]
        assert 0.55 * w - 1e-3 <= ww <= 0.72 * w + 1e-3
        assert hh <= 0.95 * h + 1e-3 and 0.85 <= (hh / ww) / (h / w) <= 1.1 + 1e-3
        assert _overlap(q, 0, 0, w, h) >= 0.7 * ww * hh - 1e-3
        for bx, by in ((0, 0), (w - iw, 0), (0, h - ih), (w - iw, h - ih)):
            assert _overlap(q, bx, by, iw, ih) <= 0.25 * iw * ih + 1e-3


def test_a_window_cut_from_a_card_shows_none_of_its_corner_indices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The art's corner index boxes are pure red, its body white, the table grey (a plain table
    may be any colour, red too): no window crop shows more red than a quarter of one index."""
    monkeypatch.setattr(synth, "background", lambda textures, w, h, rng: np.full((h, w, 3), 128, np.float32))
    face = np.full((140, 100, 4), 255, np.uint8)
    iw, ih = round(synth.INDEX_BOX[0] * 100), round(synth.INDEX_BOX[1] * 140)
    for ys, xs in ((slice(0, ih), slice(0, iw)), (slice(0, ih), slice(100 - iw, 100)),
                   (slice(140 - ih, 140), slice(0, iw)), (slice(140 - ih, 140), slice(100 - iw, 100))):
        face[ys, xs, :3] = (0, 0, 255)
    art = synth.prepare_art(face, 0.0)
    rng = np.random.default_rng(1)
    shares = []
    for _ in range(60):
        crop = synth.render_card_window(art, [], rng).astype(np.int32)
        red = (crop[..., 2] - np.maximum(crop[..., 0], crop[..., 1])) > 80
        shares.append(float(red.mean()))
    # an index box is 5.4% of the card: a quarter of one in the smallest window (27% of the
    # card) is 5% of the crop, plus the corners' jitter; a whole one would be 10% or more
    assert max(shares) < 0.08 and float(np.median(shares)) < 0.02


def test_the_window_style_renders_only_back_samples_reproducibly_and_caches_apart(fake_shared: Path) -> None:
    kw = {"back_count": 6, "workers": 1, "root": fake_shared, "style": "window"}
    a = render_set("french", ["fake_a/french"], 0, seed=3, **kw)  # type: ignore[arg-type]
    b = render_set("french", ["fake_a/french"], 0, seed=3, **kw)  # type: ignore[arg-type]
    assert a.images.shape == (6, INPUT_SIZE[1], INPUT_SIZE[0], 3) and np.array_equal(a.images, b.images)
    assert (a.labels == 52).all() and a.set_names == ("fake_a/french", NEGATIVES) and (a.set_ids == 1).all()
    assert cache_name("french", ["fake_a/french"], 0, 3, back_count=6, style="window") != \
        cache_name("french", ["fake_a/french"], 0, 3, back_count=6)


def test_a_window_share_out_of_range_is_named() -> None:
    with pytest.raises(ConfigError, match=r"--window-negatives 1\.5: expected a share"):
        TrainOptions(deck="french", window_negatives=1.5)
    assert TrainOptions(deck="french").window_negatives == 0.0
