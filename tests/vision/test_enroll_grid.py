"""`referee enroll --grid`: a deck laid out in rows, photographed; cards found and named by position."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.errors import ConfigError
from referee.paths import models_dir
from referee.recognition import Enrollment
from referee.vision.enroll_grid import deck_order, grid_crops, reading_order

ORDER = ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D", "8D"]


def colour(i: int) -> tuple[int, int, int]:
    """A distinct band colour per card of ORDER, so a cut card tells which one it is."""
    return (int(40 + 20 * i), int(200 - 15 * i), int(60 + (i % 3) * 70))


def card(i: int) -> np.ndarray:
    face = np.full((135, 90, 3), 240, np.uint8)
    cv2.rectangle(face, (10, 30), (80, 105), colour(i), -1)
    return face


def table_photo(cards: list[int], per_row: int, rng: np.random.Generator) -> np.ndarray:
    """Cards laid in rows on a dark cloth, each a little turned and shifted, as hands lay them."""
    photo = np.full((720, 1280, 3), (30, 70, 35), np.uint8)
    for n, i in enumerate(cards):
        row, col = divmod(n, per_row)
        cx, cy = 160 + col * 180 + rng.uniform(-12, 12), 130 + row * 220 + rng.uniform(-25, 25)
        rot = cv2.getRotationMatrix2D((45, 67.5), rng.uniform(-6, 6), 1.0)
        rot[:, 2] += np.array([cx - 45, cy - 67.5])
        face = cv2.warpAffine(card(i), rot, (1280, 720))
        mask = cv2.warpAffine(np.full((135, 90), 255, np.uint8), rot, (1280, 720)) > 128
        photo[mask] = face[mask]
    return photo


def band_of(crop: np.ndarray) -> int:
    """Which card of ORDER a cut card is, by its band colour (either way up)."""
    h, w = crop.shape[:2]
    mean = crop[int(h * 0.35):int(h * 0.65), int(w * 0.3):int(w * 0.7)].reshape(-1, 3).mean(axis=0)
    return int(np.argmin([np.abs(mean - colour(i)).sum() for i in range(len(ORDER))]))


@pytest.fixture()
def laid_out(tmp_path: Path) -> Path:
    rng = np.random.default_rng(4)
    folder = tmp_path / "deck"
    folder.mkdir()
    cv2.imwrite(str(folder / "01.png"), table_photo(list(range(8)), 4, rng))  # two rows of four
    cv2.imwrite(str(folder / "02.png"), table_photo([8, 9], 4, rng))
    return folder


def test_reading_order_is_rows_top_down_then_left_to_right() -> None:
    def quad(cx: float, cy: float) -> np.ndarray:
        return np.array([[cx - 30, cy - 45], [cx + 30, cy - 45], [cx + 30, cy + 45], [cx - 30, cy + 45]], np.float32)

    # the second row's left card lies a little higher than the first row's right one is low
    quads = [quad(300, 130), quad(100, 110), quad(200, 140), quad(250, 300), quad(90, 290)]
    assert reading_order(quads) == [1, 2, 0, 4, 3]


def test_the_cards_are_named_in_the_order_they_lie(laid_out: Path) -> None:
    samples = grid_crops(laid_out, ORDER)
    assert [code for _, code in samples] == ORDER
    assert [band_of(crop) for crop, _ in samples] == list(range(len(ORDER)))


def test_a_missing_card_is_refused_naming_each_photos_count(laid_out: Path) -> None:
    with pytest.raises(ConfigError, match=r"found 10 cards in 2 photos \(01\.png: 8, 02\.png: 2\) but the order lists 11"):
        grid_crops(laid_out, [*ORDER, "9D"])


def test_the_order_is_a_deck_or_a_file_of_codes(tmp_path: Path) -> None:
    assert deck_order("french", "french-32")[:3] == ["7C", "8C", "9C"] and len(deck_order("french", "french-32")) == 32
    assert len(deck_order("italian")) == 40 and deck_order("italian")[0] == "bastoni_1"
    order = tmp_path / "order.txt"
    order.write_text("# our belote deck\n7C, 8C 9C\n10C\n")
    assert deck_order("french", str(order)) == ["7C", "8C", "9C", "10C"]
    order.write_text("7C\n7X\n")
    with pytest.raises(ConfigError, match=r"order\.txt:2: .*7X"):
        deck_order("french", str(order))
    with pytest.raises(ConfigError, match=r"not cards of the 'italian' recogniser"):
        deck_order("italian", "french-32")
    with pytest.raises(ConfigError, match=r"neither a deck .* nor a readable file"):
        deck_order("french", str(tmp_path / "nothing.txt"))


def test_enroll_grid_writes_the_enrollment_and_a_sheet_to_check(
    laid_out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not (models_dir() / "french.onnx").exists():
        pytest.skip("no committed french model")
    order = tmp_path / "order.txt"
    order.write_text("\n".join(ORDER))
    out = tmp_path / "club" / "deck.npz"
    assert main(["enroll", "--deck", "french", "--photos", str(laid_out), "--grid", "--order", str(order),
                 "--out", str(out), "--threads", "1"]) == 0
    assert Enrollment.load(out).codes == tuple(sorted(ORDER))
    said = capsys.readouterr().out
    # a home-made deck the model cannot read: the club is told, and the prototypes weigh most
    assert "the model alone reads 0 of the 10 photos right; enrollment weight 0.97" in said
    sheet = cv2.imread(str(tmp_path / "club" / "deck-sheet.png"))
    assert sheet is not None and sheet.shape[1] > sheet.shape[0]  # one row of ten cards
