"""Catalogue of the card-face scans in ``../shared/faces``: which print, which deck family,
which card code each file is, and the card backs / table textures used as negatives.

Layout (see ``../shared/README.md``): ``faces/<source>/<deck>/<suit>_<rank>.<ext>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import FRENCH_RANKS, ITALIAN_RANKS, ITALIAN_SUITS
from referee.errors import ModelError
from referee.paths import shared_dir

FRENCH_SUIT_LETTERS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: Folders that are not a 40/52-card print (vector sources, extra pips, negatives).
_SKIP_DIRS = ("backs", "extras", "source", "source_svg", "table_textures")
#: Prints scanned without the white card border (SOURCE.md caveats): the renderer adds one.
BORDERLESS = frozenset({"omerkel_scopa_commons/napoletane", "beezlie_napoletane_digital/napoletane"})
#: Textures that carry a "scopy" logo (SOURCE.md says crop or skip them).
_LOGO_TEXTURES = ("Prova_con_Scritta", "scopy")

#: Prints held out of training for validation (whole prints, not random images).
DEFAULT_HOLDOUT: dict[str, tuple[str, ...]] = {
    "italian": ("omerkel_scopa_commons/napoletane", "invido_regional_lowres/sarde"),
    "french": ("knoll_vector_cards_pd/french", "invido_regional_lowres/milanesi"),
}

BGRA = npt.NDArray[np.uint8]


def card_code(stem: str) -> tuple[str, str] | None:
    """(family, code) for a face file stem like ``coppe_9`` or ``hearts_Q``; None if neither."""
    suit, _, rank = stem.partition("_")
    if suit in ITALIAN_SUITS and rank in ITALIAN_RANKS:
        return "italian", f"{suit}_{rank}"
    if suit in FRENCH_SUIT_LETTERS and rank in FRENCH_RANKS:
        return "french", f"{rank}{FRENCH_SUIT_LETTERS[suit]}"
    return None


def read_bgra(path: Path) -> BGRA:
    """Image file as BGRA uint8 (opaque alpha when the file has none); raises naming the file."""
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ModelError(f"cannot read image {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    out: BGRA = np.ascontiguousarray(img[..., :4])
    return out


@dataclass(frozen=True)
class FaceSet:
    """One print of one deck, e.g. ``invido_regional_lowres/trevisane``."""

    name: str
    family: str
    folder: Path

    @property
    def pattern(self) -> str:
        return self.folder.name

    @property
    def bordered(self) -> bool:
        return self.name not in BORDERLESS

    @cached_property
    def files(self) -> dict[str, Path]:
        """Card code -> image file."""
        out: dict[str, Path] = {}
        for path in sorted(self.folder.iterdir()):
            parsed = card_code(path.stem) if path.suffix.lower() in IMAGE_SUFFIXES else None
            if parsed is not None:
                out[parsed[1]] = path
        return out


def _faces_root(root: Path | None) -> Path:
    return (root or shared_dir()) / "faces"


def face_sets(family: str, root: Path | None = None) -> list[FaceSet]:
    """Every print of ``family`` ('italian' or 'french') under ``<shared>/faces``, sorted."""
    sets: list[FaceSet] = []
    base = _faces_root(root)
    for folder in sorted(base.glob("*/*/")):
        if folder.name in _SKIP_DIRS or "extra" in folder.name:
            continue
        families = {
            p[0]
            for f in folder.iterdir()
            if f.suffix.lower() in IMAGE_SUFFIXES and (p := card_code(f.stem)) is not None
        }
        if families == {family}:
            sets.append(FaceSet(f"{folder.parent.name}/{folder.name}", family, folder))
    return sets


def back_files(root: Path | None = None) -> list[Path]:
    """Card backs (every set's ``backs/`` plus the Bellot back) - the face-down class."""
    base = _faces_root(root)
    files = sorted(base.glob("*/backs/*")) + sorted(base.glob("*/extras/back.*"))
    return [f for f in files if f.suffix.lower() in IMAGE_SUFFIXES]


def joker_files(root: Path | None = None) -> list[Path]:
    """Jokers: printed like cards but in no deck, so they must read as 'back' (not a card)."""
    return sorted(_faces_root(root).glob("*/extras/joker*.png"))


def texture_files(root: Path | None = None) -> list[Path]:
    """Table textures (felt, cloth, wood...) without the ones carrying a logo."""
    folder = _faces_root(root) / "scopy_lowres_and_textures" / "table_textures"
    return [p for p in sorted(folder.glob("*.png")) if p.stem not in _LOGO_TEXTURES]
