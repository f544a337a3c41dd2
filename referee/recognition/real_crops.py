"""Real card crops to train on: half of the pinochle photos in ``../shared/photos``.

Every synthetic recipe tried (models/HISTORY.md) left the French model at ~97 % of the real
pinochle cards it should read (models/README.md, "Limitations"): what was missing is real pixels (a
phone camera's blur and sharpening, real ink on real card stock, real light).  The pinochle
photos (``french_pinochle_voc_train``, Apache-2.0, so a model trained on them may be committed)
are the one real set whose licence allows training; the Triestine and EPFL photos state none
and stay evaluation only.  ``../shared/README.md`` asks that the photos not be trained on
"blindly", so only half of them are: the photos are sorted by file name and cut into blocks of
:data:`BLOCK` consecutive photos, the even blocks train (:func:`is_training_photo`) and the odd
blocks stay held out, so a real-photo figure that no training has seen is always there.
Consecutive photos are often the same card in the same place moments apart; blocks rather than
alternate photos keep those near-duplicates on one side of the split.

Only the boxes that meet the input contract (``benchmarks/data/photo_review.csv``) are used,
cut straight as the vision stage would hand them over (:func:`~referee.recognition.photos.crop`).
The labels give the rank only (and the suit where a reviewer added it): such a crop's target is
"any card of that rank", trained by the marginal likelihood of the ranks' classes
(:func:`allowed_classes`), *given the deck's ranks* (:func:`support_classes`): the pinochle deck
holds only 9..A, so a photo says nothing about how likely a 2..8 is, and the plain likelihood
(models/HISTORY.md) taught real-looking crops to avoid 2..8: the held-out Knoll print's
pip cards drifted to tens (8C->10S, 4H->10H; 83.4 -> 75.8 %), which a Belotta deck's sevens and
eights cannot afford.  Each crop is drawn as :data:`VARIANTS` jittered copies (corners off
by up to 6 %, colour gain, a covering band, blur, a smaller camera size, JPEG), seeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import BACK
from referee.errors import ConfigError
from referee.recognition.enroll_fit import jitter
from referee.recognition.photo_review import PhotoReview, load_review
from referee.recognition.photos import PhotoCard, crop, photo_cards, read_photo
from referee.recognition.preprocess import resize_crop

U8 = npt.NDArray[np.uint8]
BoolArray = npt.NDArray[np.bool_]

#: the one real photo set per deck family whose licence allows training
TRAINABLE = {"french": "french_pinochle_voc_train"}
#: consecutive photos (sorted by name) per block of the split
BLOCK = 20
#: jittered copies drawn of each crop (the first is the crop itself)
VARIANTS = 16


@dataclass(frozen=True)
class RealSet:
    """Real crops at the model's input size, with the classes each may be (rank-only labels)."""

    images: U8  # (N, H, W, 3) BGR
    allowed: BoolArray  # (N, classes)
    support: BoolArray  # (classes,): the photographed deck's cards and 'back', what a crop is known to be one of
    crops: int  # distinct boxes (N / variants)
    photos: int  # distinct photos they come from

    def __len__(self) -> int:
        return len(self.images)


