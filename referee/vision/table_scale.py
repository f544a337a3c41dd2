"""How large a card lies in a calibrated camera's frame, told before the first deal.

The recogniser reads cards at least :data:`MIN_CARD_PX` pixels tall (its input contract,
``docs/design/recognition.md``). A calibration knows the homography mat -> image, and the mat
was printed at a stated size (``hardware/mat/``), so it knows how many image pixels a
centimetre of table takes, and from that how tall each family's cards will be:

    scale = table_scale(layout.homography, mat_width_mm("corners-A4"))
    scale.card_px("italian")      # 68.4 at 7.2 px/cm (the whole 90 cm table in 720 rows)
    scale.warning()               # what to change when a card would be under 80 px, else None
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import ConfigError
from referee.vision.layout import MAT_SIZE
from referee.vision.printable_mat import KIT_MAT_WIDTH_MM, SHEET_MAT_WIDTH_MM

if TYPE_CHECKING:
    from referee.vision.layout import TableLayout

#: the shortest card (pixels, its long side) the recogniser is trained and measured on
MIN_CARD_PX = 80.0
#: a card's long side, millimetres: regional Italian cards (Napoletane, Trevisane) about 95,
#: French bridge and poker cards 89
CARD_HEIGHT_MM: dict[str, float] = {"italian": 95.0, "french": 89.0}
#: the printed mats of ``hardware/mat/`` by file name: the width (mm) of the mat each marks out
MAT_PRINTS: dict[str, float] = {
    "corners-A4": KIT_MAT_WIDTH_MM["A4"],
    "corners-A3": KIT_MAT_WIDTH_MM["A3"],
    "mat-A4": SHEET_MAT_WIDTH_MM["A4"],
    "mat-A3": SHEET_MAT_WIDTH_MM["A3"],
}
#: the print a layout is read as when it does not name one (``referee calibrate --mat``'s default)
DEFAULT_MAT_PRINT = "corners-A4"


def mat_width_mm(print_name: str) -> float:
    """The width of the mat marked out by the print ``print_name`` (a name of :data:`MAT_PRINTS`)."""
    try:
        return MAT_PRINTS[print_name]
    except KeyError:
        raise ConfigError(f"unknown mat print {print_name!r}: one of {', '.join(MAT_PRINTS)}") from None


@dataclass(frozen=True)
class TableScale:
    """Image pixels per centimetre of table where the calibrated mat shows smallest (the far
    side of a tilted camera), in a frame of ``frame_size`` (width, height)."""

    px_per_cm: float
    frame_size: tuple[int, int]

    def card_px(self, family: str) -> float:
        """How tall a card of ``family`` (``italian``/``french``) lies in the frame, pixels."""
        return self.px_per_cm * CARD_HEIGHT_MM[family] / 10.0

    def too_small(self) -> list[str]:
        """The families whose cards lie under :data:`MIN_CARD_PX` tall."""
        return [family for family in CARD_HEIGHT_MM if self.card_px(family) < MIN_CARD_PX]

    def summary(self) -> str:
        sizes = ", ".join(f"{family} {self.card_px(family):.0f} px" for family in CARD_HEIGHT_MM)
        return f"{self.px_per_cm:.1f} px per cm of table: a card is {sizes} tall"

    def warning(self) -> str | None:
        """What to change when a family's cards lie under :data:`MIN_CARD_PX`, else ``None``."""
        small = self.too_small()
        if not small:
            return None
        needed = max(MIN_CARD_PX / self.card_px(family) for family in small)
        w, h = self.frame_size
        # a 16:9 frame at least ``needed`` times as tall, as even numbers (the ISP's scaler)
        rows = 2 * math.ceil(h * needed / 2)
        cols = 2 * math.ceil(rows * w / h / 2)
        sizes = " and ".join(f"{family} cards {self.card_px(family):.0f} px" for family in small)
        return (f"{sizes} tall here, under the {MIN_CARD_PX:.0f} px the recogniser reads: it will "
                f"misread or miss them. Either set camera.width/height to at least {cols}x{rows} and "
                f"calibrate again with --size {cols}x{rows}, or lower the camera to {100 / needed:.0f}% of its height over the "
                f"table (then the frame covers less of the table); hardware/README.md, 'Camera'")


def table_scale(homography: npt.NDArray[Any], mat_width: float, frame_size: tuple[int, int]) -> TableScale:
    """The :class:`TableScale` of a layout's mat -> image ``homography`` for a mat printed
    ``mat_width`` millimetres wide, measured at the mat's centre and corners (the smallest)."""
    mm_per_unit = mat_width / MAT_SIZE[0]
    w, h = MAT_SIZE
    smallest = math.inf
    for x, y in ((w / 2, h / 2), (0.0, 0.0), (w, 0.0), (w, h), (0.0, h)):
        # the image of a 1 x 1 mat-unit square there: its area's square root is px per unit
        square = np.array([[x, y], [x + 1.0, y], [x, y + 1.0]], np.float64).reshape(-1, 1, 2)
        p, px, py = cv2.perspectiveTransform(square, np.asarray(homography, np.float64)).reshape(-1, 2)
        (ax, ay), (bx, by) = px - p, py - p
        area = abs(float(ax * by - ay * bx))
        smallest = min(smallest, math.sqrt(area))
    return TableScale(px_per_cm=smallest / mm_per_unit * 10.0, frame_size=frame_size)


def layout_scale(layout: TableLayout) -> TableScale:
    """The :class:`TableScale` of a calibrated layout, for the mat it names (the corner kit,
    :data:`DEFAULT_MAT_PRINT`, when it names none)."""
    return table_scale(layout.homography, mat_width_mm(layout.mat or DEFAULT_MAT_PRINT), layout.frame_size)
