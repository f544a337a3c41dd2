"""The printable mats: what is printed at the stated size calibrates to the mat's own geometry."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from referee.vision.calibrate import calibrate_image
from referee.vision.layout import MAT_SIZE
from referee.vision.printable_mat import (
    DPI,
    KIT_MAT_WIDTH_MM,
    SHEET_MAT_WIDTH_MM,
    mat_size_mm,
    render_corner_kit,
    render_sheet,
    save_pdf,
)

#: camera resolution of the synthetic photos, pixels per millimetre of table
PX_PER_MM = 1.4


def _grey(page_image: Image.Image, px_per_mm: float) -> npt.NDArray[np.uint8]:
    """The 1-bit page as a grey photo taken at ``px_per_mm``."""
    array = np.asarray(page_image.convert("L"), np.uint8)
    scale = px_per_mm * 25.4 / DPI
    return np.asarray(cv2.resize(array, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)


def _mat_corner_error(
    layout_h: npt.NDArray[np.float64], mat_mm: tuple[float, float], origin_px: tuple[float, float], px_per_mm: float
) -> float:
    """Largest distance (px) between where the layout puts the mat's corners and where they lie."""
    corners = np.array([[0, 0], [MAT_SIZE[0], 0], [MAT_SIZE[0], MAT_SIZE[1]], [0, MAT_SIZE[1]]], np.float64)
    seen = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), layout_h).reshape(-1, 2)
    ox, oy = origin_px
    w, h = mat_mm[0] * px_per_mm, mat_mm[1] * px_per_mm
    true = np.array([[ox, oy], [ox + w, oy], [ox + w, oy + h], [ox, oy + h]])
    return float(np.linalg.norm(seen - true, axis=1).max())


def test_sheet_has_its_stated_physical_size() -> None:
    page = render_sheet("A4")
    w, h = page.size_mm
    assert (w, h) == pytest.approx((297.0, 210.0), abs=0.1)
    assert page.mm_per_unit * MAT_SIZE[0] == pytest.approx(SHEET_MAT_WIDTH_MM["A4"])


def test_sheet_photographed_calibrates_onto_the_printed_mat() -> None:
    page = render_sheet("A4")
    px_per_mm = 4.0  # the sheet close up, as on a desk
    photo = cv2.cvtColor(_grey(page.image, px_per_mm), cv2.COLOR_GRAY2BGR)
    layout = calibrate_image(photo, ("N", "W", "S", "E"))
    mat_mm = mat_size_mm(SHEET_MAT_WIDTH_MM["A4"])
    left_mm, top_mm = (297.0 - mat_mm[0]) / 2, 10.0
    assert _mat_corner_error(layout.homography, mat_mm, (left_mm * px_per_mm, top_mm * px_per_mm), px_per_mm) < 3.0
    centre = ((left_mm + mat_mm[0] / 2) * px_per_mm, (top_mm + mat_mm[1] / 2) * px_per_mm)
    assert layout.zone_of(centre) == "play"


def test_corner_kit_laid_on_a_table_calibrates_onto_the_mat_it_marks() -> None:
    """Four sheets laid with their arrowed corners on the mat's corners give the whole mat."""
    mat_mm = mat_size_mm(KIT_MAT_WIDTH_MM["A4"])
    margin = 40
    table = np.full((round(mat_mm[1] * PX_PER_MM) + 2 * margin, round(mat_mm[0] * PX_PER_MM) + 2 * margin), 90, np.uint8)
    mat_w, mat_h = round(mat_mm[0] * PX_PER_MM), round(mat_mm[1] * PX_PER_MM)
    for marker_id, page in enumerate(render_corner_kit("A4")):
        sheet = _grey(page.image, PX_PER_MM)
        sh, sw = sheet.shape
        x0 = margin + (mat_w - sw if marker_id in (1, 2) else 0)
        y0 = margin + (mat_h - sh if marker_id in (2, 3) else 0)
        table[y0 : y0 + sh, x0 : x0 + sw] = sheet
    layout = calibrate_image(cv2.cvtColor(table, cv2.COLOR_GRAY2BGR), ("N", "W", "S", "E"))
    assert _mat_corner_error(layout.homography, mat_mm, (margin, margin), PX_PER_MM) < 4.0
    assert layout.zone_of((margin + mat_w / 2, margin + mat_h / 2)) == "play"
    assert layout.zone_of((margin + mat_w / 2, margin + mat_h - 20)) == "S"


def test_pdf_pages_carry_the_paper_size(tmp_path: Path) -> None:
    out = tmp_path / "kit.pdf"
    save_pdf(render_corner_kit("A4"), out)
    text = out.read_bytes()
    boxes = [line for line in text.split(b"\n") if b"/MediaBox" in line]
    assert len(boxes) == 4
    for box in boxes:
        w_pt, h_pt = (float(v) for v in box.split(b"[")[1].split(b"]")[0].split()[2:4])
        assert (w_pt * 25.4 / 72, h_pt * 25.4 / 72) == pytest.approx((210.0, 297.0), abs=0.2)
