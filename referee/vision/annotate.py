"""Annotated frames for ``referee watch --annotate``: zones, card quads with labels, the last call.

    writer = AnnotatedVideo("out.mp4", fps=10)
    writer.write(annotate(frame.image, layout, live.seen(), "W plays coppe_3", t=frame.t))
    writer.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import RefereeError
from referee.vision.detections import Image

SEAT_COLOUR = (255, 160, 0)
ZONE_COLOUR = (0, 200, 255)


class ZoneDrawing(Protocol):
    @property
    def seats(self) -> tuple[str, ...]: ...
    def image_polygons(self) -> dict[str, npt.NDArray[Any]]: ...


class SeenLike(Protocol):
    @property
    def card(self) -> str: ...
    @property
    def quad(self) -> npt.NDArray[Any]: ...
    @property
    def confidence(self) -> float: ...


def annotate(
    image: Image, layout: ZoneDrawing | None, seen: Sequence[SeenLike], call: str = "", t: float | None = None,
    status: str = "",
) -> Image:
    """A copy of ``image`` with the seat zones, every seen card and the current call drawn."""
    out = image.copy()
    if layout is not None:
        for name, poly in layout.image_polygons().items():
            colour = SEAT_COLOUR if name in layout.seats else ZONE_COLOUR
            pts = np.round(np.asarray(poly)).astype(np.int32)
            cv2.polylines(out, [pts], True, colour, 1, cv2.LINE_AA)
            if name in layout.seats:
                x, y = pts.mean(axis=0)
                cv2.putText(out, name, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, 2)
    for card in seen:
        quad = np.round(np.asarray(card.quad)).astype(np.int32)
        colour = (0, 220, 0) if card.confidence >= 0.8 else (0, 160, 255)
        cv2.polylines(out, [quad], True, colour, 2, cv2.LINE_AA)
        label = f"{card.card} {card.confidence:.2f}"
        x, y = quad.min(axis=0)
        cv2.putText(out, label, (int(x), max(12, int(y) - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 2)
    banner = "  ".join(s for s in (f"t={t:.1f}s" if t is not None else "", call, status) if s)
    if banner:
        cv2.rectangle(out, (0, 0), (out.shape[1], 30), (0, 0, 0), -1)
        cv2.putText(out, banner, (8, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.65, (255, 255, 255), 2)
    return out


class AnnotatedVideo:
    """An mp4 writer opened on the first frame (its size is not known before)."""

    def __init__(self, path: str | Path, fps: float = 10.0) -> None:
        self.path = Path(path)
        self.fps = fps
        self._writer: Any = None

    def write(self, image: Image) -> None:
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fourcc = cv2.VideoWriter_fourcc(*"mp4v")  # type: ignore[attr-defined]
            h, w = image.shape[:2]
            self._writer = cv2.VideoWriter(str(self.path), fourcc, self.fps, (w, h))
            if not self._writer.isOpened():
                raise RefereeError(f"cannot write video {self.path}")
        self._writer.write(image)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None
