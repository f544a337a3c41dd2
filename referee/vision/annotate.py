"""Annotated frames for ``referee watch --annotate``: zones, card quads with labels, the last call.

    writer = AnnotatedVideo("out.webm", fps=10)
    writer.write(annotate(frame.image, layout, live.seen(), "W plays coppe_3", t=frame.t))
    writer.close()
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
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
    status: str = "", width: int | None = None,
) -> Image:
    """A copy of ``image`` with the seat zones, every seen card and the current call drawn.

    ``width``: scale the frame down to this width first and draw on the small copy, so the
    labels keep their size in pixels and stay legible in a small video."""
    scale = 1.0
    out: Any
    if width is not None and width < image.shape[1]:
        scale = width / image.shape[1]
        h = 2 * round(image.shape[0] * scale / 2)  # even sizes: the encoders' colour subsampling
        out = cv2.resize(image, (2 * round(width / 2), h), interpolation=cv2.INTER_AREA)
    else:
        out = image.copy()
    if layout is not None:
        for name, poly in layout.image_polygons().items():
            colour = SEAT_COLOUR if name in layout.seats else ZONE_COLOUR
            pts = np.round(np.asarray(poly) * scale).astype(np.int32)
            cv2.polylines(out, [pts], True, colour, 1, cv2.LINE_AA)
            if name in layout.seats:
                x, y = pts.mean(axis=0)
                cv2.putText(out, name, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, 2)
    for card in seen:
        quad = np.round(np.asarray(card.quad) * scale).astype(np.int32)
        colour = (0, 220, 0) if card.confidence >= 0.8 else (0, 160, 255)
        cv2.polylines(out, [quad], True, colour, 2, cv2.LINE_AA)
        label = f"{card.card} {card.confidence:.2f}"
        x, y = quad.min(axis=0)
        cv2.putText(out, label, (int(x), max(12, int(y) - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 2)
    banner = "  ".join(s for s in (f"t={t:.1f}s" if t is not None else "", call, status) if s)
    if banner:
        cv2.rectangle(out, (0, 0), (out.shape[1], 30), (0, 0, 0), -1)
        # a long banner is set smaller rather than cut off at the frame's edge
        fit = (out.shape[1] - 16) / cv2.getTextSize(banner, cv2.FONT_HERSHEY_SIMPLEX, 0.65, 2)[0][0]
        size = max(0.4, min(0.65, 0.65 * fit))
        cv2.putText(out, banner, (8, 21), cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), 2 if size > 0.5 else 1)
    result: Image = out
    return result


#: container suffix -> OpenCV codec: VP8 WebM plays in every browser (OpenCV's pip wheels
#: cannot write H.264); MPEG-4 Part 2 ``.mp4`` is kept for players that want it, not browsers
CODECS = {".webm": "VP80", ".mp4": "mp4v"}
#: wider frames are scaled down to this width: VP8's encoding time grows with the pixel count
VIDEO_MAX_WIDTH = 960


class AnnotatedVideo:
    """A video writer opened on the first frame (its size is not known before).

    ``.webm`` (VP8, the default everywhere) plays in any browser; ``.mp4`` is MPEG-4 Part 2.
    Frames wider than ``max_width`` are scaled down, keeping their aspect.
    """

    def __init__(self, path: str | Path, fps: float = 10.0, max_width: int = VIDEO_MAX_WIDTH) -> None:
        self.path = Path(path)
        self.fps = fps
        self.max_width = max_width
        if self.path.suffix.lower() not in CODECS:
            raise RefereeError(f"cannot write video {self.path}: the name must end in "
                               f"{' or '.join(CODECS)} (.webm plays in browsers)")
        self._writer: Any = None
        self._size: tuple[int, int] = (0, 0)

    def write(self, image: Image) -> None:
        h, w = image.shape[:2]
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scale = min(1.0, self.max_width / w)
            # even sizes: the encoders' colour subsampling needs them
            self._size = (2 * round(w * scale / 2), 2 * round(h * scale / 2))
            fourcc = cv2.VideoWriter_fourcc(*CODECS[self.path.suffix.lower()])  # type: ignore[attr-defined]
            with _quiet_stderr():  # FFmpeg warns about the WebM codec tag it then fixes itself
                self._writer = cv2.VideoWriter(str(self.path), fourcc, self.fps, self._size)
            if not self._writer.isOpened():
                raise RefereeError(f"cannot write video {self.path}")
        frame: Any = image
        if (w, h) != self._size:
            frame = cv2.resize(image, self._size, interpolation=cv2.INTER_AREA)
        self._writer.write(frame)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence what native code prints on file descriptor 2 (Python's own errors still raise)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
