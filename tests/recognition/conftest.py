"""Fixtures: a tiny fake ``shared/faces`` tree (drawn here, no real scans needed)."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cards import FRENCH_RANKS, ITALIAN_RANKS, ITALIAN_SUITS

FRENCH_SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def draw_face(text: str, colour: tuple[int, int, int], size: tuple[int, int] = (60, 90)) -> np.ndarray:
    """A white card with a coloured band and its code written on it."""
    w, h = size
    img = np.full((h, w, 3), 245, np.uint8)
    cv2.rectangle(img, (4, 4), (w - 5, h // 3), colour, -1)
    cv2.putText(img, text, (3, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    return img


def make_shared(root: Path) -> Path:
    """Two French prints, one Italian print, a back and a texture under ``root/faces``."""
    rng = np.random.default_rng(0)
    for print_name in ("fake_a/french", "fake_b/french"):
        folder = root / "faces" / print_name
        folder.mkdir(parents=True)
        for suit in FRENCH_SUIT_NAMES:
            for rank in FRENCH_RANKS:
                r, g, b = (int(c) for c in rng.integers(0, 255, 3))
                colour = (r, g, b)
                cv2.imwrite(str(folder / f"{suit}_{rank}.png"), draw_face(f"{rank}{suit[0]}", colour))
    folder = root / "faces" / "fake_c" / "napoletane"
    folder.mkdir(parents=True)
    for suit in ITALIAN_SUITS:
        for rank in ITALIAN_RANKS:
            cv2.imwrite(str(folder / f"{suit}_{rank}.png"), draw_face(f"{suit[:2]}{rank}", (0, 0, 200)))
    backs = root / "faces" / "fake_a" / "backs"
    backs.mkdir()
    cv2.imwrite(str(backs / "back.png"), np.tile(np.array([[0, 0, 200], [200, 200, 200]], np.uint8), (45, 30, 1)))
    tex = root / "faces" / "scopy_lowres_and_textures" / "table_textures"
    tex.mkdir(parents=True)
    cv2.imwrite(str(tex / "felt.png"), rng.integers(0, 80, (200, 300, 3)).astype(np.uint8))
    return root


@pytest.fixture(scope="session")
def face_drawer() -> Callable[..., np.ndarray]:
    return draw_face


@pytest.fixture(scope="session")
def fake_shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_shared(tmp_path_factory.mktemp("shared"))


@pytest.fixture(scope="session")
def smoke_models(fake_shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A French model trained for a few steps on the fake tree (seconds): the training path."""
    from referee.cli import main

    out = tmp_path_factory.mktemp("models")
    cache = tmp_path_factory.mktemp("cache")
    rc = main(["train", "--deck", "french", "--out", str(out), "--steps", "3", "--samples", "104",
               "--table-samples", "52", "--val-per-face", "1", "--batch", "16", "--threads", "1", "--seed", "1",
               "--holdout", "fake_b/french", "--shared", str(fake_shared), "--cache", str(cache),
               "--quiet"])
    assert rc == 0
    return out


@pytest.fixture
def train_fake(fake_shared: Path) -> Callable[..., dict[str, object]]:
    """``train_fake(out, cache, *extra_args)``: a 3-step French run on the fake tree; returns its JSON."""

    def run(out: Path, cache: Path, *extra: str) -> dict[str, object]:
        from referee.cli import main

        rc = main(["train", "--deck", "french", "--out", str(out), "--steps", "3", "--samples", "104",
                   "--val-per-face", "1", "--batch", "16", "--threads", "1", "--seed", "1",
                   "--holdout", "fake_b/french", "--shared", str(fake_shared), "--cache", str(cache), "--quiet", *extra])
        assert rc == 0
        meta: dict[str, object] = json.loads((out / "french.json").read_text())
        return meta

    return run


PINOCHLE_RANKS = ("9", "10", "J", "Q", "K", "A")


def make_photos(root: Path, count: int = 45) -> Path:
    """``root/photos/french_pinochle_voc_train``: one drawn card per photo on a dark cloth."""
    folder = root / "photos" / "french_pinochle_voc_train"
    (folder / "images").mkdir(parents=True)
    rows = []
    for i in range(count):
        img = np.full((300, 240, 3), (40, 90, 30), np.uint8)
        cv2.rectangle(img, (70, 60), (170, 210), (245, 245, 245), -1)
        rank = PINOCHLE_RANKS[i % len(PINOCHLE_RANKS)]
        cv2.putText(img, rank, (80, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
        name = f"IMG_{i:04d}.JPG"
        cv2.imwrite(str(folder / "images" / name), img)
        rows.append({"split": "train", "image": name, "box_index": 0, "xmin": 60, "ymin": 50, "xmax": 180,
                     "ymax": 220, "upstream_class": rank, "canonical_rank": rank, "suit_by_eye": "?",
                     "canonical_label": f"{rank}?", "suit_confidence": "none"})
    with (folder / "labels.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return root


@pytest.fixture(scope="module")
def photo_root(fake_shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fake faces tree plus drawn pinochle photos."""
    root = tmp_path_factory.mktemp("shared_with_photos")
    os.symlink(fake_shared / "faces", root / "faces")
    return make_photos(root)
