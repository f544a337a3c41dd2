"""The real Napoletane decks: 8 physical decks x 40 photos, one card per photo, whole decks
held out.

``../shared/photos/italian_napoletane_real_decks`` (CC BY 4.0, so a model trained on it may be
committed with attribution; its SOURCE.md) lists every photo in ``labels.csv``
(``file,card,deck,split``). The card's outline in each photo is not in the shared folder: it is
in :data:`QUADS` (``benchmarks/data/napoletane_real_quads.csv``), one verified quad per photo,
whose header says how the quads were made and checked. A photo whose quad could not be verified
is listed there with no corners and a reason, and is left out of training and scoring alike.

Every figure on these photos is reported deck by deck: consecutive photos of one deck share the
print, its wear, the surface and the light, so a photo of a deck a model trained on says little
about a deck it never saw (the published work on this data splits by deck too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.paths import REPO_ROOT, shared_dir
from referee.recognition.commented_csv import csv_rows
from referee.recognition.photos import read_photo
from referee.recognition.rectify import warp_portrait

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

#: the photo set's folder under ``../shared/photos``
SET = "italian_napoletane_real_decks"
#: the verified card quads (corners in the photo's own pixels, clockwise from the top left)
QUADS = REPO_ROOT / "benchmarks" / "data" / "napoletane_real_quads.csv"
QUAD_COLUMNS = ("file", "x0", "y0", "x1", "y1", "x2", "y2", "x3", "y3", "method", "note")
#: how a quad was made: one of the automatic proposals of ``benchmarks/napoletane_quads.py``
#: (checked by eye), or ``excluded`` (no quad: the note says why)
METHODS = ("grabcut", "finder", "otsu", "smooth", "excluded")
LABEL_COLUMNS = ("file", "card", "deck", "split")


@dataclass(frozen=True)
class DeckPhoto:
    """One labelled photo: its card, its deck and the card's verified quad (None: excluded)."""

    image: Path
    card: str
    deck: str
    quad: F32 | None
    note: str = ""


def photos_folder(root: Path | None = None) -> Path:
    return (root if root is not None else shared_dir()) / "photos" / SET


def read_labels(folder: Path) -> dict[str, tuple[str, str]]:
    """``file -> (card, deck)`` from the set's ``labels.csv``, each row checked against its file
    name (``<deck>/<card>.jpg``) and the Italian deck's cards."""
    path = folder / "labels.csv"
    cards = set(RECOGNISER_LABELS["italian"]) - {"back"}
    out: dict[str, tuple[str, str]] = {}
    for n, row in csv_rows(path, LABEL_COLUMNS, "photo labels"):
        where = f"photo labels {path}, line {n}"
        name, card, deck = row["file"], row["card"], row["deck"]
        if card not in cards:
            raise ConfigError(f"{where}: {card!r} is not an Italian card")
        if name != f"{deck}/{card}.jpg":
            raise ConfigError(f"{where}: file {name!r} should be named {deck}/{card}.jpg (its deck and card)")
        if name in out:
            raise ConfigError(f"{where}: {name} is listed twice")
        if not (folder / name).is_file():
            raise ConfigError(f"{where}: no such photo {folder / name}")
        out[name] = (card, deck)
    return out


def read_quads(path: Path, labels: dict[str, tuple[str, str]]) -> dict[str, tuple[F32 | None, str, str]]:
    """``file -> (quad or None, method, note)``; every labelled photo must have exactly one row."""
    out: dict[str, tuple[F32 | None, str, str]] = {}
    for n, row in csv_rows(path, QUAD_COLUMNS, "card quads"):
        where = f"card quads {path}, line {n}"
        name, method = row["file"], row["method"]
        if name not in labels:
            raise ConfigError(f"{where}: {name!r} is not a photo of labels.csv")
        if name in out:
            raise ConfigError(f"{where}: {name} has a quad already")
        if method not in METHODS:
            raise ConfigError(f"{where}: method {method!r}: expected one of {', '.join(METHODS)}")
        corners = [row[f"{a}{i}"].strip() for i in range(4) for a in "xy"]
        if method == "excluded":
            if any(corners) or not row["note"].strip():
                raise ConfigError(f"{where}: an excluded photo has no corners and a note saying why")
            out[name] = (None, method, row["note"])
            continue
        try:
            quad = np.array([float(v) for v in corners], np.float32).reshape(4, 2)
        except ValueError as exc:
            raise ConfigError(f"{where}: corners must be 8 numbers: {exc}") from exc
        if cv2.contourArea(quad) < 64 * 64:
            raise ConfigError(f"{where}: the quad encloses no card (area {cv2.contourArea(quad):.0f} px)")
        out[name] = (quad, method, row["note"])
    missing = sorted(set(labels) - set(out))
    if missing:
        raise ConfigError(f"card quads {path}: no row for {len(missing)} photos, e.g. {missing[0]}")
    return out


def deck_photos(root: Path | None = None, quads: Path = QUADS, decks: Sequence[str] | None = None) -> list[DeckPhoto]:
    """Every labelled photo (of ``decks``; default all), with its verified quad, sorted by file."""
    folder = photos_folder(root)
    labels = read_labels(folder)
    known = sorted({deck for _, deck in labels.values()})
    unknown = sorted(set(decks or ()) - set(known))
    if unknown:
        raise ConfigError(f"real decks: no such deck {', '.join(unknown)} in {folder}; known: {', '.join(known)}")
    found = read_quads(quads, labels)
    return [DeckPhoto(folder / name, card, deck, found[name][0], found[name][2])
            for name, (card, deck) in sorted(labels.items()) if decks is None or deck in decks]


def deck_names(root: Path | None = None) -> list[str]:
    return sorted({deck for _, deck in read_labels(photos_folder(root)).values()})


def cut(photo: DeckPhoto, cache: dict[Path, U8] | None = None) -> U8:
    """The photo's card straightened to portrait along its verified quad."""
    if photo.quad is None:
        raise ConfigError(f"{photo.image}: no verified quad ({photo.note})")
    return warp_portrait(read_photo(photo.image, cache), photo.quad)
