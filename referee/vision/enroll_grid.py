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
lifted an unknown deck from 1 % to 95 %). For that (``referee enroll --camera``, the box's
"Enrol deck": :mod:`referee.box.enrol_deck`) the deck is laid out in the rows of a
:class:`GridPlan`: as few layouts as the area holds. On a calibrated table
(:func:`plan_for_table`) the cards are as tall as the layout's measured scale makes them and
the area is the printed mat; without one (:func:`plan_grid`) they are assumed
:data:`CARD_HEIGHT_FRAC` of the frame tall and the area is the frame. Cards under
:data:`MIN_CARD_PX` are refused (:class:`CardsTooSmall`), when planned and again when found
(:func:`check_card_size`): the camera is too far or its frames too small. Each card is named
by its place (:func:`locate`): a place with no card, two cards, or a card where the order
lists none is a :class:`LayoutError` naming the places.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import DECKS, RECOGNISER_LABELS, deck_family, parse_card
from referee.errors import BadCardError, ConfigError
from referee.vision.finder import CardFinder, FinderConfig, portrait_order, rectify

if TYPE_CHECKING:
    from referee.vision.layout import TableLayout

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
#: cards are cut at this height (px), keeping their own aspect
CUT_HEIGHT = 192
#: the most cards one photo of a laid-out deck holds (a whole 52-card deck and some slack)
MOST_CARDS = 64
#: a found card's sides may differ from the median card's by this share (the mat's square
#: markers and pips proposed as cards differ by far more; cards of one deck by a few percent)
SIZE_SLACK = 0.15
#: a quad at least this share of the median card's sides (and smaller than
#: :data:`SIZE_SLACK` allows) is a card found by the frame inside its border: the pips' frame
#: of a pale 8 of diamonds at 96 px, 83 % x 94 %; one pip is a third of a card or less
INNER_SHARE = 0.65


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


def card_quads(image: U8, most: int = MOST_CARDS, markers: Sequence[Sequence[float]] = ()) -> list[F32]:
    """The quads of the cards laid out in ``image`` (portrait-ordered, image px), in reading
    order. The finder looks for up to ``most`` cards (a live frame holds a few, a laid-out deck
    all of them); what is not card-sized and card-shaped like most of the others (a pip
    proposed from a card) or holds one of the mat's corner markers (``markers``: their centres
    in image px where the table's layout is known; those found in the image too) is left out."""
    dets = CardFinder(replace(FinderConfig(), max_candidates=most + 16)).find(image)
    firsts = sorted({int(np.flatnonzero(dets.group == g)[0]) for g in set(dets.group.tolist())})
    quads = [portrait_order(np.asarray(dets.quad[i], np.float32)) for i in firsts]
    quads = _like_the_others(_off_the_markers(image, quads, markers))
    return [quads[i] for i in reading_order(quads)]


def _off_the_markers(image: U8, quads: Sequence[F32], markers: Sequence[Sequence[float]]) -> list[F32]:
    """The quads that touch none of the mat's corner markers (the finder grows a card-sized
    quad from a marker's white border, holding the marker or only part of it; on a French
    deck, or a frame where the markers are as big as the cards, it is as big as a card) and
    lie wholly in the frame."""
    from referee.vision.calibrate import find_markers

    seen = list(find_markers(image).values())
    centres = [*(m.mean(axis=0) for m in seen), *markers]
    # a quad whose edge passes nearer a marker's centre than the marker's half diagonal
    # overlaps the marker (a marker not seen in this frame: only a quad holding its centre)
    reach = 0.5 * float(np.median([np.linalg.norm(m[2] - m[0]) for m in seen])) if seen else 0.0
    h, w = image.shape[:2]
    return [q for q in quads
            if not any(cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(c[0]), float(c[1])), True) >= -reach
                       for c in centres)
            # a card laid out for the camera lies wholly in the frame; a quad the finder grew
            # past the frame's edge is a marker it could not tell, or a card half out of view
            and q.min() >= 0 and (q[:, 0] <= w - 1).all() and (q[:, 1] <= h - 1).all()]


