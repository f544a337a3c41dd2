"""Real photos re-skinned with rendered faces: real light and camera, every card of the deck.

``--real-photos`` trains on the pinochle photos' own cards, which teaches the one photographed
print (9..A of one French deck) and says nothing of 2..8 or of an Italian deck.  What a real
photo has that a render lacks is partly *the photo*: the light on the card (its gradient,
colour cast, shadow), the camera's blur and the straightener's cut.  A re-skinned crop keeps
those and swaps the ink: the paper's light field is measured on the real crop (a smooth surface
fitted to the brightest pixels of each cell of a coarse grid, :func:`light_field`), and a training print's face
is painted onto it as reflectance (face / its paper) x light, inside the face's rounded corners;
outside them the real pixels stay.  The painted face is blurred to a photo's sharpness and
noised; the copies are then drawn like the real ones (:func:`~referee.recognition.real_crops.degrade`).

Assumptions (named, unmeasured): the straightened cut fills the crop with the card, so the face
is stretched to the crop; whatever covers the real card (a neighbour's edge, a finger) is
painted over, since it cannot be told from the ink it covers; the real print's own ink is lost.
The carriers are the training half of the photos only (:func:`~referee.recognition.real_crops.training_cards`),
so the held-out half stays the honest figure.

Measured (models/HISTORY.md, re-skinned probes): it reads *fewer* real cards than no real crops at all
(French held-out half 95.3 % against 97.6 %) and helps the Italian model nowhere, so no committed
recipe uses it; what the plain real crops teach is the photographed print's own ink.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition import synth
from referee.recognition.dataset import _blanks, _set_arts
from referee.recognition.faces import face_sets
from referee.recognition.photos import crop
from referee.recognition.preprocess import resize_crop
from referee.recognition.real_crops import VARIANTS, RealSet, degrade, training_cards

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


def light_field(cut: U8, cells: tuple[int, int] = (6, 9), rounds: int = 3) -> F32:
    """The paper's colour under the photo's light at every pixel (BGR, 0-255): each cell of a
    coarse grid gives its brightest pixels (ink is darker than its paper), a smooth quadratic
    surface per channel is fitted to them, and cells well below it (inside a court's picture,
    under a big pip, in a shadow's core) are dropped and the surface refitted."""
    h, w = cut.shape[:2]
    nx, ny = cells
    xs, ys, values = [], [], []
    for j in range(ny):
        for i in range(nx):
            cell = cut[j * h // ny:(j + 1) * h // ny, i * w // nx:(i + 1) * w // nx].reshape(-1, 3)
            if not len(cell):
                continue
            lum = cell.astype(np.float32).sum(axis=1)
            bright = cell[lum >= np.percentile(lum, 90)]
            xs.append((i + 0.5) / nx)
            ys.append((j + 0.5) / ny)
            values.append(bright.astype(np.float32).mean(axis=0))
    x, y, v = np.array(xs, np.float32), np.array(ys, np.float32), np.array(values, np.float32)
    design = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)
    keep = np.ones(len(v), bool)
    for _ in range(rounds):
        coef = np.linalg.lstsq(design[keep], v[keep], rcond=None)[0]
        fitted = (design @ coef).sum(axis=1)
        below = v.sum(axis=1) < fitted - 0.12 * float(fitted.max())
        if (~below).sum() < 8 or np.array_equal(~below, keep):
            break
        keep = ~below
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = (gx + 0.5) / w, (gy + 0.5) / h
    full = np.stack([np.ones_like(gx), gx, gy, gx * gx, gx * gy, gy * gy], axis=-1) @ coef
    return np.asarray(np.clip(full, 0, 255), np.float32)


def reskin(cut: U8, art: synth.CardArt, paper: int, rng: np.random.Generator) -> U8:
    """``cut`` (a real straightened crop) with ``art``'s face painted under its light."""
    h, w = cut.shape[:2]
    light = light_field(cut)
    face = cv2.resize(art.bgr, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    # a phone photo of a card 200-400 px tall is a little soft, a render is not
    sigma = float(rng.uniform(0.3, 1.2)) * h / 240
    face = np.asarray(cv2.GaussianBlur(face, (0, 0), sigma), np.float32)
    painted = np.clip(face / paper, 0, 1.05) * light + rng.normal(0, float(rng.uniform(1, 4)), face.shape)
    mask = (cv2.resize(art.mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0)[..., None]
    out = mask * painted + (1 - mask) * cut.astype(np.float32)
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def build_reskin_set(family: str, labels: Sequence[str], size: tuple[int, int], seed: int,
                     train_sets: Sequence[str], carriers: str = "french",
                     root: Path | None = None, variants: int = VARIANTS) -> RealSet:
    """The training half of the ``carriers`` photos, each as ``variants`` copies re-skinned with a
    random card of a random print in ``train_sets`` (``family``); one-hot labels."""
    by_name = {s.name: s for s in face_sets(family, root)}
    missing = [n for n in train_sets if n not in by_name]
    if missing:
        from referee.errors import ConfigError

        raise ConfigError(f"re-skinning: no print {', '.join(missing)} under {root or 'the shared faces'}")
    arts = {name: _set_arts(by_name[name]) for name in train_sets}
    choices = [(name, code) for name in train_sets for code in arts[name] if code in labels]
    chosen = training_cards(carriers, root)
    cache: dict[Path, U8] = {}
    images: list[U8] = []
    allowed = []
    index = {code: i for i, code in enumerate(labels)}
    for k, (card, _) in enumerate(chosen):
        cut = crop(card, straighten=True, cache=cache)
        rng = np.random.default_rng([seed, k])
        for _ in range(variants):
            name, code = choices[int(rng.integers(len(choices)))]
            which = int(rng.integers(2))
            painted = reskin(cut, arts[name][code][which], _blanks(by_name[name])[which][1], rng)
            if rng.random() < 0.5:
                painted = np.asarray(cv2.rotate(painted, cv2.ROTATE_180), np.uint8)
            images.append(resize_crop(degrade(painted, rng), size))
            row = np.zeros(len(labels), bool)
            row[index[code]] = True
            allowed.append(row)
    support = np.ones(len(labels), bool)
    return RealSet(np.stack(images), np.stack(allowed), support, len(chosen), len({c.image.name for c, _ in chosen}))