def training_names(names: Sequence[str]) -> set[str]:
    """The photos (of all of ``names``) on the training side of the split: the even blocks."""
    return {n for i, n in enumerate(sorted(set(names))) if (i // BLOCK) % 2 == 0}


def is_training_photo(name: str, names: Sequence[str]) -> bool:
    """Whether photo ``name`` (one of ``names``) is on the training side of the split."""
    return name in training_names(names)


def split_cards(cards: Sequence[PhotoCard]) -> tuple[list[PhotoCard], list[PhotoCard]]:
    """(training side, held-out side) of the labelled boxes, by their photo."""
    train = training_names([c.image.name for c in cards])
    return [c for c in cards if c.image.name in train], [c for c in cards if c.image.name not in train]


def allowed_classes(card: PhotoCard, rank: str, labels: Sequence[str]) -> BoolArray:
    """The classes a box labelled ``rank`` (and its suit, where known) may be."""
    out = np.zeros(len(labels), bool)
    for i, code in enumerate(labels):
        if code == BACK:
            continue
        out[i] = code[:-1] == rank and (card.suit is None or code[-1] == card.suit)
    if not out.any():
        raise ConfigError(f"{card.image.name} box {card.box}: rank {rank!r} is not a class of the model")
    return out


def support_classes(ranks: Sequence[str], labels: Sequence[str]) -> BoolArray:
    """The classes of a deck holding only ``ranks`` (any suit), and 'back'."""
    return np.array([code == BACK or code[:-1] in set(ranks) for code in labels], bool)


def training_cards(family: str, root: Path | None = None, review: PhotoReview | None = None) -> list[tuple[PhotoCard, str]]:
    """(box, rank) of every in-contract box on the training side for ``family``."""
    if family not in TRAINABLE:
        raise ConfigError(f"--real-photos: no real photos that may be trained on for the {family!r} deck "
                          f"(only {', '.join(TRAINABLE)}: the other photo sets state no licence)")
    review = load_review() if review is None else review
    cards = [c for c in photo_cards(family, root) if c.source == TRAINABLE[family]]
    if not cards:
        where = (root / "photos" / TRAINABLE[family]) if root is not None else TRAINABLE[family]
        raise ConfigError(f"--real-photos: no labelled photos found in {where}")
    train, _ = split_cards(cards)
    return [(c, review.rank(c)) for c in train if review.in_contract(c)]


def build_real_set(family: str, labels: Sequence[str], size: tuple[int, int], seed: int,
                   root: Path | None = None, variants: int = VARIANTS) -> RealSet:
    """The training side's crops, each as ``variants`` seeded copies at ``size`` (W, H)."""
    chosen = training_cards(family, root)
    cache: dict[Path, U8] = {}
    images: list[U8] = []
    allowed: list[BoolArray] = []
    for k, (card, rank) in enumerate(chosen):
        cut = crop(card, straighten=True, cache=cache)
        mask = allowed_classes(card, rank, labels)
        rng = np.random.default_rng([seed, k])
        for v in range(variants):
            images.append(resize_crop(cut if v == 0 else degrade(cut, rng), size))
            allowed.append(mask)
    support = support_classes(sorted({rank for _, rank in chosen}), labels)
    return RealSet(np.stack(images), np.stack(allowed), support, len(chosen), len({c.image.name for c, _ in chosen}))


def degrade(cut: U8, rng: np.random.Generator) -> U8:
    """One jittered copy (:func:`~referee.recognition.enroll_fit.jitter`), seen smaller by the
    camera half of the time, JPEG-compressed."""
    out = jitter(cut, rng)
    h = out.shape[0]
    target = None
    if rng.random() < 0.5 and h > 80:
        target = int(rng.uniform(80, max(81, min(h, 200))))
    return seen_at(out, target, int(rng.integers(40, 96)))


def seen_at(cut: U8, height: int | None, quality: int | None) -> U8:
    """``cut`` as a camera would deliver it with the card ``height`` px tall (area-averaged;
    ``None`` keeps the size), JPEG-compressed at ``quality`` (``None``: not compressed)."""
    out = cut
    if height is not None and height != out.shape[0]:
        h, w = out.shape[:2]
        small = cv2.resize(out, (max(8, round(w * height / h)), height), interpolation=cv2.INTER_AREA)
        out = np.asarray(small, np.uint8)
    if quality is None:
        return out
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if ok:
        out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


#: jittered copies drawn of each real Napoletane deck photo (:func:`build_deck_set`)
DECK_VARIANTS = 24
#: card heights (px) the box's camera sees a card at (hardware/README.md): each copy is shown at one
CAMERA_HEIGHTS = (80, 245)


def build_deck_set(labels: Sequence[str], size: tuple[int, int], seed: int, decks: Sequence[str],
                   root: Path | None = None, variants: int = DECK_VARIANTS, quads: Path | None = None) -> RealSet:
    """The photos of the real Napoletane ``decks`` (:mod:`referee.recognition.real_decks`), each
    as ``variants`` seeded copies at ``size`` (W, H), every copy as the box's camera would hand
    it over (:func:`camera_copy`). Their labels give the whole card, so each copy has one class."""
    from referee.recognition.real_decks import QUADS, deck_photos

    if not decks:
        raise ConfigError("--real-decks: name the decks to train on (the others stay unseen)")
    photos = [(p, p.quad) for p in deck_photos(root, QUADS if quads is None else quads, decks) if p.quad is not None]
    images: list[U8] = []
    allowed: list[BoolArray] = []
    for k, (photo, quad) in enumerate(photos):
        image = read_photo(photo.image)
        mask = np.array([code == photo.card for code in labels], bool)
        if not mask.any():
            raise ConfigError(f"{photo.image}: {photo.card!r} is not a class of the model")
        rng = np.random.default_rng([seed, k])
        for _ in range(variants):
            images.append(resize_crop(camera_copy(image, quad, rng), size))
            allowed.append(mask)
    support = np.ones(len(labels), bool)
    return RealSet(np.stack(images), np.stack(allowed), support, len(photos), len(photos))


def camera_copy(image: U8, quad: npt.NDArray[np.float32], rng: np.random.Generator) -> U8:
    """The card inside ``quad`` cut as the live finder might cut it and seen as the box's camera
    sees a card: the quad turned by up to 6 degrees, scaled by 0.94-1.06 and each corner off by
    up to 5% of the card (the photo's own table shows where the cut overshoots), colour gain, a
    covering band in 30% of copies, blur, the card 80-245 px tall (area-averaged) and JPEG
    quality 40-95."""
    from referee.recognition.rectify import warp_portrait

    centre = quad.mean(axis=0)
    angle = np.deg2rad(rng.uniform(-6.0, 6.0))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    side = float(np.linalg.norm(quad[0] - quad[2]))
    moved = (quad - centre) @ rot.T * np.float32(rng.uniform(0.94, 1.06)) + centre
    moved = (moved + rng.uniform(-0.05, 0.05, (4, 2)) * side * 0.6).astype(np.float32)
    cut = warp_portrait(image, moved)
    pix = cut.astype(np.float32) * rng.uniform(0.8, 1.15, 3).astype(np.float32) + np.float32(rng.uniform(-15, 15))
    h, w = cut.shape[:2]
    if rng.random() < 0.3:  # a band covered by a hand or the next card of a trick
        band = max(1, int(rng.uniform(0.1, 0.35) * (h if rng.random() < 0.5 else w)))
        if rng.random() < 0.5:
            y = int(rng.integers(0, max(1, h - band)))
            pix[y:y + band] = rng.uniform(0, 255, 3).astype(np.float32)
        else:
            x = int(rng.integers(0, max(1, w - band)))
            pix[:, x:x + band] = rng.uniform(0, 255, 3).astype(np.float32)
    out = seen_at(np.asarray(np.clip(pix, 0, 255), np.uint8), int(rng.integers(CAMERA_HEIGHTS[0], CAMERA_HEIGHTS[1] + 1)), None)
    sigma = rng.uniform(0.0, 1.2)  # at the camera's size: a soft focus or a little motion
    if sigma > 0.3:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), sigma), np.uint8)
    return seen_at(out, None, int(rng.integers(40, 96)))
