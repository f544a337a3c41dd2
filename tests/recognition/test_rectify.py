"""Cutting the card out of a labelled box of a photo: a turned card on a cloth as light and busy
as the card itself (the real photos' bedspreads), where a brightness threshold finds no outline."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.errors import ConfigError
from referee.paths import shared_dir
from referee.recognition.rectify import cut_card, cut_card_in_box

CARD_W, CARD_H = 120, 180


def card_face() -> np.ndarray:
    face = np.full((CARD_H, CARD_W, 3), 240, np.uint8)
    cv2.rectangle(face, (20, 30), (100, 150), (40, 40, 200), -1)  # a red picture
    cv2.circle(face, (60, 90), 25, (200, 160, 30), -1)
    cv2.putText(face, "7", (6, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2)
    return face


def busy_photo(angle: float) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The card turned by ``angle`` degrees on a light check cloth; its axis-aligned box."""
    rng = np.random.default_rng(1)
    photo = np.zeros((400, 400, 3), np.uint8)
    for y in range(0, 400, 20):  # light blue/white check, as bright as the card's margin
        for x in range(0, 400, 20):
            photo[y:y + 20, x:x + 20] = (250, 235, 225) if (x + y) // 20 % 2 else (215, 190, 170)
    photo = np.clip(photo + rng.normal(0, 4, photo.shape), 0, 255).astype(np.uint8)
    centre = np.array([200.0, 200.0])
    rot = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), angle, 1.0)
    corners = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float64)
    placed = corners @ rot[:, :2].T + rot[:, 2]
    shift = centre - placed.mean(axis=0)
    rot[:, 2] += shift
    warped = cv2.warpAffine(card_face(), rot, (400, 400))
    mask = cv2.warpAffine(np.full((CARD_H, CARD_W), 255, np.uint8), rot, (400, 400))
    photo[mask > 128] = warped[mask > 128]
    pts = placed + shift
    box = (int(pts[:, 0].min()), int(pts[:, 1].min()), int(pts[:, 0].max()) + 1, int(pts[:, 1].max()) + 1)
    return photo, box


def upright_error(crop: np.ndarray) -> float:
    """Mean difference from the card face, either way up (the cutter does not know which)."""
    want = card_face().astype(np.float32)
    got = cv2.resize(crop, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    return float(min(np.abs(got - want).mean(), np.abs(got[::-1, ::-1] - want).mean()))


@pytest.mark.parametrize("angle", [25.0, 40.0, -30.0])
def test_a_turned_card_on_a_busy_light_cloth_is_cut_straight(angle: float) -> None:
    photo, box = busy_photo(angle)
    crop = cut_card_in_box(photo, box)
    h, w = crop.shape[:2]
    assert h > w and abs(h - CARD_H) <= 0.1 * CARD_H and abs(w - CARD_W) <= 0.1 * CARD_W
    assert upright_error(crop) < 25
    x0, y0, x1, y1 = box
    # the brightness cutter on the same window: no card outline, the box comes back unstraightened
    assert upright_error(cut_card(photo[y0:y1, x0:x1])) > 2 * upright_error(crop)


def test_a_box_off_the_photo_is_refused_and_a_layout_row_with_one_is_named(tmp_path: Path,
                                                                       smoke_models: Path) -> None:
    photo, _ = busy_photo(20.0)
    with pytest.raises(ValueError, match=r"box \(500, 500, 600, 650\) holds no card in a 400x400 image"):
        cut_card_in_box(photo, (500, 500, 600, 650))
    cv2.imwrite(str(tmp_path / "p.png"), photo)
    layout = tmp_path / "layout.csv"
    layout.write_text("image,code,x0,y0,x1,y1\np.png,7S,100,80,300,320\np.png,QS,500,500,600,650\n")
    with pytest.raises(ConfigError, match=r"layout\.csv:3: .*holds no card"):
        main(["enroll", "--deck", "french", "--photos", str(tmp_path), "--layout", str(layout),
              "--out", str(tmp_path / "x.npz"), "--model-dir", str(smoke_models)])


TRIESTINE = shared_dir() / "photos" / "italian_triestine_tressette_test" / "images" / "Img_205.jpg"


@pytest.mark.shared("photos/italian_triestine_tressette_test/images/Img_205.jpg")
def test_the_same_box_is_cut_the_same_whatever_ran_before() -> None:
    """GrabCut seeds its colour models from OpenCV's global RNG: what ran before must not change
    the cut. Without a fixed seed this box came out 323x85 or 123x46 px, and benchmark figures
    moved by a card between runs."""
    photo = np.asarray(cv2.imread(str(TRIESTINE)), np.uint8)
    box = (251, 243, 535, 320)
    first = cut_card_in_box(photo, box)
    for _ in range(3):
        cv2.randu(np.zeros((50, 50), np.float32), np.zeros(1), np.ones(1))  # moves the global RNG, as an earlier cut does
        again = cut_card_in_box(photo, box)
        assert again.shape == first.shape and np.array_equal(again, first)
