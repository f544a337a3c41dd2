"""The real Napoletane decks: labels and verified quads read strictly, crops cut along the quads,
and the Italian recipe trained on whole decks (drawn stand-in photos, no real ones needed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.recognition import real_decks
from referee.recognition.real_crops import CAMERA_HEIGHTS, build_deck_set, camera_copy
from referee.recognition.real_decks import SET, cut, deck_photos, read_quads

ITALIAN = RECOGNISER_LABELS["italian"]
CARDS = ("coppe_1", "denari_7", "spade_10")
#: where the drawn card lies in every stand-in photo (TL, TR, BR, BL)
QUAD = ((70.0, 60.0), (170.0, 60.0), (170.0, 220.0), (70.0, 220.0))
HEADER = "file,x0,y0,x1,y1,x2,y2,x3,y3,method,note"


def make_decks(root: Path, decks: tuple[str, ...] = ("deck01", "deck02")) -> Path:
    """``root/photos/italian_napoletane_real_decks``: one drawn card per photo on a dark cloth,
    and ``root/quads.csv`` with each card's quad."""
    folder = root / "photos" / SET
    rows, quads = ["file,card,deck,split"], [HEADER]
    for deck in decks:
        (folder / deck).mkdir(parents=True)
        for i, card in enumerate(CARDS):
            img = np.full((300, 240, 3), (40, 90, 30), np.uint8)
            cv2.rectangle(img, (70, 60), (170, 220), (245, 245, 245), -1)
            cv2.putText(img, card[:2] + card.split("_")[1], (78, 100 + 30 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 160), 2)
            cv2.imwrite(str(folder / deck / f"{card}.jpg"), img)
            rows.append(f"{deck}/{card}.jpg,{card},{deck},train")
            quads.append(f"{deck}/{card}.jpg," + ",".join(f"{v}" for xy in QUAD for v in xy) + ",finder,")
    (folder / "labels.csv").write_text("\n".join(rows) + "\n")
    (root / "quads.csv").write_text("# how made\n" + "\n".join(quads) + "\n")
    return root


@pytest.fixture
def deck_root(tmp_path: Path) -> Path:
    return make_decks(tmp_path)


def test_every_photo_comes_with_its_card_deck_and_quad(deck_root: Path) -> None:
    photos = deck_photos(deck_root, deck_root / "quads.csv")
    assert [(p.deck, p.card) for p in photos] == [(d, c) for d in ("deck01", "deck02") for c in sorted(CARDS)]
    assert all(p.quad is not None and p.quad.tolist() == [list(xy) for xy in QUAD] for p in photos)
    assert [p.card for p in deck_photos(deck_root, deck_root / "quads.csv", ["deck02"])] == sorted(CARDS)


def test_a_crop_is_the_card_straightened_along_its_quad(deck_root: Path) -> None:
    crop = cut(deck_photos(deck_root, deck_root / "quads.csv")[0])
    assert crop.shape[:2] == (160, 100)
    assert float(crop[5:20, 5:95].mean()) > 200  # card stock, no cloth


def test_a_misnamed_photo_is_named_with_its_line(deck_root: Path) -> None:
    labels = deck_root / "photos" / SET / "labels.csv"
    labels.write_text(labels.read_text().replace("deck01/denari_7.jpg,denari_7", "deck01/denari_7.jpg,denari_8"))
    with pytest.raises(ConfigError, match=r"labels\.csv, line 3: file 'deck01/denari_7\.jpg' should be named deck01/denari_8\.jpg"):
        deck_photos(deck_root, deck_root / "quads.csv")


def test_a_photo_that_is_not_there_is_named(deck_root: Path) -> None:
    os.remove(deck_root / "photos" / SET / "deck02" / "spade_10.jpg")
    with pytest.raises(ConfigError, match=r"line 7: no such photo .*deck02/spade_10\.jpg"):
        deck_photos(deck_root, deck_root / "quads.csv")


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace(",finder,", ",by-hand,", 1), r"line 3: method 'by-hand': expected one of"),
    (lambda t: t.replace("deck01/coppe_1.jpg,70.0", "deck01/coppe_9.jpg,70.0"), r"line 3: 'deck01/coppe_9\.jpg' is not a photo of labels\.csv"),
    (lambda t: t.replace("deck02/denari_7.jpg,70.0", "deck02/coppe_1.jpg,70.0"), r"line 7: deck02/coppe_1\.jpg has a quad already"),
    (lambda t: "\n".join(t.splitlines()[:-1]) + "\n", r"no row for 1 photos, e.g. deck02/spade_10\.jpg"),
    (lambda t: t.replace("70.0,60.0,170.0", "70.0,sixty,170.0", 1), r"line 3: corners must be 8 numbers"),
    (lambda t: t.replace(",finder,", ",excluded,", 1), r"line 3: an excluded photo has no corners and a note saying why"),
    (lambda t: t.replace(HEADER, "file,quad,method"), r"header must be file,x0"),
])
def test_a_bad_quads_row_is_named_and_nothing_is_read(deck_root: Path, change: object, message: str) -> None:
    path = deck_root / "quads.csv"
    assert callable(change)
    path.write_text(change(path.read_text()))
    with pytest.raises(ConfigError, match=message):
        deck_photos(deck_root, path)