def _like_the_others(quads: Sequence[F32]) -> list[F32]:
    """The quads whose short and long sides are within :data:`SIZE_SLACK` of the median card's,
    each centre inside no bigger quad kept before it (one card found twice); then each card
    found only by its inner frame (:data:`INNER_SHARE`), grown to the median card's size."""
    if not quads:
        return []
    sides = np.array([_sides(q) for q in quads])
    short, long = np.median(sides, axis=0)
    share = sides / np.array([short, long])
    ok = (np.abs(share - 1) <= SIZE_SLACK).all(axis=1)
    kept: list[F32] = []
    order: list[int] = []  # the quad each kept one came from, for reading order
    for i in sorted((int(j) for j in np.flatnonzero(ok)), key=lambda j: -float(sides[j].prod())):
        if not any(_holds(k, quads[i].mean(axis=0)) for k in kept):
            kept.append(quads[i])
            order.append(i)
    # A pale card under uneven light may be found only by the frame inside its border (the
    # pips' or the figure's): smaller than the others, yet at a place no card holds. Every
    # card of a laid-out deck is the same size, so it is kept grown to the median card at its
    # centre and angle; a pip proposed from a found card lies inside that card and is not.
    inner = (share >= INNER_SHARE).all(axis=1) & (share < 1 - SIZE_SLACK).any(axis=1) & (share <= 1).all(axis=1)
    for i in sorted((int(j) for j in np.flatnonzero(inner)), key=lambda j: -float(sides[j].prod())):
        grown = _grown(quads[i], float(short), float(long))
        if not any(_holds(k, quads[i].mean(axis=0)) or _holds(grown, k.mean(axis=0)) for k in kept):
            kept.append(grown)
            order.append(i)
    return [kept[k] for k in np.argsort(order, kind="stable")]


def _holds(quad: F32, point: npt.NDArray[np.float32]) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


def _grown(quad: F32, short: float, long: float) -> F32:
    """A portrait-ordered quad ``short`` x ``long`` at ``quad``'s centre and angle."""
    across = (quad[1] - quad[0]) + (quad[2] - quad[3])
    down = (quad[3] - quad[0]) + (quad[2] - quad[1])
    u = across / max(1e-6, float(np.linalg.norm(across))) * short / 2
    v = down / max(1e-6, float(np.linalg.norm(down))) * long / 2
    c = quad.mean(axis=0)
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)


def _sides(quad: F32) -> tuple[float, float]:
    """(short side, long side) of a portrait-ordered quad, each the mean of its two edges."""
    short = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    long = (np.linalg.norm(quad[2] - quad[1]) + np.linalg.norm(quad[3] - quad[0])) / 2
    return float(short), float(long)


def cut(image: U8, quad: F32) -> U8:
    """The card under ``quad`` cut straight, :data:`CUT_HEIGHT` tall at its own aspect."""
    short, long = _sides(quad)
    return rectify(image, quad, (max(8, round(CUT_HEIGHT * short / max(1e-6, long))), CUT_HEIGHT))


def cards_in_photo(image: U8) -> list[U8]:
    """The cards found in one photo, cut straight, in reading order."""
    return [cut(image, q) for q in card_quads(image)]


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


# ---- a deck laid out under the box's own camera ---------------------------------------------
#: the card height, as a share of the frame's height, a grid is planned for where the table was
#: not calibrated (no layout file, or a simulated table): 115 px in 720 rows. An assumption, not
#: a measurement: at the documented mounting (Camera Module 3 Wide 76 cm over the table) a
#: 9.5 cm card is ~68 px at 1280x720 and ~103 px at 1920x1080 (``vision/table_scale.py``). A
#: calibrated table is planned from its measured scale instead (:func:`plan_for_table`), and
#: the cards found are measured at capture (:func:`check_card_size`) either way
CARD_HEIGHT_FRAC = 0.16
#: height over width of the family's widest usual cards, so the plan fits them all (Italian
#: regional prints 1.57 (Napoletane, Siciliane) to 2.1 (Bresciane), French 1.4 to 1.5)
CARD_ASPECT = {"italian": 1.55, "french": 1.4}
#: below this height (px) the recogniser reads worse than the live loop needs: such a grid is
#: refused rather than planned
MIN_CARD_PX = 80
#: the finder's quad of a card is this share of the card's height or more (it lies a few px
#: inside the card's rounded edge: 95-96 % on the simulated tables), so cards found under this
#: share of :data:`MIN_CARD_PX` were laid under it
FOUND_SHARE = 0.9
#: the space left between two cards, a share of a card's width (columns) and height (rows):
#: the finder parts cards that lie this far apart on a cloth darker than the cards
GAP_X, GAP_Y = 0.3, 0.15
#: the share of the area's width and height a grid may cover (the mat's markers sit in the
#: corners, and the light falls off at the frame's edge)
USABLE = 0.9


