"""Card faces, backs and table cloths read by path from ``../shared`` (never copied).

A *face set* is named ``<set>/<deck>``, e.g. ``invido_regional_lowres/trevisane`` or
``kennard_cc0_svg/french``.  Every face becomes a :class:`Sprite`: a BGR image of the whole
card (white stock, rounded corners) plus an alpha mask, so sets scanned without their white
border look like real cards on the table.

Without ``../shared/faces`` the faces come from the two sets bundled in the package
(``referee/vision/assets/faces``: the default Italian and French sets, see its ``PROVENANCE.md``), so
the demo and the tests run from a fresh clone; with it, only ``../shared`` is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import FRENCH_SUIT_NAMES, parse_card
from referee.errors import RefereeError
from referee.paths import BUNDLED_ASSETS, shared_dir

#: BGR uint8 images and float32 masks; typed loosely because OpenCV's stubs return plain Mats
Image = npt.NDArray[Any]
Mask = npt.NDArray[Any]

#: sets whose scans are cut out without the white card border: composited onto a blank
BORDERLESS_SETS = frozenset({"omerkel_scopa_commons"})
#: the texture files under ``faces/scopy_lowres_and_textures/table_textures``
TEXTURE_DIR = Path("faces/scopy_lowres_and_textures/table_textures")


class AssetError(RefereeError, FileNotFoundError):
    """A face set, card face or texture that is not where ``../shared`` should have it."""


@dataclass(frozen=True, slots=True)
class Sprite:
    """A card image (BGR uint8, portrait) and its coverage mask (float32 0..1, same size)."""

    image: Image
    alpha: Mask

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.image.shape[1], self.image.shape[0]


def faces_root() -> Path:
    """``../shared/faces`` when it exists, else the face sets bundled in the package."""
    shared = shared_dir() / "faces"
    return shared if shared.is_dir() else BUNDLED_ASSETS / "faces"


def face_sets(family: str | None = None) -> list[str]:
    """Every complete face set under ``../shared/faces`` (``italian`` 40 or ``french`` 52 faces)."""
    found: list[str] = []
    root = faces_root()
    if not root.is_dir():
        return found
    for deck_dir in sorted(p for p in root.glob("*/*") if p.is_dir()):
        fam = _family_of(deck_dir)
        if fam is not None and (family is None or fam == family):
            found.append(f"{deck_dir.parent.name}/{deck_dir.name}")
    return found


def _family_of(deck_dir: Path) -> str | None:
    names = {p.stem for p in deck_dir.iterdir() if p.suffix.lower() in (".png", ".jpg")}
    if {f"{s}_{r}" for s in ("bastoni", "coppe", "denari", "spade") for r in range(1, 11)} <= {
        n for n in names
    }:
        return "italian"
    if all(f"{s}_{r}" in names for s in FRENCH_SUIT_NAMES.values() for r in ("A", "10", "K")):
        return "french"
    return None


def face_file(face_set: str, code: str) -> Path:
    """The file holding ``code``'s face in ``face_set``; raises :class:`AssetError` naming both."""
    card = parse_card(code)
    stem = f"{card.suit}_{card.rank}" if card.italian else f"{FRENCH_SUIT_NAMES[card.suit]}_{card.rank}"
    deck_dir = faces_root() / face_set
    for ext in (".png", ".jpg"):
        path = deck_dir / f"{stem}{ext}"
        if path.is_file():
            return path
    raise AssetError(f"no face for {code!r} in face set {face_set!r} (looked for {deck_dir / stem}.png|.jpg)"
                     + _without_shared())


def _without_shared() -> str:
    """What to do when a set is missing because ``../shared`` is: only the bundled sets exist."""
    if faces_root() != BUNDLED_ASSETS / "faces":
        return ""
    return (f"; without {shared_dir() / 'faces'} only the bundled sets {face_sets()} exist: put the "
            "shared data folder beside the checkout as ../shared or set REFEREE_SHARED")


@cache
def face_sprite(face_set: str, code: str) -> Sprite:
    """The card ``code`` of ``face_set`` as a sprite (cached: the simulator reuses faces)."""
    path = face_file(face_set, code)
    return _to_sprite(_read(path), bordered=face_set.split("/")[0] not in BORDERLESS_SETS)


