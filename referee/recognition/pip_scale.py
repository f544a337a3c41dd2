"""Pip-scale augmentation: teach the French model suit shapes at pip sizes no training print draws.

The held-out Knoll print reads 99% on its courts but 79% on its pip cards (AC->AS, AD->AH,
10C->10S): Knoll draws far larger pips (its aces' pip is ~2.5x Bellot's) than any training
print, and at 64x96 the model has only learnt clubs/spades and diamonds/hearts at the sizes it
saw. With this augmentation a pip card's pips are redrawn, with some probability, each scaled
about its own centre (aces: 0.8-2.8x, other pip cards 0.8-1.4x, width and height jittered apart
so the shape changes too), on the print's own paper, while the border, the corner indices and the
label stay: the suit must be told from the pip's shape at any size.

Pips are found once per face as blobs of ink inside the print's inner area, away from its
corner-index boxes (both as the court swap measured them, :mod:`referee.recognition.court_swap`).
Blobs touching that area's edge or an index box, or spanning most of the area (a printed frame),
are left in place, and the index boxes are restored after the pips are drawn.
Courts and Italian codes are never touched.

:class:`PipRecipe` narrows what is rescaled (which ranks, the scale ranges, the shape jitter);
its default rescales every pip card, so sets rendered without one render and cache as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition.court_swap import DEFAULT_PICTURE, INDEXED, Rect, _pixels

BGRA = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

PIP_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
#: Scale ranges (log-uniform): aces draw one pip that prints size very differently.
ACE_SCALE = (0.8, 2.8)
PIP_SCALE = (0.8, 1.4)
#: Width and height of the pips scaled apart by up to this factor (the pip's shape changes).
ASPECT_JITTER = 0.12
#: Ink: a pixel this far (max over channels) from the paper colour.
_INK = 60.0
#: A pip's pixels are drawn opaque (their own colour, anti-aliased edges included) from this far
#: from the paper colour, fading out below: so a scale of 1 redraws the face as it was.
_EDGE_LO, _EDGE_HI = 4.0, 12.0
#: A blob spanning more than this share of the picture area is a frame or a picture, not a pip.
_MAX_SPAN = 0.8


@dataclass(frozen=True)
class PipRecipe:
    """Which pip cards are rescaled and how (log-uniform scale ranges, shape jitter).

    Rescaling every pip card with the shape jittered lost real photo reads (EPFL suits,
    pinochle ranks) while gaining Knoll's large aces and pips (models/HISTORY.md); a recipe lets
    one run rescale e.g. the aces only, or without changing the pips' shape.
    """

    ranks: tuple[str, ...] = PIP_RANKS
    ace_scale: tuple[float, float] = ACE_SCALE
    pip_scale: tuple[float, float] = PIP_SCALE
    aspect_jitter: float = ASPECT_JITTER
    #: Extra 'back' samples (share of the face samples): zoomed-in parts of cards
    #: (:func:`referee.recognition.synth.render_card_zoom`), so bigger pips do not make a part
    #: of a 10 read as a 3. The same share as :class:`referee.recognition.dataset.NegativeRecipe`'s
    #: ``parts`` (which any set may hold); kept here so sets rendered with it keep their cache keys.
    zoom_negatives: float = 0.0

    def __post_init__(self) -> None:
        bad = [r for r in self.ranks if r not in PIP_RANKS]
        if bad or not self.ranks:
            raise ValueError(f"pip recipe ranks {list(self.ranks)}: expected some of {list(PIP_RANKS)}")
        for name, (lo, hi) in (("ace_scale", self.ace_scale), ("pip_scale", self.pip_scale)):
            if not 0 < lo <= hi:
                raise ValueError(f"pip recipe {name} {lo}-{hi}: expected 0 < low <= high")
        if not 0 <= self.aspect_jitter < 1:
            raise ValueError(f"pip recipe aspect_jitter {self.aspect_jitter}: expected 0 <= jitter < 1")
        if not 0 <= self.zoom_negatives <= 0.5:
            raise ValueError(f"pip recipe zoom_negatives {self.zoom_negatives}: expected a share in 0-0.5")

    def changes(self) -> dict[str, object]:
        """The fields that differ from the default recipe (cache keys and training records)."""
        default = PipRecipe()
        return {k: list(v) if isinstance(v, tuple) else v for k, v in vars(self).items() if v != getattr(default, k)}


DEFAULT_RECIPE = PipRecipe()


def is_pip_card(code: str) -> bool:
    """French pip cards (``AC``, ``10S``...); courts and Italian codes are not."""
    return len(code) in (2, 3) and code[-1] in "CDHS" and code[:-1] in PIP_RANKS


@dataclass(frozen=True)
class Pip:
    """One blob of ink: its colour patch and soft alpha, and its box in face pixels."""

    bgr: F32
    alpha: F32
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class PipLayout:
    """A face with its pips found: what :func:`scale_pips` redraws."""

    face: BGRA
    region: tuple[int, int, int, int]
    paper: F32
    pips: tuple[Pip, ...]
    #: Pixels (face coordinates) wiped to paper before the scaled pips are drawn.
    erase: npt.NDArray[np.bool_]
    #: Index boxes (face pixels) restored after the pips are drawn.
    keep: tuple[tuple[int, int, int, int], ...] = ()


def find_pips(face: BGRA, region_rect: Rect, keep: tuple[Rect, ...] = ()) -> PipLayout:
    """The ink blobs of ``face`` inside ``region_rect`` (fractions of the face) that are pips.

    ``keep``: the corner-index boxes; blobs reaching into them are not pips (the index itself).
    """
    h, w = face.shape[:2]
    x0, y0, x1, y1 = _pixels(region_rect, w, h)
    area = face[y0:y1, x0:x1, :3].astype(np.float32)
    opaque = face[y0:y1, x0:x1, 3] > 127
    keep_px = tuple(_pixels(r, w, h) for r in keep)
    in_keep = np.zeros(opaque.shape, bool)
    for kx0, ky0, kx1, ky1 in keep_px:
        in_keep[max(0, ky0 - y0):max(0, ky1 - y0), max(0, kx0 - x0):max(0, kx1 - x0)] = True
    paper = np.median(area[opaque], axis=0) if opaque.any() else np.full(3, 255.0, np.float32)
    diff = np.abs(area - paper).max(axis=2)
    soft = np.clip((diff - _EDGE_LO) / (_EDGE_HI - _EDGE_LO), 0.0, 1.0).astype(np.float32) * opaque
    ink = ((diff > _INK) & opaque).astype(np.uint8)
    # Merge a pip's separate strokes (Bellot's ace ring, Kennard's ornate spade) into one blob.
    k = max(1, round(0.006 * h))
    grown = cv2.dilate(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    rh, rw = grown.shape
    pips: list[Pip] = []
    erase = np.zeros((h, w), bool)
    for i in range(1, count):
        bx, by, bw, bh, _ = (int(v) for v in stats[i])
        ys, xs = np.nonzero(ink[by:by + bh, bx:bx + bw] & (labels[by:by + bh, bx:bx + bw] == i))
        # The ink itself, not its grown blob, decides: a pip may lie close to the region's edge.
        touches = not len(xs) or bx + xs.min() == 0 or by + ys.min() == 0 or \
            bx + xs.max() == rw - 1 or by + ys.max() == rh - 1
        mine = labels[by:by + bh, bx:bx + bw] == i
        if touches or bw > _MAX_SPAN * rw or bh > _MAX_SPAN * rh or (mine & in_keep[by:by + bh, bx:bx + bw]).any():
            continue
        pips.append(Pip(area[by:by + bh, bx:bx + bw].copy(), soft[by:by + bh, bx:bx + bw] * mine,
                        (x0 + bx, y0 + by, bw, bh)))
        erase[y0 + by:y0 + by + bh, x0 + bx:x0 + bx + bw] |= mine
    return PipLayout(face, (x0, y0, x1, y1), paper.astype(np.float32), tuple(pips), erase, keep_px)


def scale_pips(layout: PipLayout, sx: float, sy: float) -> BGRA:
    """The face with every pip scaled by (sx, sy) about its own centre, clipped to the region.

    A pip is shrunk further where the scale would make it larger than the whole region.
    """
    out = layout.face[..., :3].astype(np.float32)
    out[layout.erase] = layout.paper
    x0, y0, x1, y1 = layout.region
    for pip in layout.pips:
        bx, by, bw, bh = pip.box
        fit = min(1.0, 0.98 * (x1 - x0) / (bw * sx), 0.98 * (y1 - y0) / (bh * sy))
        nw, nh = max(1, round(bw * sx * fit)), max(1, round(bh * sy * fit))
        interp = cv2.INTER_AREA if nw < bw else cv2.INTER_LINEAR
        bgr = np.asarray(cv2.resize(pip.bgr, (nw, nh), interpolation=interp), np.float32)
        alpha = np.asarray(cv2.resize(pip.alpha, (nw, nh), interpolation=interp), np.float32)
        cx, cy = bx + bw / 2, by + bh / 2
        px, py = round(cx - nw / 2), round(cy - nh / 2)
        # Clip the patch to the region (a grown edge pip must not run over the indices).
        cx0, cy0 = max(px, x0), max(py, y0)
        cx1, cy1 = min(px + nw, x1), min(py + nh, y1)
        if cx1 <= cx0 or cy1 <= cy0:
            continue
        a = alpha[cy0 - py:cy1 - py, cx0 - px:cx1 - px, None]
        dst = out[cy0:cy1, cx0:cx1]
        dst[:] = dst * (1.0 - a) + bgr[cy0 - py:cy1 - py, cx0 - px:cx1 - px] * a
    result: BGRA = np.dstack([np.clip(out, 0, 255).astype(np.uint8), layout.face[..., 3]])
    for kx0, ky0, kx1, ky1 in layout.keep:
        result[ky0:ky1, kx0:kx1] = layout.face[ky0:ky1, kx0:kx1]
    return result


def draw_scale(code: str, rng: np.random.Generator, recipe: PipRecipe = DEFAULT_RECIPE) -> tuple[float, float]:
    """(sx, sy) for one rendering of pip card ``code``."""
    lo, hi = recipe.ace_scale if code[:-1] == "A" else recipe.pip_scale
    s = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    j = rng.uniform(-recipe.aspect_jitter, recipe.aspect_jitter)  # 0 when off (still one draw)
    return s * float(np.exp(j / 2)), s * float(np.exp(-j / 2))


class PipScaler:
    """Pip layouts of the training prints' pip cards, found once per render worker."""

    def __init__(self, faces: Mapping[str, Mapping[str, BGRA]], probability: float,
                 recipe: PipRecipe = DEFAULT_RECIPE) -> None:
        """``faces``: print name -> card code -> face image (BGRA), pip cards of training prints.

        Only the recipe's ranks are rescaled; the other faces render (and draw) as without it.
        """
        self.probability = probability
        self.recipe = recipe
        self.layouts: dict[tuple[str, str], PipLayout] = {}
        for name, codes in faces.items():
            rect, keep = (INDEXED[name].inner, INDEXED[name].keep) if name in INDEXED else (DEFAULT_PICTURE, ())
            for code, face in codes.items():
                if is_pip_card(code) and code[:-1] in recipe.ranks:
                    self.layouts[(name, code)] = find_pips(face, rect, keep)

    def applies(self, print_name: str, code: str) -> bool:
        """Whether a face may be rescaled at all (a pip card of a known print, pips found)."""
        layout = self.layouts.get((print_name, code))
        return self.probability > 0 and layout is not None and bool(layout.pips)

    def maybe_scale(self, print_name: str, code: str, rng: np.random.Generator) -> BGRA | None:
        """A rescaled copy of the face with the set probability, else None.

        Draws from ``rng`` only for faces it applies to, so every other sample renders exactly
        as without the augmentation.
        """
        if not self.applies(print_name, code) or rng.random() >= self.probability:
            return None
        sx, sy = draw_scale(code, rng, self.recipe)
        return scale_pips(self.layouts[(print_name, code)], sx, sy)