class LayoutError(ConfigError):
    """A frame of the laid-out deck that cannot be read card by card: ``problems`` name the
    grid positions (row, column and the card the order puts there)."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class CardsTooSmall(ConfigError):
    """The cards lie, or would lie, under :data:`MIN_CARD_PX` tall in the camera's frames."""


@dataclass(frozen=True)
class GridPlan:
    """How a deck of ``cards`` is laid out under the camera: ``layouts`` times (one after
    the other when the frame cannot hold them all), each in ``rows`` rows of ``columns``
    cards, the deck's order read row by row; the last layout may hold fewer."""

    cards: int
    columns: int
    rows: int
    card_px: float  # the cards' height in the frame the plan was made for
    #: ``card_px`` measured by the table's calibration (else :data:`CARD_HEIGHT_FRAC` assumed)
    calibrated: bool = False

    @property
    def per_layout(self) -> int:
        return self.columns * self.rows

    @property
    def layouts(self) -> int:
        return math.ceil(self.cards / self.per_layout)

    def layout_sizes(self) -> list[int]:
        """How many cards each layout holds, in order."""
        return [min(self.per_layout, self.cards - k * self.per_layout) for k in range(self.layouts)]

    def layout_codes(self, order: Sequence[str]) -> list[list[str]]:
        """The codes laid out in each layout, in order."""
        if len(order) != self.cards:
            raise ValueError(f"the plan is for {self.cards} cards, the order lists {len(order)}")
        return [list(order[i:i + self.per_layout]) for i in range(0, self.cards, self.per_layout)]

    def describe(self, lang: str = "en") -> str:
        """What the club is asked to do, in one line: how many layouts of how many cards."""
        sizes = self.layout_sizes()
        rows = math.ceil(sizes[0] / self.columns)
        if lang == "it":
            if self.layouts == 1:
                return f"{self.cards} carte: 1 disposizione, {rows} file da {self.columns}"
            last = f" (l'ultima da {sizes[-1]})" if sizes[-1] != sizes[0] else ""
            return f"{self.cards} carte: {self.layouts} disposizioni da {sizes[0]}{last}, file da {self.columns}"
        if self.layouts == 1:
            return f"{self.cards} cards: 1 layout, {rows} rows of {self.columns}"
        last = f" (the last of {sizes[-1]})" if sizes[-1] != sizes[0] else ""
        return f"{self.cards} cards: {self.layouts} layouts of {sizes[0]}{last}, rows of {self.columns}"

    def basis(self) -> str:
        """Where the card size the plan was made for came from, for the command's output."""
        if self.calibrated:
            return f"cards {self.card_px:.0f} px tall, measured by the table's calibration"
        return (f"cards assumed {self.card_px:.0f} px tall ({CARD_HEIGHT_FRAC:.0%} of the frame: the table is not "
                "calibrated); the cards found are measured at capture")


def _too_small(what: str) -> str:
    return (f"{what}; the recogniser needs at least {MIN_CARD_PX} px: the camera is too far from the table or "
            "its resolution too low. Set camera.width/height larger (1920x1080 at the documented 76 cm) and "
            "calibrate again with that --size, or lower the camera (hardware/README.md, 'Camera')")


