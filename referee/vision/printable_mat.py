"""The calibration mat as printable pages of a stated physical size (PDF).

The layout's geometry is scale-free: ``referee calibrate`` measures a homography from the four
corner markers, so a mat works at any size as long as its markers keep the mat's proportions
(:data:`~referee.vision.layout.MAT_SIZE`, :data:`~referee.vision.layout.MARKER_SIZE`,
:data:`~referee.vision.layout.MARKER_INSET`).  Two kinds of print follow from that:

* a **sheet**: the whole mat on one A4 or A3 page (for a small table or a first try);
* a **corner kit**: four pages, one marker each, whose outer paper corners mark the corners of
  a mat as large as a card table (the zones then cover the table).

Pages are drawn as 1-bit bitmaps at :data:`DPI` and saved by Pillow with that resolution, so a
PDF viewer printing "at 100 %" (actual size) reproduces the stated millimetres.

    sheet = render_sheet("A4")           # Page(image, mm_per_unit, ...)
    save_pdf([sheet], "mat-A4.pdf")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from referee.vision.layout import (
    ARUCO_DICT,
    MARKER_IDS,
    MARKER_INSET,
    MARKER_SIZE,
    MAT_SIZE,
    TableLayout,
)

Paper = Literal["A4", "A3"]
#: paper sizes in millimetres, portrait (width, height)
PAPER_MM: dict[Paper, tuple[float, float]] = {"A4": (210.0, 297.0), "A3": (297.0, 420.0)}
#: print resolution of the bitmaps (dots per inch)
DPI = 300
#: width of the whole mat printed on one landscape sheet, millimetres (a 16:9 mat fits the
#: sheet with room for the caption; round numbers so the organiser can check them)
SHEET_MAT_WIDTH_MM: dict[Paper, float] = {"A4": 270.0, "A3": 400.0}
#: width of the mat marked out by a corner kit, millimetres: A4 sheets for a 90 cm card
#: table (the mat lies on it), A3 sheets for a larger table
KIT_MAT_WIDTH_MM: dict[Paper, float] = {"A4": 880.0, "A3": 1200.0}
#: which paper corner of each kit page is the mat's corner (marker ids 0..3: TL, TR, BR, BL)
_CORNER_NAMES_IT = ("in alto a sinistra", "in alto a destra", "in basso a destra", "in basso a sinistra")
_CORNER_NAMES_EN = ("top left", "top right", "bottom right", "bottom left")


@dataclass(frozen=True)
class Page:
    """One printable page: a 1-bit image at :data:`DPI`, and the mat's scale on it."""

    image: Image.Image
    mm_per_unit: float
    title: str

    @property
    def size_mm(self) -> tuple[float, float]:
        w, h = self.image.size
        return (w * 25.4 / DPI, h * 25.4 / DPI)


def mat_size_mm(mat_width_mm: float) -> tuple[float, float]:
    """(width, height) in millimetres of a mat ``mat_width_mm`` wide (the mat is 16:9)."""
    return (mat_width_mm, mat_width_mm * MAT_SIZE[1] / MAT_SIZE[0])


def _px(mm: float) -> int:
    return round(mm * DPI / 25.4)


def _font(size_mm: float, bold: bool = False) -> Any:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu"):
        try:
            return ImageFont.truetype(str(Path(folder) / name), _px(size_mm))
        except OSError:
            continue
    return ImageFont.load_default(_px(size_mm))


def _marker(marker_id: int, side_px: int) -> npt.NDArray[np.uint8]:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICT))
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side_px), np.uint8)


def _paste_marker(page: npt.NDArray[np.uint8], marker_id: int, centre_mm: tuple[float, float], side_mm: float) -> None:
    side = _px(side_mm)
    x0, y0 = _px(centre_mm[0]) - side // 2, _px(centre_mm[1]) - side // 2
    page[y0 : y0 + side, x0 : x0 + side] = _marker(marker_id, side)


