"""How tall a card lies in a calibrated frame, and the calibration's warning when it is under
what the recogniser reads."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from referee.cli import calibrate as calibrate_cli
from referee.errors import ConfigError
from referee.vision.layout import MAT_SIZE
from referee.vision.printable_mat import DPI, KIT_MAT_WIDTH_MM, mat_size_mm, render_corner_kit
from referee.vision.table_scale import MIN_CARD_PX, mat_width_mm, table_scale

KIT_A4 = KIT_MAT_WIDTH_MM["A4"]


def _straight(px_per_mm: float, mat_width: float = KIT_A4) -> npt.NDArray[np.float64]:
    """mat -> image of a camera looking straight down at ``px_per_mm`` of table."""
    s = px_per_mm * mat_width / MAT_SIZE[0]
    return np.array([[s, 0.0, 10.0], [0.0, s, 10.0], [0.0, 0.0, 1.0]])


def test_the_documented_camera_at_720p_gives_cards_under_80_px_and_says_what_to_change() -> None:
    # the whole 90 cm table plus 5 cm a side in 720 rows: 7.2 px per cm
    scale = table_scale(_straight(0.72), KIT_A4, (1280, 720))
    assert scale.card_px("italian") == pytest.approx(68.4, abs=0.1)
    assert scale.card_px("french") == pytest.approx(64.1, abs=0.1)
    assert scale.too_small() == ["italian", "french"]
    warning = scale.warning()
    assert warning is not None
    assert "italian cards 68 px and french cards 64 px" in warning
    assert "at least 1600x900 and calibrate again with --size 1600x900" in warning
    assert "80% of its height" in warning


def test_the_frame_size_the_warning_asks_for_is_enough() -> None:
    at_720p = table_scale(_straight(0.72), KIT_A4, (1280, 720))
    at_900p = table_scale(_straight(0.72 * 900 / 720), KIT_A4, (1600, 900))
    assert at_900p.too_small() == [] and at_900p.warning() is None
    assert min(at_900p.card_px(f) for f in ("italian", "french")) >= MIN_CARD_PX
    assert at_720p.card_px("french") < MIN_CARD_PX


def test_only_the_family_under_80_px_is_named() -> None:
    scale = table_scale(_straight(0.87), KIT_A4, (1280, 720))  # italian 82.7 px, french 77.4 px
    assert scale.too_small() == ["french"]
    warning = scale.warning()
    assert warning is not None and "french cards 77 px" in warning and "italian" not in warning


def test_a_tilted_camera_is_judged_on_the_far_side_of_the_mat() -> None:
    flat = _straight(0.9)
    tilted = flat.copy()
    tilted[2, 1] = 0.4 / MAT_SIZE[1]  # the mat's far edge lies at 1 / 1.4 of the near edge's scale
    assert table_scale(tilted, KIT_A4, (1280, 720)).px_per_cm < 0.75 * table_scale(flat, KIT_A4, (1280, 720)).px_per_cm


def test_the_mat_print_gives_the_scale_and_an_unknown_one_is_named() -> None:
    image_of_a_sheet = _straight(2.0, mat_width_mm("mat-A4"))
    assert table_scale(image_of_a_sheet, mat_width_mm("mat-A4"), (1280, 720)).px_per_cm == pytest.approx(20.0)
    # the same image read as the 88 cm kit: the mat is 3.3 times larger, so a cm takes fewer px
    assert table_scale(image_of_a_sheet, KIT_A4, (1280, 720)).px_per_cm == pytest.approx(20.0 * 270 / 880)
    with pytest.raises(ConfigError, match="unknown mat print 'mat-A5'"):
        mat_width_mm("mat-A5")


def _kit_photo(px_per_mm: float, margin: int = 30) -> npt.NDArray[np.uint8]:
    """The A4 corner kit laid on a dark table, photographed straight down at ``px_per_mm``."""
    mat_mm = mat_size_mm(KIT_A4)
    mat_w, mat_h = round(mat_mm[0] * px_per_mm), round(mat_mm[1] * px_per_mm)
    table = np.full((mat_h + 2 * margin, mat_w + 2 * margin), 90, np.uint8)
    for marker_id, page in enumerate(render_corner_kit("A4")):
        grey = np.asarray(page.image.convert("L"), np.uint8)
        f = px_per_mm * 25.4 / DPI
        sheet = np.asarray(cv2.resize(grey, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), np.uint8)
        sh, sw = sheet.shape
        x0 = margin + (mat_w - sw if marker_id in (1, 2) else 0)
        y0 = margin + (mat_h - sh if marker_id in (2, 3) else 0)
        table[y0 : y0 + sh, x0 : x0 + sw] = sheet
    return np.asarray(cv2.cvtColor(table, cv2.COLOR_GRAY2BGR), np.uint8)


def _calibrate(tmp_path: Path, photo: npt.NDArray[np.uint8], mat: str = "corners-A4") -> int:
    frame = tmp_path / "frame.png"
    Image.fromarray(photo[:, :, ::-1]).save(frame)
    args = argparse.Namespace(print_mat=None, image=str(frame), source=None, out=str(tmp_path / "layout.json"),
                              seats=None, players=None, preview=None, mat=mat)
    return calibrate_cli.run(args)


def test_calibrating_the_kit_at_7_px_per_cm_warns_and_still_writes_the_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _calibrate(tmp_path, _kit_photo(0.72)) == 0
    printed = capsys.readouterr()
    assert (tmp_path / "layout.json").is_file()
    assert "with the corners-A4 mat: 7.2 px per cm" in printed.out
    assert "WARNING: italian cards 68 px and french cards 64 px tall" in printed.err


def test_calibrating_the_kit_at_11_px_per_cm_does_not_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _calibrate(tmp_path, _kit_photo(1.08)) == 0
    printed = capsys.readouterr()
    assert "10.8 px per cm" in printed.out and "italian 103 px" in printed.out
    assert "WARNING" not in printed.err


def test_calibrate_grabs_from_a_source_at_the_size_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    out = tmp_path / "layout.json"
    assert main(["calibrate", "--source", "sim:briscola-2:1", "--size", "1920x1080", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["frame_size"] == [1920, 1080]
    with pytest.raises(SystemExit):
        main(["calibrate", "--source", "sim", "--size", "1920"])
    assert "expected WIDTHxHEIGHT such as 1920x1080, got '1920'" in capsys.readouterr().err


def test_the_layout_keeps_the_mat_it_was_calibrated_on_and_the_enrolment_grid_is_planned_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.box.enrol_deck import grid_plan
    from referee.vision.layout import TableLayout

    assert _calibrate(tmp_path, _kit_photo(1.08)) == 0
    layout_file = tmp_path / "layout.json"
    assert json.loads(layout_file.read_text())["mat"] == "corners-A4"
    layout = TableLayout.load(layout_file)
    plan = grid_plan(40, "italian", layout.frame_size, layout_file)
    # 10.8 px per cm: a 9.5 cm card 103 px tall; the 88 x 49.5 cm mat holds 4 rows of 10
    assert plan.calibrated and plan.card_px == pytest.approx(102.6, abs=0.5)
    assert (plan.layouts, plan.rows, plan.columns) == (1, 4, 10)
    assert plan.describe("it") == "40 carte: 1 disposizione, 4 file da 10"
    assert grid_plan(52, "french", layout.frame_size, layout_file).describe("it") == (
        "52 carte: 2 disposizioni da 27 (l'ultima da 25), file da 9")
    capsys.readouterr()
    # the same frame at 7.2 px per cm (the documented height at 1280x720): refused, saying why
    assert _calibrate(tmp_path, _kit_photo(0.72)) == 0
    small = TableLayout.load(layout_file)
    with pytest.raises(ConfigError, match=r"only 68 px tall .*measured by the table's calibration.* at least 80 px: "
                                          r"the camera is too far from the table or its resolution too low"):
        grid_plan(40, "italian", small.frame_size, layout_file)