def plan_grid(cards: int, family: str, frame_size: tuple[int, int] = (1280, 720),
              card_px: float | None = None, area_px: tuple[float, float] | None = None,
              min_px: float = MIN_CARD_PX, calibrated: bool = False) -> GridPlan:
    """The fewest layouts of ``cards`` cards of ``family`` that fit ``area_px`` (the width and
    height, px, the cards may cover: default the whole frame) with the cards ``card_px`` tall
    (default: :data:`CARD_HEIGHT_FRAC` of the frame's height) and :data:`GAP_X`/:data:`GAP_Y`
    apart, in as few rows as make them fit. Cards under ``min_px`` tall are refused
    (:class:`CardsTooSmall`); ``calibrated``: ``card_px`` was measured, not assumed."""
    if cards < 1:
        raise ConfigError("no cards to lay out")
    fw, fh = frame_size
    height = card_px if card_px is not None else CARD_HEIGHT_FRAC * fh
    if height < min_px:
        how = "measured by the table's calibration" if calibrated else "at the planned share of the frame"
        raise CardsTooSmall(_too_small(f"the cards are only {height:.0f} px tall in the camera's {fw}x{fh} "
                                       f"frames ({how})") + ". Nothing was written")
    aw, ah = area_px if area_px is not None else (fw, fh)
    aw, ah = min(aw, fw), min(ah, fh)
    width = height / CARD_ASPECT[deck_family(family)]
    max_cols = max(1, math.floor((USABLE * aw + GAP_X * width) / (width * (1 + GAP_X))))
    max_rows = max(1, math.floor((USABLE * ah + GAP_Y * height) / (height * (1 + GAP_Y))))
    layouts = math.ceil(cards / (max_cols * max_rows))
    per_layout = math.ceil(cards / layouts)
    rows = math.ceil(per_layout / max_cols)
    columns = math.ceil(per_layout / rows)
    return GridPlan(cards, columns, rows, float(height), calibrated)


def plan_for_table(cards: int, family: str, layout: TableLayout, frame_size: tuple[int, int],
                   min_px: float = MIN_CARD_PX) -> GridPlan:
    """:func:`plan_grid` from a calibrated table: the cards as tall as the layout's scale makes
    them where the mat shows smallest (``vision/table_scale.py``), laid out within the printed
    mat (the frame of a camera at the documented height shows twice the table's width, off the
    table at both sides). A layout calibrated on frames of another size is refused."""
    from referee.vision.printable_mat import mat_size_mm
    from referee.vision.table_scale import DEFAULT_MAT_PRINT, layout_scale, mat_width_mm

    if tuple(layout.frame_size) != tuple(frame_size):
        lw, lh = layout.frame_size
        raise ConfigError(f"the table was calibrated on {lw}x{lh} frames but the camera gives {frame_size[0]}x"
                          f"{frame_size[1]}: calibrate again with --size {frame_size[0]}x{frame_size[1]}")
    scale = layout_scale(layout)
    px_per_mm = scale.px_per_cm / 10.0
    mat_w, mat_h = mat_size_mm(mat_width_mm(layout.mat or DEFAULT_MAT_PRINT))
    return plan_grid(cards, family, frame_size, scale.card_px(deck_family(family)),
                     (mat_w * px_per_mm, mat_h * px_per_mm), min_px, calibrated=True)


def check_card_size(quads: Sequence[F32], frame_size: tuple[int, int], min_px: float = MIN_CARD_PX) -> None:
    """Raise :class:`CardsTooSmall` when the cards found (``quads``, the median of their long
    sides) lie under ``min_px`` tall (allowing :data:`FOUND_SHARE` for the finder's quad)."""
    if not quads:
        return
    found = float(np.median([_sides(q)[1] for q in quads]))
    if found < FOUND_SHARE * min_px:
        raise CardsTooSmall(_too_small(f"the cards found are only {found:.0f} px tall in the camera's "
                                       f"{frame_size[0]}x{frame_size[1]} frames") + ". Nothing was written")


def table_order(family: str, deck: str) -> list[str]:
    """Every card of ``deck`` as it is played (binocolo's two copies of each face side by side),
    in the deck's order: what the club lays out under the camera."""
    d = DECKS[deck]
    if deck_family(family) != ("italian" if deck.startswith("italian") else "french"):
        raise ConfigError(f"deck {deck!r} is not a deck of the {family!r} recogniser")
    return [c for c in d.codes for _ in range(d.copies)]