def _scale_bar(draw: ImageDraw.ImageDraw, x_mm: float, y_mm: float, font: Any) -> None:
    """A 100 mm bar with end ticks: measured on the print, it proves the print is at 100 %."""
    x0, x1, y = _px(x_mm), _px(x_mm + 100.0), _px(y_mm)
    tick = _px(2.0)
    draw.line([(x0, y), (x1, y)], fill=0, width=_px(0.4))
    for x in (x0, x1):
        draw.line([(x, y - tick), (x, y + tick)], fill=0, width=_px(0.4))
    draw.text((x0, y + _px(2.5)), "100 mm: misuratelo / measure it", fill=0, font=font)


def render_sheet(paper: Paper, seats: Sequence[str] = ("N", "W", "S", "E")) -> Page:
    """The whole mat on one landscape ``paper`` sheet, zones outlined, its size printed on it."""
    page_h, page_w = PAPER_MM[paper]  # landscape
    mat_w, mat_h = mat_size_mm(SHEET_MAT_WIDTH_MM[paper])
    scale = mat_w / MAT_SIZE[0]
    left, top = (page_w - mat_w) / 2, 10.0
    page = np.full((_px(page_h), _px(page_w)), 255, np.uint8)
    for marker_id, (cx, cy) in zip(MARKER_IDS, _marker_centres_mm(scale), strict=True):
        _paste_marker(page, marker_id, (left + cx, top + cy), MARKER_SIZE * scale)
    image = Image.fromarray(page)
    draw = ImageDraw.Draw(image)
    layout = TableLayout.default(tuple(seats))
    thin = max(1, _px(0.3))
    draw.rectangle([_px(left), _px(top), _px(left + mat_w), _px(top + mat_h)], outline=0, width=thin)
    for poly in (layout.play_area, layout.stock):
        pts = [(_px(left + u * scale), _px(top + v * scale)) for u, v in poly]
        draw.line([*pts, pts[0]], fill=0, width=thin)
    label = _font(mat_h / 14, bold=True)
    for seat in layout.seats:
        u, v = layout.edge_point(seat)
        u = min(max(u, 0.08 * MAT_SIZE[0]), 0.92 * MAT_SIZE[0])
        v = min(max(v, 0.1 * MAT_SIZE[1]), 0.9 * MAT_SIZE[1])
        draw.text((_px(left + u * scale), _px(top + v * scale)), seat, fill=0, font=label, anchor="mm")
    small = _font(3.5)
    caption_y = top + mat_h + 6.0
    title = f"Tappeto di calibrazione / calibration mat {mat_w:.0f} x {mat_h:.1f} mm, {paper}"
    draw.text((_px(left), _px(caption_y)), title, fill=0, font=_font(4.5, bold=True))
    draw.text((_px(left), _px(caption_y + 7.0)),
              "Stampare al 100 % (dimensione reale, senza adattare alla pagina). "
              "Print at 100 % (actual size, no fit to page).", fill=0, font=small)
    _scale_bar(draw, left, caption_y + 16.0, small)
    return Page(image.convert("1"), scale, title)


def _marker_centres_mm(scale: float) -> list[tuple[float, float]]:
    w, h = MAT_SIZE
    i = MARKER_INSET
    return [(x * scale, y * scale) for x, y in ((i, i), (w - i, i), (w - i, h - i), (i, h - i))]


