"""A fake ``../shared`` holding one French print filed under Kennard's name (so it counts as a
print with corner indices) and one table texture: the render tests' stand-in for the real scans."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

KENNARD = "kennard_cc0_svg/french"
SUITS = ("clubs", "diamonds", "hearts", "spades")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def write_french_print(root: Path, face: Callable[[str, str], npt.NDArray[np.uint8]]) -> Path:
    """Write ``face(suit, rank)`` for all 52 cards under ``root/faces/<Kennard>`` and a felt
    texture; returns ``root`` (pass it as the shared folder)."""
    folder = root / "faces" / KENNARD
    folder.mkdir(parents=True)
    for suit in SUITS:
        for rank in RANKS:
            cv2.imwrite(str(folder / f"{suit}_{rank}.png"), face(suit, rank))
    tex = root / "faces" / "scopy_lowres_and_textures" / "table_textures"
    tex.mkdir(parents=True)
    cv2.imwrite(str(tex / "felt.png"), np.random.default_rng(1).integers(0, 80, (200, 300, 3)).astype(np.uint8))
    return root