def position_name(row: int, column: int, code: str | None = None) -> str:
    """A grid position as the club finds it on the table (1-based, from the top left)."""
    where = f"row {row + 1}, column {column + 1}"
    return f"{where} ({code})" if code else where


def locate(quads: Sequence[F32], codes: Sequence[str], columns: int) -> tuple[list[int], list[str]]:
    """Which found quad lies at each position of a layout of ``codes`` in rows of ``columns``:
    (the quad index per position, in order; the problems, each naming its position). A row is
    the cards whose centres lie within half a card's height of its first (as
    :func:`reading_order`); a card's column is its distance from the grid's left edge in steps
    of the median distance between neighbours."""
    problems: list[str] = []
    if not quads:
        return [], [f"no card found (the order lists {len(codes)} here: {codes[0]} ... {codes[-1]})"]
    centres = np.array([q.mean(axis=0) for q in quads])
    height = float(np.median([_sides(q)[1] for q in quads]))
    width = float(np.median([_sides(q)[0] for q in quads]))
    rows: list[list[int]] = []
    for i in np.argsort(centres[:, 1], kind="stable"):
        if rows and centres[i, 1] - centres[rows[-1][0], 1] <= 0.5 * height:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    rows = [sorted(r, key=lambda j: float(centres[j, 0])) for r in rows]
    steps = [float(centres[r[k + 1], 0] - centres[r[k], 0]) for r in rows for k in range(len(r) - 1)]
    steps = [s for s in steps if s < 1.6 * np.median(steps)] if steps else []
    pitch = float(np.median(steps)) if steps else width * (1 + GAP_X)
    left = min(float(centres[r[0], 0]) for r in rows)
    cells: dict[tuple[int, int], list[int]] = {}
    for row, members in enumerate(rows):
        for j in members:
            cells.setdefault((row, round((float(centres[j, 0]) - left) / pitch)), []).append(j)
    at: list[int] = []
    expected = {divmod(n, columns) for n in range(len(codes))}
    for n, code in enumerate(codes):
        cell = divmod(n, columns)
        found = cells.get(cell, [])
        if not found:
            problems.append(f"{position_name(*cell, code)}: no card found")
        elif len(found) > 1:
            problems.append(f"{position_name(*cell, code)}: {len(found)} cards found (lay them apart)")
        else:
            at.append(found[0])
    for cell in sorted(set(cells) - expected):
        problems.append(f"{position_name(*cell)}: a card where the order lists none "
                        f"({len(codes)} cards in rows of {columns})")
    return at, problems


def check_order(order: Sequence[str], plan: GridPlan, family: str, copies: int = 1) -> None:
    """Every card of ``order`` a card of ``family``'s recogniser, none listed more than
    ``copies`` times (binocolo's deck holds two of each), and as many as ``plan`` lays out;
    else a :class:`ConfigError` naming the places of a card listed too often."""
    family = deck_family(family)
    alien = sorted({c for c in order if c not in RECOGNISER_LABELS[family] or c == "back"})
    if alien:
        raise ConfigError(f"the order lists {', '.join(alien[:3])}: not cards of the {family!r} recogniser")
    if len(order) != plan.cards:
        raise ConfigError(f"the order lists {len(order)} cards, the grid is planned for {plan.cards}")
    places: dict[str, list[int]] = {}
    for n, code in enumerate(order):
        places.setdefault(code, []).append(n)
    for code, where in places.items():
        if len(where) > copies:
            named = "; ".join(place_name(plan, n) for n in where)
            each = "each card once" if copies == 1 else f"each card at most {copies} times"
            raise ConfigError(f"the order lists {code} {len(where)} times ({named}): {each}")


def place_name(plan: GridPlan, n: int, code: str | None = None) -> str:
    """The n-th card of the order as the club finds it: layout (when several), row, column."""
    layout, k = divmod(n, plan.per_layout)
    where = position_name(*divmod(k, plan.columns), code)
    return f"layout {layout + 1}, {where}" if plan.layouts > 1 else where
