"""Court-picture swap: teach the French model to read the corner index, not the court's picture.

Every French deck with corner indices prints J/Q/K letters in the same places, but each print
draws its own court pictures; a model that learns the pictures fails on unseen court art
(held-out Knoll English-pattern courts: QS->KS, JD->QD, JH->KH). With this augmentation the
central picture of a court face is replaced, with some probability, by the central picture of
another court face of the *same suit* (any rank, any training print), keeping the face's own
corner indices and its label: the picture then no longer tells the rank, the index does.

Only prints that carry corner indices are targets; the Italian-regional French-suited prints
(Genovesi, Piemontesi, Toscane, Milanesi) have only a suit pip in the corner, so their picture
*is* the rank and they are left alone (they still lend their pictures as donors). Pip cards are
never touched: their pips are the rank. Geometry was read off the face scans, as fractions of
the face image (x0, y0, x1, y1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

BGRA = npt.NDArray[np.uint8]
Rect = tuple[float, float, float, float]

COURT_RANKS = ("J", "Q", "K")


@dataclass(frozen=True)
class IndexLayout:
    """Where a print with corner indices keeps them, and the area around them to overwrite."""

    #: Area overwritten by the donor picture (inside the printed border).
    inner: Rect
    #: Index boxes (rank letter + small suit pip) restored from the face after the swap.
    keep: tuple[Rect, ...]
    #: The print's own picture, free of indices, when it lends it to another face.
    picture: Rect


def _turned(r: Rect) -> Rect:
    """The same box turned 180 degrees (the index in the opposite corner)."""
    return (1.0 - r[2], 1.0 - r[3], 1.0 - r[0], 1.0 - r[1])


def _mirrored(r: Rect) -> Rect:
    """The same box mirrored left-right (Kennard prints an index in all four corners)."""
    return (1.0 - r[2], r[1], 1.0 - r[0], r[3])


def _two_corners(tl: Rect) -> tuple[Rect, ...]:
    return (tl, _turned(tl))


def _four_corners(tl: Rect) -> tuple[Rect, ...]:
    return (tl, _turned(tl), _mirrored(tl), _turned(_mirrored(tl)))


#: Prints with corner indices (J/Q/K letters), measured on the scans in ``../shared/faces``.
INDEXED: dict[str, IndexLayout] = {
    # Letter + pip at x < 0.13, y < 0.24; the picture fills the whole face behind them.
    "bellot_svgcards_lgpl/french": IndexLayout(
        (0.015, 0.01, 0.985, 0.99), _two_corners((0.0, 0.0, 0.145, 0.26)), (0.145, 0.02, 0.855, 0.98)),
    # Letter + pip at x < 0.11, y < 0.2, left of the picture's frame.
    "english_pattern_fomin_cc0/french": IndexLayout(
        (0.02, 0.01, 0.98, 0.99), _two_corners((0.0, 0.0, 0.12, 0.215)), (0.12, 0.02, 0.88, 0.98)),
    # Letter + pip in all four corners, x < 0.12, y < 0.21.
    "kennard_cc0_svg/french": IndexLayout(
        (0.02, 0.01, 0.98, 0.99), _four_corners((0.0, 0.0, 0.135, 0.22)), (0.135, 0.02, 0.865, 0.98)),
    # Held out by default; letter + pip hug the edge at x < 0.10, y < 0.19.
    "knoll_vector_cards_pd/french": IndexLayout(
        (0.02, 0.01, 0.98, 0.99), _two_corners((0.0, 0.0, 0.115, 0.2)), (0.115, 0.02, 0.885, 0.98)),
}
#: Picture area lent by a print without indices (inside the border; its corner pip is the suit).
DEFAULT_PICTURE: Rect = (0.06, 0.04, 0.94, 0.96)


def is_court(code: str) -> bool:
    """French J/Q/K codes (``QS``...); Italian codes and pip cards are not courts here."""
    return len(code) == 2 and code[0] in COURT_RANKS and code[1] in "CDHS"


def _pixels(r: Rect, w: int, h: int) -> tuple[int, int, int, int]:
    return round(r[0] * w), round(r[1] * h), round(r[2] * w), round(r[3] * h)


def picture_of(face: BGRA, print_name: str) -> BGRA:
    """The print's court picture without its indices (what it lends to other faces)."""
    rect = INDEXED[print_name].picture if print_name in INDEXED else DEFAULT_PICTURE
    x0, y0, x1, y1 = _pixels(rect, face.shape[1], face.shape[0])
    out: BGRA = np.ascontiguousarray(face[y0:y1, x0:x1])
    return out


def swap_picture(face: BGRA, layout: IndexLayout, picture: BGRA, turn: bool = False) -> BGRA:
    """``face`` with its inner area replaced by ``picture`` and its index boxes kept."""
    h, w = face.shape[:2]
    out = face.copy()
    x0, y0, x1, y1 = _pixels(layout.inner, w, h)
    pic = picture[::-1, ::-1] if turn else picture
    interp = cv2.INTER_AREA if pic.shape[0] > y1 - y0 else cv2.INTER_LINEAR
    out[y0:y1, x0:x1] = cv2.resize(np.ascontiguousarray(pic), (x1 - x0, y1 - y0), interpolation=interp)
    for box in layout.keep:
        bx0, by0, bx1, by1 = _pixels(box, w, h)
        out[by0:by1, bx0:bx1] = face[by0:by1, bx0:bx1]
    return out


class CourtSwapper:
    """Donor pictures by suit, from the training prints' court faces."""

    def __init__(self, faces: Mapping[str, Mapping[str, BGRA]], probability: float) -> None:
        """``faces``: print name -> card code -> face image (BGRA), the training prints only."""
        self.probability = probability
        self.donors: dict[str, list[tuple[str, str, BGRA]]] = {s: [] for s in "CDHS"}
        for name, codes in faces.items():
            for code, face in codes.items():
                if is_court(code):
                    self.donors[code[1]].append((name, code, picture_of(face, name)))

    def applies(self, print_name: str, code: str) -> bool:
        """Whether a face may be swapped at all (court face of a print with indices)."""
        return self.probability > 0 and print_name in INDEXED and is_court(code)

    def maybe_swap(self, face: BGRA, print_name: str, code: str, rng: np.random.Generator) -> BGRA | None:
        """A swapped copy of ``face`` with the set probability, else None.

        Draws from ``rng`` only for faces it applies to, so every other sample renders exactly
        as without the augmentation.
        """
        if not self.applies(print_name, code) or rng.random() >= self.probability:
            return None
        pool: Sequence[tuple[str, str, BGRA]] = [
            d for d in self.donors[code[1]] if (d[0], d[1]) != (print_name, code)]
        if not pool:
            return None
        _, _, picture = pool[int(rng.integers(len(pool)))]
        return swap_picture(face, INDEXED[print_name], picture, turn=bool(rng.random() < 0.5))
