"""The face catalogue reads the shared layout; the renderer is seeded and keeps its promises."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.recognition import synth
from referee.recognition.dataset import NEGATIVES, cached_set, join_sets, render_set
from referee.recognition.faces import back_files, card_code, face_sets, texture_files
from referee.recognition.preprocess import INPUT_SIZE


def test_face_file_names_map_to_card_codes() -> None:
    assert card_code("coppe_9") == ("italian", "coppe_9")
    assert card_code("hearts_Q") == ("french", "QH")
    assert card_code("clubs_10") == ("french", "10C")
    assert card_code("bastoni_pip8") is None
    assert card_code("back") is None


def test_catalogue_splits_prints_by_family(fake_shared: Path) -> None:
    french = face_sets("french", fake_shared)
    assert [s.name for s in french] == ["fake_a/french", "fake_b/french"]
    assert len(french[0].files) == 52 and "10H" in french[0].files
    assert [s.name for s in face_sets("italian", fake_shared)] == ["fake_c/napoletane"]
    assert len(back_files(fake_shared)) == 1 and len(texture_files(fake_shared)) == 1


def test_rendered_set_is_reproducible_and_labelled(fake_shared: Path) -> None:
    a = render_set("french", ["fake_a/french"], 1, seed=3, back_count=4, workers=1, root=fake_shared)
    b = render_set("french", ["fake_a/french"], 1, seed=3, back_count=4, workers=1, root=fake_shared)
    c = render_set("french", ["fake_a/french"], 1, seed=4, back_count=4, workers=1, root=fake_shared)
    assert a.images.shape == (56, INPUT_SIZE[1], INPUT_SIZE[0], 3)
    assert np.array_equal(a.images, b.images)
    assert not np.array_equal(a.images, c.images)
    assert a.set_names == ("fake_a/french", NEGATIVES)
    assert (a.labels[-4:] == 52).all() and (a.set_ids[-4:] == 1).all()


def test_occlusion_never_covers_more_than_the_limit() -> None:
    rng = np.random.default_rng(0)
    art = synth.prepare_art(np.full((90, 60, 4), 255, np.uint8), 0.02)
    pool = [synth.prepare_art(np.zeros((90, 60, 4), np.uint8) + np.array([0, 0, 0, 255], np.uint8), 0.0)]
    for _ in range(30):
        canvas = np.zeros((200, 160, 3), np.float32)
        mask = synth.paste(canvas, art, 60, 90, 80, 100, 0.0)
        before = canvas.copy()
        synth.occlude(canvas, mask, (50, 55, 60, 90), pool, rng, max_cover=0.4)
        changed = (np.abs(canvas - before).max(axis=2) > 40) & (mask > 127)
        assert changed.sum() / (mask > 127).sum() <= 0.45


def test_rounded_mask_cuts_the_corners() -> None:
    mask = synth.rounded_mask(60, 90, 8)
    assert mask[0, 0] == 0 and mask[45, 30] == 255 and mask[0, 30] == 255


@pytest.mark.slow
def test_table_style_set_is_reproducible_labelled_and_cached_apart(fake_shared: Path, tmp_path: Path) -> None:
    kw = {"back_count": 4, "workers": 1, "root": fake_shared}
    a = render_set("french", ["fake_a/french"], 1, seed=3, style="table", **kw)  # type: ignore[arg-type]
    b = render_set("french", ["fake_a/french"], 1, seed=3, style="table", **kw)  # type: ignore[arg-type]
    base = render_set("french", ["fake_a/french"], 1, seed=3, **kw)  # type: ignore[arg-type]
    assert a.images.shape == base.images.shape == (56, INPUT_SIZE[1], INPUT_SIZE[0], 3)
    assert np.array_equal(a.images, b.images) and np.array_equal(a.labels, base.labels)
    assert not np.array_equal(a.images, base.images)
    cached_set(tmp_path, "french", ["fake_a/french"], 1, 3, style="table", **kw)
    cached_set(tmp_path, "french", ["fake_a/french"], 1, 3, **kw)
    assert len(list(tmp_path.glob("french-*.npz"))) == 2  # one file per style
    joined = join_sets(base, a)
    assert len(joined) == 112 and joined.set_names == base.set_names
    with pytest.raises(ValueError, match="style"):
        render_set("french", ["fake_a/french"], 1, seed=3, style="nope", **kw)  # type: ignore[arg-type]


def test_pipeline_crop_keeps_the_card_in_the_middle_of_the_crop() -> None:
    """The finder's kind of error moves the edges; the card stays in the crop (but for a rare tail)."""
    rng = np.random.default_rng(0)
    canvas = np.zeros((400, 300, 3), np.float32)
    canvas[100:300, 83:217] = 255.0  # a white card 134 x 200 on black
    quad = np.array([[83, 100], [217, 100], [217, 300], [83, 300]], np.float32)
    centre_white = []
    for _ in range(200):
        crop = synth.pipeline_crop(canvas, quad, INPUT_SIZE, rng)
        assert crop.shape == (INPUT_SIZE[1], INPUT_SIZE[0], 3)
        h, w = crop.shape[:2]
        centre_white.append(crop[h // 3:2 * h // 3, w // 3:2 * w // 3].mean() / 255.0)
    assert np.median(centre_white) > 0.99 and np.mean(np.array(centre_white) > 0.5) >= 0.97


def test_table_card_is_covered_by_at_most_the_limit() -> None:
    rng = np.random.default_rng(1)
    art = synth.prepare_art(np.full((90, 60, 4), 255, np.uint8), 0.02)
    pool = [synth.prepare_art(np.zeros((90, 60, 4), np.uint8) + np.array([0, 0, 0, 255], np.uint8), 0.0)]
    for _ in range(30):
        canvas = np.zeros((300, 240, 3), np.float32)
        mask = synth.paste_box(canvas, art, 60, 90, 120, 150, 0.0)
        before = canvas.copy()
        synth.table_occlusion(canvas, mask, 60, 90, 120, 150, pool, rng, max_cover=0.4)
        changed = (np.abs(canvas - before).max(axis=2) > 60) & (mask > 127)
        assert changed.sum() / (mask > 127).sum() <= 0.45
