"""Fit an enrollment's ``scale`` and ``weight`` to the club's deck, from its own photos.

One fixed pair cannot suit every deck. For a print the base model nearly knows (the held-out
Knoll French print, 86 % before enrollment) the base model must keep a say (weight ~0.85);
for a deck it cannot read at all (the EPFL photos' handwritten-digit deck, 3 %) the prototypes
must decide alone (weight ~1), and how sharp their softmax must be depends on how far apart the
deck's cards lie on the embedding. Both are measured on jittered copies of the enrollment
photos (the only labelled images of that deck there are):

* ``weight`` = 1 - 0.15 x (share of the copies the base model reads right), kept in
  [:data:`MIN_WEIGHT`, :data:`MAX_WEIGHT`]: 0.85 for a deck the base model reads perfectly,
  0.97 for one it cannot read.  (0.3 before the prototypes were whitened: on the held-out
  synthetic prints the base model reads 81-87 %, ``benchmarks/enroll_prints.py --per-face 4``,
  0.15 reads 37 more of 368 crops surely, as many sure-wrong (3), one fewer right.)
* ``scale``: of :data:`SCALES`, the one with the least negative log-likelihood of the copies'
  true cards under the prototypes' softmax, so enrolled reads come with honest confidences
  (the pipeline asks the operator below 0.8 and drops reads below 0.3).

The copies move every corner by up to 6 % of the card, change gain per colour channel and the
exposure, blur, and cover a band of the card in 30 % of them: roughly the spread between one
photo of a card and the same card cut from a live frame. Seeded: the same photos give the same
file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np
import numpy.typing as npt

from referee.recognition.classifier import CardClassifier, softmax
from referee.recognition.enrollment import Enrollment, unit_rows

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

COPIES = 4
SCALES = (10.0, 15.0, 20.0, 30.0, 40.0)
MIN_WEIGHT = 0.6
MAX_WEIGHT = 0.97
#: how much of the weight moves to the base model per unit of its accuracy on the copies
BASE_SHARE = 0.15
BATCH = 32


def no_tick() -> None:
    """The default ``tick``: nothing to keep alive."""


def jitter(crop: U8, rng: np.random.Generator) -> U8:
    """One jittered copy of a card crop (see the module doc)."""
    h, w = crop.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = (src + rng.uniform(-0.06, 0.06, (4, 2)) * np.array([w, h], np.float32)).astype(np.float32)
    out = cv2.warpPerspective(crop, cv2.getPerspectiveTransform(src, dst), (w, h), borderMode=cv2.BORDER_REPLICATE)
    pix = out.astype(np.float32) * rng.uniform(0.75, 1.2, 3).astype(np.float32) + np.float32(rng.uniform(-20, 20))
    if rng.random() < 0.3:  # a band covered by a hand or another card
        band = max(1, int(rng.uniform(0.1, 0.3) * h))
        y = int(rng.integers(0, max(1, h - band)))
        pix[y:y + band] = pix[y:y + band] * 0.3 + rng.uniform(0, 255, 3).astype(np.float32) * 0.7
    res = np.asarray(np.clip(pix, 0, 255), np.uint8)
    sigma = rng.uniform(0.0, 1.5)
    if sigma > 0.3:
        res = np.asarray(cv2.GaussianBlur(res, (0, 0), sigma), np.uint8)
    return res


def fit(enrollment: Enrollment, base: CardClassifier, crops: Sequence[U8], codes: Sequence[str],
        seed: int = 0, tick: Callable[[], None] = no_tick) -> Enrollment:
    """``enrollment`` with ``weight`` and ``scale`` fitted on jittered copies of ``crops``.

    ``base`` must be the classifier without enrollment (its own probabilities are measured).
    ``tick`` is called after every card's copies and every batch read: the box pings its
    service watchdog with it (a deck's fit takes seconds on a Pi, the watchdog's period 30).
    """
    rng = np.random.default_rng(seed)
    copies: list[U8] = []
    for crop in crops:
        copies.extend(jitter(crop, rng) for _ in range(COPIES))
        tick()
    truth = [code for code in codes for _ in range(COPIES)]
    probs, emb = base_reads(base, copies, tick)
    base_right = float(np.mean([base.labels[i] == t for i, t in zip(probs.argmax(axis=1), truth, strict=True)]))
    weight = float(np.clip(1.0 - BASE_SHARE * base_right, MIN_WEIGHT, MAX_WEIGHT))
    sims = enrollment.similarities(emb)
    want = np.array([enrollment.codes.index(t) for t in truth])
    scale = min(SCALES, key=lambda s: _nll(s * sims, want))
    return enrollment.with_fit(weight, scale)


def base_reads(base: CardClassifier, crops: Sequence[U8],
               tick: Callable[[], None] = no_tick) -> tuple[F32, F32]:
    """The base model's calibrated probabilities and unit embeddings of ``crops``, in batches
    (``tick`` called after each)."""
    probs, embs = [], []
    for i in range(0, len(crops), BATCH):
        logits, emb = base.run(crops[i:i + BATCH])
        probs.append(softmax(logits, base.info.temperature))
        embs.append(unit_rows(emb))
        tick()
    return np.concatenate(probs).astype(np.float32), np.concatenate(embs).astype(np.float32)


def _nll(z: F32, want: npt.NDArray[np.int64]) -> float:
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(want)), want].mean())
