"""Drawing helpers for the 128x64 one-bit OLED: fonts, a header bar and text fitted to a box.

Text is always drawn at the largest size that fits, so the important word (a seat, a score)
fills the screen and stays readable at arm's length.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 128, 64
HEADER_H = 14

# fonts-dejavu-core on Raspberry Pi OS and Debian; install.sh installs it.
_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def font(size: int, bold: bool = True) -> Font:
    """DejaVu Sans (bold by default: thin strokes vanish on a small OLED), else Pillow's own."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in _FONT_DIRS:
        if (folder / name).exists():
            return ImageFont.truetype(str(folder / name), size)
    return ImageFont.load_default(size)


class Canvas:
    """A one-bit 128x64 image plus the drawing helpers screens use."""

    def __init__(self, inverted: bool = False) -> None:
        # Inverted (lit background) for faults and violations: they must catch the eye.
        self.ink, self.paper = (0, 1) if inverted else (1, 0)
        self.image = Image.new("1", (WIDTH, HEIGHT), self.paper)
        self.draw = ImageDraw.Draw(self.image)

    def text_size(self, text: str, f: Font) -> tuple[int, int]:
        left, top, right, bottom = self.draw.textbbox((0, 0), text, font=f)
        return int(right - left), int(bottom - top)

    def fit(self, text: str, width: int, height: int, largest: int = 40, smallest: int = 9) -> Font:
        """The largest bold font in which ``text`` fits ``width`` x ``height``."""
        for size in range(largest, smallest - 1, -1):
            w, h = self.text_size(text, font(size))
            if w <= width and h <= height:
                return font(size)
        return font(smallest)

    def text(
        self,
        text: str,
        box: tuple[int, int, int, int],
        *,
        largest: int = 40,
        align: str = "center",
        inverse: bool = False,
    ) -> None:
        """Draw ``text`` as large as fits in ``box`` (x0, y0, x1, y1), vertically centred."""
        x0, y0, x1, y1 = box
        f = self.fit(text, x1 - x0, y1 - y0, largest)
        left, top, right, bottom = self.draw.textbbox((0, 0), text, font=f)
        w, h = right - left, bottom - top
        x = {"left": x0, "right": x1 - w, "center": x0 + (x1 - x0 - w) // 2}[align] - left
        y = y0 + (y1 - y0 - h) // 2 - top
        self.draw.text((x, y), text, font=f, fill=self.paper if inverse else self.ink)

    def wrapped(self, text: str, box: tuple[int, int, int, int], *, largest: int = 24) -> None:
        """``text`` on one line or split at a space onto two, whichever allows the larger font."""
        x0, y0, x1, y1 = box
        best: tuple[int, list[str]] = (self._size(text, x1 - x0, y1 - y0, largest), [text])
        words = text.split()
        for i in range(1, len(words)):
            lines = [" ".join(words[:i]), " ".join(words[i:])]
            half = (y1 - y0) // 2
            size = min(self._size(line, x1 - x0, half, largest) for line in lines)
            if size > best[0]:
                best = (size, lines)
        size, lines = best
        line_h = (y1 - y0) // len(lines)
        for i, line in enumerate(lines):
            self.text(line, (x0, y0 + i * line_h, x1, y0 + (i + 1) * line_h), largest=size)

    def _size(self, text: str, width: int, height: int, largest: int) -> int:
        """The font size ``text`` fits ``width`` x ``height`` at; 0 when even the smallest
        overflows, so :meth:`wrapped` prefers two lines that fit to one that is cut off."""
        f = self.fit(text, width, height, largest)
        w, h = self.text_size(text, f)
        return int(getattr(f, "size", 0)) if w <= width and h <= height else 0

    def header(self, text: str, right: str = "") -> None:
        """An inverted bar across the top: what the screen is about, at a glance."""
        self.draw.rectangle((0, 0, WIDTH - 1, HEADER_H - 1), fill=self.ink)
        if right:
            self.text(right, (WIDTH - 44, 1, WIDTH - 2, HEADER_H - 1), largest=12, align="right", inverse=True)
            self.text(text, (2, 1, WIDTH - 46, HEADER_H - 1), largest=12, align="left", inverse=True)
        else:
            self.text(text, (2, 1, WIDTH - 2, HEADER_H - 1), largest=12, inverse=True)

    def rect(self, box: tuple[int, int, int, int], filled: bool = False) -> None:
        self.draw.rectangle(box, outline=self.ink, fill=self.ink if filled else None)