@cache
def back_sprite(face_set: str, like: tuple[int, int] | None = None) -> Sprite:
    """A card back for ``face_set``: the set's own scan when it has one, else a printed pattern.

    ``like`` is the (width, height) of the set's faces, so backs match the faces' size.
    """
    set_dir = faces_root() / face_set.split("/")[0]
    deck = face_set.split("/")[1]
    candidates = sorted((set_dir / "backs").glob("*")) if (set_dir / "backs").is_dir() else []
    preferred = [p for p in candidates if deck in p.stem] or candidates
    if preferred:
        sprite = _to_sprite(_read(preferred[0]), bordered=True)
    else:
        sprite = _pattern_back(like or (240, 400))
    if like is not None and sprite.size != like:
        sprite = Sprite(
            cv2.resize(sprite.image, like, interpolation=cv2.INTER_AREA),
            cv2.resize(sprite.alpha, like, interpolation=cv2.INTER_AREA),
        )
    return sprite


def _read(path: Path) -> Image:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise AssetError(f"cannot read image {path}")
    result: Image = image
    return result


def _to_sprite(raw: Image, bordered: bool) -> Sprite:
    """White-backed card with rounded corners; transparent pixels become card stock."""
    if raw.ndim == 2:
        raw = cv2.cvtColor(raw, cv2.COLOR_GRAY2BGR)
    bgr: npt.NDArray[Any] = raw[..., :3].astype(np.float32)
    if raw.shape[2] == 4:
        a = raw[..., 3:4].astype(np.float32) / 255.0
        bgr = bgr * a + 250.0 * (1.0 - a)
    if not bordered:
        # Cut-out figures: print them on a blank with a white margin like a real card.
        h, w = bgr.shape[:2]
        my, mx = round(float(h * 0.05)), round(float(w * 0.07))
        bgr = cv2.copyMakeBorder(bgr, my, my, mx, mx, cv2.BORDER_CONSTANT, value=(250, 250, 250))
    image = np.clip(bgr, 0, 255).astype(np.uint8)
    return Sprite(image, rounded_mask(image.shape[1], image.shape[0]))


def rounded_mask(width: int, height: int, radius_frac: float = 0.06) -> Mask:
    """Card outline with rounded corners, antialiased (float32 0..1)."""
    scale = 4  # draw large then shrink: cheap antialiasing
    r = max(1, round(float(min(width, height) * radius_frac * scale)))
    big = np.zeros((height * scale, width * scale), np.uint8)
    w, h = width * scale - 1, height * scale - 1
    cv2.rectangle(big, (r, 0), (w - r, h), 255, -1)
    cv2.rectangle(big, (0, r), (w, h - r), 255, -1)
    for cx, cy in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    small = cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)
    mask: Mask = small.astype(np.float32) / 255.0
    return mask


def _pattern_back(size: tuple[int, int]) -> Sprite:
    """A plain printed back (diagonal lattice in red on white) for sets without a back scan."""
    w, h = size
    image = np.full((h, w, 3), 245, np.uint8)
    margin = max(3, w // 14)
    color = (40, 40, 170)
    cv2.rectangle(image, (margin, margin), (w - margin, h - margin), color, -1)
    step = max(6, w // 12)
    for k in range(-h, w + h, step):
        cv2.line(image, (k, margin), (k + h, h + margin), (230, 230, 240), 1)
        cv2.line(image, (k, h - margin), (k + h, -margin), (230, 230, 240), 1)
    return Sprite(image, rounded_mask(w, h))


def texture_files() -> list[str]:
    """Names (file stems) of the cloth/wood/felt photos under ``../shared`` (may be empty)."""
    folder = shared_dir() / TEXTURE_DIR
    return sorted(p.stem for p in folder.glob("*.png")) if folder.is_dir() else []


@cache
def texture_image(name: str) -> Image:
    """The texture photo ``name`` (a stem from :func:`texture_files`) as BGR."""
    path = shared_dir() / TEXTURE_DIR / f"{name}.png"
    if not path.is_file():
        raise AssetError(f"no texture {name!r} (looked for {path})")
    raw = _read(path)
    if raw.ndim == 3 and raw.shape[2] == 4:
        raw = np.ascontiguousarray(raw[..., :3])
    return raw
