"""A whole deck laid out in order, a few photos of it: the cards found and named by position.

Photographing 40 or 52 cards one by one and naming every file is what keeps a club from
enrolling its deck. Instead the club lays the cards face up in rows, in the deck's order
(:func:`deck_order`: the recogniser family's deck by default, suits then ranks, e.g.
``bastoni_1 .. bastoni_10, coppe_1 ..``), apart from each other on a plain cloth, and takes
as many photos as it likes in that order (photos sorted by file name, each read left to
right and top to bottom). The vision finder finds the cards; the n-th card found is the
n-th card of the order. A contact sheet of every cut card with its name lets the club check
the result before using it (``referee enroll --grid`` writes one beside the enrollment).

Best with the box's own camera and light (the EPFL benchmark: enrolling from table frames
lifted an unknown deck from 1 % to 95 %).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import DECKS, RECOGNISER_LABELS, deck_family, parse_card
from referee.errors import BadCardError, ConfigError
from referee.vision.finder import CardFinder, portrait_order, rectify

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
#: cards are cut at this height (px), keeping their own aspect
CUT_HEIGHT = 192


def deck_order(family: str, order: str | None = None) -> list[str]:
    """The codes in laying-out order: ``order`` names a deck (``french-32``, ``binocolo-48``:
    each face once) or a text file of codes (one per line or comma-separated, ``#`` comments);
    ``None``: the family's whole deck. Every code must belong to ``family``."""
    family = deck_family(family)
    if order is None:
        return [c for c in RECOGNISER_LABELS[family] if c != "back"]
    if order in DECKS:
        codes = list(DECKS[order].codes)
        where = f"deck {order!r}"
    else:
        path = Path(order)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--order: {order!r} is neither a deck ({', '.join(DECKS)}) nor a readable file") from exc
        codes, where = [], str(path)
        for line_no, line in enumerate(text.splitlines(), start=1):
            for item in line.split("#", 1)[0].replace(",", " ").split():
                try:
                    codes.append(parse_card(item).code)
                except BadCardError as exc:
                    raise ConfigError(f"{path}:{line_no}: {exc}") from exc
    alien = [c for c in codes if c not in RECOGNISER_LABELS[family]]
    if alien:
        raise ConfigError(f"{where}: {alien[:3]} are not cards of the {family!r} recogniser")
    if not codes:
        raise ConfigError(f"{where}: no cards listed")
    return codes


def reading_order(quads: Sequence[F32]) -> list[int]:
    """Indices of ``quads`` in rows top to bottom, each row left to right. A new row starts
    where a card's centre lies more than half a card height below the row's first card."""
    if not quads:
        return []
    centres = np.array([q.mean(axis=0) for q in quads])
    height = float(np.median([max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[1])) for q in quads]))
    by_y = list(np.argsort(centres[:, 1], kind="stable"))
    rows: list[list[int]] = []
    for i in by_y:
        if rows and centres[i, 1] - centres[rows[-1][0], 1] <= 0.5 * height:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return [i for row in rows for i in sorted(row, key=lambda j: float(centres[j, 0]))]


def cards_in_photo(image: U8) -> list[U8]:
    """The cards found in one photo, cut straight, in reading order."""
    dets = CardFinder().find(image)
    firsts = sorted({int(np.flatnonzero(dets.group == g)[0]) for g in set(dets.group.tolist())})
    quads = [portrait_order(np.asarray(dets.quad[i], np.float32)) for i in firsts]
    out = []
    for i in reading_order(quads):
        q = quads[i]
        aspect = float(np.linalg.norm(q[1] - q[2])) / max(1e-6, float(np.linalg.norm(q[0] - q[1])))
        out.append(rectify(image, q, (max(8, round(CUT_HEIGHT / aspect)), CUT_HEIGHT)))
    return out


def grid_crops(folder: Path, order: Sequence[str]) -> list[tuple[U8, str]]:
    """(cut card, code) for every card in the photos of ``folder``; raises naming each photo's
    count when the cards found are not as many as ``order`` lists."""
    if not folder.is_dir():
        raise ConfigError(f"--photos: no such folder {folder}")
    photos = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not photos:
        raise ConfigError(f"--photos: no photos (.jpg, .png, .bmp) in {folder}")
    found: list[tuple[Path, list[U8]]] = []
    for path in photos:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ConfigError(f"cannot read photo {path}")
        found.append((path, cards_in_photo(np.asarray(image, np.uint8))))
    total = sum(len(cards) for _, cards in found)
    if total != len(order):
        counts = ", ".join(f"{p.name}: {len(cards)}" for p, cards in found)
        raise ConfigError(
            f"found {total} cards in {len(found)} photos ({counts}) but the order lists {len(order)}: "
            "lay the cards apart (a finger's width) on a plain cloth that is darker than the cards, "
            "and check that no card is missing or doubled"
        )
    crops = [card for _, cards in found for card in cards]
    return list(zip(crops, order, strict=True))


def contact_sheet(samples: Sequence[tuple[U8, str]], columns: int = 10, height: int = 144) -> U8:
    """Every cut card with its assigned code below it, for the club to check by eye."""
    width = round(height * 0.66)
    tiles = []
    for crop, code in samples:
        tile = np.full((height + 22, width + 6, 3), 255, np.uint8)
        tile[3:height + 3, 3:width + 3] = cv2.resize(crop, (width, height), interpolation=cv2.INTER_AREA)
        cv2.putText(tile, code, (4, height + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        tiles.append(tile)
    blank = np.full_like(tiles[0], 255)
    rows = [tiles[i:i + columns] for i in range(0, len(tiles), columns)]
    return np.vstack([np.hstack(r + [blank] * (columns - len(r))) for r in rows])