def render_corner_kit(paper: Paper) -> list[Page]:
    """Four portrait ``paper`` pages, marker 0..3; each page's outer corner is a mat corner."""
    page_w, page_h = PAPER_MM[paper]
    mat_w, mat_h = mat_size_mm(KIT_MAT_WIDTH_MM[paper])
    scale = mat_w / MAT_SIZE[0]
    inset, side = MARKER_INSET * scale, MARKER_SIZE * scale
    pages = []
    for marker_id in MARKER_IDS:
        right = marker_id in (1, 2)
        bottom = marker_id in (2, 3)
        centre = (page_w - inset if right else inset, page_h - inset if bottom else inset)
        page = np.full((_px(page_h), _px(page_w)), 255, np.uint8)
        _paste_marker(page, marker_id, centre, side)
        image = Image.fromarray(page)
        draw = ImageDraw.Draw(image)
        _corner_arrow(draw, (page_w if right else 0.0, page_h if bottom else 0.0), page_w, page_h)
        big, small = _font(9.0, bold=True), _font(4.2)
        text_y = page_h / 2 - 60.0
        draw.text((_px(page_w / 2), _px(text_y)), f"{marker_id}", fill=0, font=_font(30.0, bold=True), anchor="mm")
        lines = [
            f"Angolo {_CORNER_NAMES_IT[marker_id]} del tappeto (visto dalla camera)",
            f"Mat corner: {_CORNER_NAMES_EN[marker_id]} (as the camera sees it)",
            "",
            f"I 4 fogli segnano un tappeto di {mat_w / 10:.1f} x {mat_h / 10:.2f} cm:",
            "l'angolo del foglio indicato dalla freccia va sull'angolo del tappeto;",
            "la scritta si legge dal lato S (in basso nell'immagine della camera).",
            "Dopo la calibrazione togliete i fogli: la carta bianca sembra una carta.",
            f"The 4 sheets mark a {mat_w / 10:.1f} x {mat_h / 10:.2f} cm mat: the arrowed corner of",
            "each sheet goes on a mat corner, the text read from seat S (image bottom).",
            "Remove the sheets once calibrated: white paper looks like a card.",
            "",
            f"Marker {side:.1f} mm. Stampare al 100 % / print at 100 %.",
        ]
        draw.text((_px(page_w / 2), _px(text_y + 22.0)), f"{paper}  -  {marker_id + 1}/4", fill=0, font=big, anchor="mm")
        for k, line in enumerate(lines):
            draw.text((_px(20.0), _px(text_y + 36.0 + 7.0 * k)), line, fill=0, font=small)
        _scale_bar(draw, 20.0, text_y + 36.0 + 7.0 * len(lines) + 4.0, small)
        title = f"mat corner {marker_id} of {mat_w:.0f} x {mat_h:.1f} mm on {paper}"
        pages.append(Page(image.convert("1"), scale, title))
    return pages


def _corner_arrow(draw: ImageDraw.ImageDraw, corner_mm: tuple[float, float], page_w: float, page_h: float) -> None:
    """An arrow towards the page corner that is the mat's corner, clear of the marker."""
    cx, cy = corner_mm
    sx = -1.0 if cx > 0 else 1.0
    sy = -1.0 if cy > 0 else 1.0
    tip = (cx + sx * 6.0, cy + sy * 6.0)
    tail = (cx + sx * 6.0, cy + sy * 85.0)
    draw.line([(_px(tail[0]), _px(tail[1])), (_px(tip[0]), _px(tip[1]))], fill=0, width=_px(0.8))
    head = [(tip[0], tip[1]), (tip[0] - 3.0, tip[1] + sy * 6.0), (tip[0] + 3.0, tip[1] + sy * 6.0)]
    draw.polygon([(_px(x), _px(y)) for x, y in head], fill=0)


def save_pdf(pages: Sequence[Page], path: str | Path) -> None:
    """Write ``pages`` as one PDF whose pages have their physical size (:data:`DPI`)."""
    first, *rest = (p.image for p in pages)
    first.save(str(path), "PDF", resolution=float(DPI), save_all=True, append_images=rest)


def write_mats(out: Path) -> list[str]:
    """Write each paper size's sheet and corner kit into ``out`` (made if missing); one line
    per paper naming the files and the mat width each prints."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for paper in PAPER_MM:
        save_pdf([render_sheet(paper)], out / f"mat-{paper}.pdf")
        save_pdf(render_corner_kit(paper), out / f"corners-{paper}.pdf")
        written.append(f"wrote {out}/mat-{paper}.pdf (mat {SHEET_MAT_WIDTH_MM[paper]:.0f} mm wide) and "
                       f"{out}/corners-{paper}.pdf (mat {KIT_MAT_WIDTH_MM[paper]:.0f} mm wide)")
    return written
