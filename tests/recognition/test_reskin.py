"""``referee train --real-photos SHARE --reskin``: the real photos' light under rendered faces.

Tested on the drawn stand-in photos (``photo_root``) and the fake faces tree: no real photo needed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.recognition import synth
from referee.recognition.real_crops import TRAINABLE, training_cards
from referee.recognition.reskin import build_reskin_set, light_field, reskin

FRENCH = RECOGNISER_LABELS["french"]


def test_the_light_field_is_the_paper_not_the_ink() -> None:
    cut = np.full((240, 160, 3), (200, 180, 160), np.uint8)  # a warm-lit card
    cut[60:200, 30:130] = 20  # a court's picture, most of the card
    cut[:, :80] = (cut[:, :80] * 0.8).astype(np.uint8)  # the left half in shade
    light = light_field(cut)
    assert light[120, 80].min() > 120  # the paper under the picture, not its ink
    assert light[10, 150].mean() - light[10, 5].mean() > 20  # the light's gradient kept


def test_a_reskinned_crop_keeps_the_photo_outside_the_card_and_its_light_inside() -> None:
    rng = np.random.default_rng(0)
    cut = np.full((240, 160, 3), 40, np.uint8)
    cut[:, :] = (120, 200, 220)  # paper under a yellow light
    cut[0:6, 0:6] = (0, 255, 0)  # the photo's background in a corner
    face = np.full((90, 60, 4), 255, np.uint8)
    face[..., :3] = 245
    face[30:60, 20:40, :3] = (0, 0, 200)  # a red pip
    art = synth.prepare_art(face, 0.03, paper=245)
    out = reskin(cut, art, 245, rng)
    assert tuple(out[1, 1]) == (0, 255, 0)  # outside the rounded corner: the real pixels
    paper = out[200, 30].astype(int)
    assert abs(paper[0] - 120) < 15 and abs(paper[2] - 220) < 15  # the face's paper under the photo's light
    pip = out[120, 80].astype(int)
    assert pip[0] < 40 and pip[2] > 120  # the face's ink, lit


def test_the_reskinned_set_labels_each_copy_with_the_painted_card(photo_root: Path) -> None:
    a = build_reskin_set("french", FRENCH, (64, 96), 7, ["fake_a/french"], root=photo_root, variants=3)
    b = build_reskin_set("french", FRENCH, (64, 96), 7, ["fake_a/french"], root=photo_root, variants=3)
    carriers = training_cards("french", photo_root)
    assert a.images.shape == (3 * len(carriers), 96, 64, 3) and a.crops == len(carriers)
    assert np.array_equal(a.images, b.images)  # seeded
    assert (a.allowed.sum(axis=1) == 1).all() and a.support.all()  # one-hot, every class possible
    painted = {FRENCH[i] for i in np.flatnonzero(a.allowed.any(axis=0))}
    assert "back" not in painted and any(code[:-1] in {"2", "3", "4", "5", "6", "7", "8"} for code in painted)


def test_an_unknown_print_is_named(photo_root: Path) -> None:
    with pytest.raises(ConfigError, match="no print nowhere/french"):
        build_reskin_set("french", FRENCH, (64, 96), 7, ["nowhere/french"], root=photo_root)


def test_training_with_reskinned_photos_records_them(train_fake: Callable[..., dict[str, object]], photo_root: Path,
                                                     tmp_path: Path) -> None:
    pytest.importorskip("torch")
    meta = train_fake(tmp_path / "m", tmp_path / "cache", "--real-photos", "0.25", "--reskin", "--shared", str(photo_root))
    training = meta["training"]
    assert isinstance(training, dict)
    real = training["real_photos"]
    assert real["reskin"] is True and real["set"] == TRAINABLE["french"] and real["given"] == list(FRENCH)
    with pytest.raises(ConfigError, match="--reskin: needs --real-photos"):
        train_fake(tmp_path / "n", tmp_path / "cache", "--reskin", "--shared", str(photo_root))
