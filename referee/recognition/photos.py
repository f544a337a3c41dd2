"""Labelled card crops from the real photos in ``../shared/photos`` (evaluation only).

* ``french_pinochle_voc_train``: French cards 9..A, rank-only labels (suit where added by eye).
* ``italian_triestine_tressette_test``: Triestine (Italian-suited) cards, ``<suit>_<rank>``
  or ``?_<rank>`` where the suit is unknown.

Boxes are axis-aligned around oblique cards; :func:`crops` can also straighten the card
inside each box (what the vision stage would hand over).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import ConfigError
from referee.paths import shared_dir
from referee.recognition.rectify import cut_card_in_box

U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class PhotoCard:
    """One labelled box: rank always, suit where known (else None)."""

    source: str
    image: Path
    box: tuple[int, int, int, int]
    rank: str
    suit: str | None


_FRENCH_SUITS = {"C": "C", "D": "D", "H": "H", "S": "S", "clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def photo_cards(family: str, root: Path | None = None) -> list[PhotoCard]:
    """All labelled boxes of ``family`` ('italian' or 'french') in the shared photos."""
    base = (root or shared_dir()) / "photos"
    if family == "french":
        return _pinochle(base / "french_pinochle_voc_train")
    return _triestine(base / "italian_triestine_tressette_test")


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _pinochle(folder: Path) -> list[PhotoCard]:
    out = []
    for r in _rows(folder / "labels.csv"):
        suit = r.get("suit_by_eye", "?")
        box = (int(float(r["xmin"])), int(float(r["ymin"])), int(float(r["xmax"])), int(float(r["ymax"])))
        out.append(PhotoCard("french_pinochle_voc_train", folder / "images" / r["image"], box,
                             r["canonical_rank"], _FRENCH_SUITS.get(suit)))
    return out


def _triestine(folder: Path) -> list[PhotoCard]:
    out = []
    for r in _rows(folder / "labels_canonical.csv"):
        box = (int(float(r["xmin_px"])), int(float(r["ymin_px"])), int(float(r["xmax_px"])),
               int(float(r["ymax_px"])))
        suit = r["suit_by_eye"] if r["suit_by_eye"] not in ("", "?") else None
        out.append(PhotoCard("italian_triestine_tressette_test", folder / "images" / r["image"], box,
                             r["canonical_rank"], suit))
    return out


def read_photo(path: Path, cache: dict[Path, U8] | None = None) -> U8:
    """A photo as BGR pixels, read once per ``cache``; one that cannot be read is a
    :class:`~referee.errors.ConfigError` naming it."""
    if cache is not None and path in cache:
        return cache[path]
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise ConfigError(f"cannot read photo {path}")
    out = np.asarray(img, np.uint8)
    if cache is not None:
        cache[path] = out
    return out


def crop(card: PhotoCard, straighten: bool, cache: dict[Path, U8] | None = None) -> U8:
    """The box's pixels (portrait), or the card inside it straightened (what the vision stage
    would hand over; :func:`~referee.recognition.rectify.cut_card_in_box`)."""
    img = read_photo(card.image, cache)
    if straighten:
        return cut_card_in_box(img, card.box)
    x0, y0, x1, y1 = card.box
    out: U8 = img[y0:y1, x0:x1]
    return out if out.shape[0] >= out.shape[1] else np.asarray(cv2.rotate(out, cv2.ROTATE_90_CLOCKWISE), np.uint8)