def test_an_excluded_photo_keeps_its_reason_and_is_not_trained_on(deck_root: Path) -> None:
    path = deck_root / "quads.csv"
    lines = path.read_text().splitlines()
    lines[2] = 'deck01/coppe_1.jpg,,,,,,,,,excluded,"cut inside the card, twice"'
    path.write_text("\n".join(lines) + "\n")
    photo = deck_photos(deck_root, path)[0]
    assert photo.quad is None and photo.note == "cut inside the card, twice"
    assert read_quads(path, {f"{d}/{c}.jpg": (c, d) for d in ("deck01", "deck02") for c in CARDS})[
        "deck01/coppe_1.jpg"][0] is None
    real = build_deck_set(ITALIAN, (64, 96), 0, ["deck01"], deck_root, variants=2, quads=path)
    assert real.photos == 2 and len(real) == 4


def test_deck_crops_are_seeded_one_class_each_and_every_deck_is_asked_for(deck_root: Path) -> None:
    a = build_deck_set(ITALIAN, (64, 96), 5, ["deck02"], deck_root, variants=3, quads=deck_root / "quads.csv")
    b = build_deck_set(ITALIAN, (64, 96), 5, ["deck02"], deck_root, variants=3, quads=deck_root / "quads.csv")
    assert a.images.shape == (9, 96, 64, 3) and np.array_equal(a.images, b.images)
    assert a.allowed.sum(axis=1).tolist() == [1] * 9
    assert [ITALIAN[i] for i in a.allowed.argmax(axis=1)] == [c for c in sorted(CARDS) for _ in range(3)]
    with pytest.raises(ConfigError, match="no such deck deck09"):
        build_deck_set(ITALIAN, (64, 96), 5, ["deck09"], deck_root, quads=deck_root / "quads.csv")
    with pytest.raises(ConfigError, match="--real-decks: name the decks"):
        build_deck_set(ITALIAN, (64, 96), 5, [], deck_root, quads=deck_root / "quads.csv")


def test_a_camera_copy_is_as_small_as_the_box_camera_sees_a_card() -> None:
    image = np.full((1280, 960, 3), 60, np.uint8)
    cv2.rectangle(image, (200, 150), (760, 1100), (245, 245, 245), -1)
    quad = np.array([[200, 150], [760, 150], [760, 1100], [200, 1100]], np.float32)
    rng = np.random.default_rng(0)
    heights = [camera_copy(image, quad, rng).shape[0] for _ in range(40)]
    assert CAMERA_HEIGHTS[0] <= min(heights) and max(heights) <= CAMERA_HEIGHTS[1]
    assert max(heights) - min(heights) > 60  # spread over the range, not one size


def _train_italian(root: Path, out: Path, fake_shared: Path, *extra: str) -> dict[str, object]:
    from referee.cli import main

    shared = root / "shared"
    shared.mkdir(exist_ok=True)
    if not (shared / "faces").exists():
        os.symlink(fake_shared / "faces", shared / "faces")
        os.symlink(root / "photos", shared / "photos")
    rc = main(["train", "--deck", "italian", "--out", str(out), "--steps", "3", "--samples", "80",
               "--val-per-face", "1", "--batch", "16", "--threads", "1", "--seed", "1", "--holdout",
               "--shared", str(shared), "--cache", str(root / "cache"), "--quiet", *extra])
    assert rc == 0
    meta: dict[str, object] = json.loads((out / "italian.json").read_text())
    return meta


def test_italian_training_on_real_decks_records_them(deck_root: Path, fake_shared: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.setattr(real_decks, "QUADS", deck_root / "quads.csv")
    meta = _train_italian(deck_root, deck_root / "m", fake_shared, "--real-photos", "0.25", "--real-decks", "deck02")
    training = meta["training"]
    assert isinstance(training, dict)
    assert training["real_photos"] == {"set": SET, "share": 0.25, "decks": ["deck02"], "photos": 3, "variants": 24}


@pytest.mark.parametrize(("deck", "args", "message"), [
    ("italian", ["--real-decks", "deck01"], "--real-decks: needs --real-photos SHARE"),
    ("italian", ["--real-photos", "0.1"], "the italian deck trains on --real-decks DECK"),
    ("french", ["--real-photos", "0.1", "--real-decks", "deck01"], "--real-decks is italian only"),
])
def test_real_deck_options_that_do_not_fit_are_named(deck: str, args: list[str], message: str, fake_shared: Path,
                                                    tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from referee.cli import main

    with pytest.raises(ConfigError, match=message):
        main(["train", "--deck", deck, "--out", str(tmp_path / "m"), "--steps", "3", "--samples", "80",
              "--val-per-face", "1", "--batch", "16", "--threads", "1", "--holdout", "--shared", str(fake_shared),
              "--cache", str(tmp_path / "cache"), "--quiet", *args])
    assert not (tmp_path / "m").exists()
