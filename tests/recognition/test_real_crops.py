"""``referee train --real-photos``: half of the Apache-2.0 pinochle photos as training crops.

The photos are split in blocks of 20 consecutive file names, even blocks train and odd blocks
stay held out (``in_contract_held_out`` in the accuracy report). Tested on a drawn stand-in
for ``../shared/photos/french_pinochle_voc_train``: no real photo needed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.recognition.photo_review import PhotoReview
from referee.recognition.photos import PhotoCard, photo_cards
from referee.recognition.real_crops import (
    BLOCK,
    TRAINABLE,
    allowed_classes,
    build_real_set,
    is_training_photo,
    split_cards,
    training_cards,
)

FRENCH = RECOGNISER_LABELS["french"]
PINOCHLE_RANKS = ("9", "10", "J", "Q", "K", "A")


def card(name: str, rank: str = "K", suit: str | None = None) -> PhotoCard:
    return PhotoCard(TRAINABLE["french"], Path(name), (0, 0, 10, 10), rank, suit)


def test_photos_split_in_blocks_of_consecutive_names() -> None:
    names = [f"IMG_{i:04d}.JPG" for i in range(3 * BLOCK + 5)]
    train, held = split_cards([card(n) for n in reversed(names)])  # order of the labels does not matter
    train_names = {c.image.name for c in train}
    assert train_names == set(names[:BLOCK]) | set(names[2 * BLOCK:3 * BLOCK])
    assert {c.image.name for c in held} == set(names[BLOCK:2 * BLOCK]) | set(names[3 * BLOCK:])
    assert all(is_training_photo(n, names) == (n in train_names) for n in names)
    # two boxes of one photo are always on the same side
    train2, held2 = split_cards([card(n) for n in names] + [card(names[0], "Q"), card(names[BLOCK], "Q")])
    assert (len(train2), len(held2)) == (len(train) + 1, len(held) + 1)


def test_a_rank_only_label_allows_the_four_suits() -> None:
    allowed = allowed_classes(card("a.jpg", "K"), "K", FRENCH)
    assert sorted(FRENCH[i] for i in np.flatnonzero(allowed)) == ["KC", "KD", "KH", "KS"]
    assert [FRENCH[i] for i in np.flatnonzero(allowed_classes(card("a.jpg", "10", "H"), "10", FRENCH))] == ["10H"]
    with pytest.raises(ConfigError, match=r"b.jpg box \(0, 0, 10, 10\): rank 'X'"):
        allowed_classes(card("b.jpg", "X"), "X", FRENCH)


def test_only_the_french_photos_may_be_trained_on() -> None:
    with pytest.raises(ConfigError, match="no real photos that may be trained on for the 'italian' deck"):
        training_cards("italian")


def test_missing_photos_are_named(fake_shared: Path) -> None:
    with pytest.raises(ConfigError, match=r"no labelled photos found in .*french_pinochle_voc_train"):
        training_cards("french", fake_shared)


def test_the_training_side_skips_held_out_photos_and_boxes_outside_the_contract(photo_root: Path) -> None:
    cards = photo_cards("french", photo_root)
    outside = {(c.source, c.image.name, c.box): "partial" for c in cards[:3]}
    chosen = training_cards("french", photo_root, PhotoReview(outside=outside))
    names = sorted(c.image.name for c, _ in chosen)
    assert names == [f"IMG_{i:04d}.JPG" for i in [*range(3, BLOCK), *range(2 * BLOCK, 45)]]
    assert all(rank == c.rank for c, rank in chosen)


def test_the_real_set_holds_seeded_copies_at_the_input_size(photo_root: Path) -> None:
    a = build_real_set("french", FRENCH, (64, 96), seed=3, root=photo_root, variants=3)
    b = build_real_set("french", FRENCH, (64, 96), seed=3, root=photo_root, variants=3)
    assert a.images.shape == (3 * a.crops, 96, 64, 3) and a.crops == 25 and a.photos == 25
    assert np.array_equal(a.images, b.images)  # seeded
    assert not np.array_equal(a.images[0], a.images[1])  # a copy is jittered, the first is the crop
    assert a.allowed.shape == (len(a), len(FRENCH)) and (a.allowed.sum(axis=1) == 4).all()
    # the drawn deck, like the pinochle one, holds 9..A only: the loss is conditioned on those and 'back'
    assert sorted(FRENCH[i] for i in np.flatnonzero(a.support)) == sorted(
        [f"{r}{s}" for r in PINOCHLE_RANKS for s in "CDHS"] + ["back"])


def test_real_loss_is_the_likelihood_of_the_allowed_classes() -> None:
    torch = pytest.importorskip("torch")
    from referee.recognition.train import real_loss

    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0]])
    allowed = torch.tensor([[True, True, False, False], [False, False, False, True]])
    p = torch.softmax(logits, dim=1)
    want = -(torch.log(p[0, :2].sum()) + torch.log(p[1, 3])) / 2
    assert torch.isclose(real_loss(logits, allowed), want)
    # given the deck holds only classes 0, 1 and 3: class 2's share is no evidence either way
    support = torch.tensor([[True, True, False, True]])
    q = torch.softmax(logits[:, [0, 1, 3]], dim=1)
    given = -(torch.log(q[0, :2].sum()) + torch.log(q[1, 2])) / 2
    assert torch.isclose(real_loss(logits, allowed, support), given)
    # so raising a class outside the deck does not change it
    higher = logits.clone()
    higher[:, 2] += 5.0
    assert torch.isclose(real_loss(higher, allowed, support), given)
    assert real_loss(higher, allowed) > real_loss(logits, allowed)


@pytest.mark.slow
def test_training_with_real_photos_records_them(train_fake: Callable[..., dict[str, object]], photo_root: Path,
                                                tmp_path: Path) -> None:
    pytest.importorskip("torch")
    meta = train_fake(tmp_path / "m", tmp_path / "cache", "--real-photos", "0.25", "--shared", str(photo_root))
    training = meta["training"]
    assert isinstance(training, dict)
    given = [f"{r}{s}" for r in ("9", "10", "J", "Q", "K", "A") for s in "CDHS"]
    assert training["real_photos"] == {"set": TRAINABLE["french"], "share": 0.25, "block": BLOCK, "photos": 25,
                                       "crops": 25, "variants": 16, "given": [c for c in FRENCH if c in {*given, "back"}]}
    plain = train_fake(tmp_path / "p", tmp_path / "cache")["training"]
    assert isinstance(plain, dict) and "real_photos" not in plain  # the committed plans stay as they were


@pytest.mark.parametrize("share", ["1.5", "-0.1"])
def test_a_bad_share_is_named(train_fake: Callable[..., dict[str, object]], tmp_path: Path, share: str) -> None:
    pytest.importorskip("torch")
    with pytest.raises(ConfigError, match=f"--real-photos {float(share)}: expected a share"):
        train_fake(tmp_path / "m", tmp_path / "cache", "--real-photos", share)


def test_the_report_scores_the_held_out_half_apart(photo_root: Path, smoke_models: Path) -> None:
    from referee.recognition import CardClassifier
    from referee.recognition.evaluate import on_photos

    clf = CardClassifier.load("french", smoke_models, threads=1)
    report = on_photos(clf, "french", photo_root, straighten=True, review=PhotoReview())
    assert report["in_contract"]["n"] == 45
    assert report["in_contract_held_out"]["n"] == BLOCK  # photos 20-39
    held = {w.split("@")[0] for w in report["in_contract_held_out"]["wrong"]}
    assert held <= {f"IMG_{i:04d}.JPG" for i in range(BLOCK, 2 * BLOCK)}


@pytest.mark.slow
def test_the_report_scores_the_held_out_half_again_at_camera_sizes(photo_root: Path, smoke_models: Path) -> None:
    from referee.recognition import CardClassifier
    from referee.recognition.evaluate import on_photos

    clf = CardClassifier.load("french", smoke_models, threads=1)
    report = on_photos(clf, "french", photo_root, straighten=True, review=PhotoReview(), heights=(80, 40))
    small = report["in_contract_at_height"]
    assert set(small) == {"80", "40"}
    assert all(s["n"] == BLOCK for s in small.values())  # the held-out half only
    assert {w.split("@")[0] for s in small.values() for w in s["wrong"]} <= {f"IMG_{i:04d}.JPG" for i in range(BLOCK, 2 * BLOCK)}
    assert "in_contract_at_height" not in on_photos(clf, "french", photo_root, straighten=True)


def test_a_crop_seen_at_a_camera_height_keeps_its_shape() -> None:
    from referee.recognition.real_crops import seen_at

    cut = np.zeros((300, 200, 3), np.uint8)
    cut[100:200, 50:150] = 255
    small = seen_at(cut, 80, 60)
    assert small.shape == (80, 53, 3)
    assert small[40, 26].min() > 200 and small[5, 5].max() < 40  # area-averaged, not garbled by JPEG
    assert seen_at(cut, None, 95).shape == cut.shape
