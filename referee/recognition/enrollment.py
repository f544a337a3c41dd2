"""Deck enrollment: per-card prototypes on the model's embedding, from a club's own photos.

The prototypes are blended with the base model: a crop's probability mass on cards is
shared between the base model and a softmax over cosine similarity to the prototypes.

Similarity is measured about the enrolled deck's own mean embedding (``center``): the base
model maps every card of a deck it has never seen to one small region of its embedding (on
the real EPFL photos, every card's nearest prototype is at cosine 0.96-1.0), so plain cosine
cannot separate them at any sensible ``scale``; about their mean they spread out again.
About the mean they are also *whitened* (``whiten``): the deck's cards still spread along a few
directions of the embedding and hardly along the others, yet faces that differ only in a
small mark (a handwritten 6 against a 9, a club pip against a spade one) differ along those
others; rescaling every direction to the deck's own spread (shrunk towards the average so a
direction no enrolled card varies along is not blown up) lets them count.  On the real EPFL
photos this turns the blend's hesitant reads of rightly read cards into sure ones (226 -> 305
of 306 reads at >= 0.8, none of them wrong; ``benchmarks/enroll_photos.py``).

Each card has two prototypes: the card as photographed and turned 180° (``turned``).  The
embedding is not turn-invariant and players put cards down either way up; one prototype
averaged over both ways (what files written before ``turned`` hold) matches neither well.

The base model's 'back' vote (not a card) normally stands: prototypes share out only the mass
it gives the enrolled cards.  But a model trained on paper negatives takes a deck of plain white
faces for paper (the session-7 French candidate s9 gives 'back' most of its vote for 88 of 311
EPFL test cards; enrolled, it read 71 % of them right).  So a crop nearer a prototype than the two nearest cards of the deck are to
each other (``back_gate``) is taken for that card, the back vote set aside in proportion to how
far past that line it is (wholly from halfway to a perfect match).  Non-cards stay well below it: on rendered negatives (tables, backs,
jokers) and the EPFL whiteboard the nearest prototype is at 0.3-0.57, the line at 0.71-0.74,
real test photos of the cards at 0.93 (median).
``scale`` and ``weight`` are fitted per deck by :mod:`referee.recognition.enroll_fit`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.cards import BACK
from referee.errors import ModelError
from referee.recognition.model_info import ModelInfo
from referee.recognition.npz_file import read_npz

F32 = npt.NDArray[np.float32]
#: Weight of the prototypes against the base model, and sharpness of their softmax.
DEFAULT_WEIGHT = 0.7
DEFAULT_SCALE = 20.0
#: Fewer distinct cards than this: no centring (the mean of a handful of cards is not the
#: deck's, and with one card the centred prototype would vanish).
MIN_CODES_TO_CENTER = 8
#: Whitening shrinkage: each direction's variance gets this share of the mean variance added
#: before it is divided out (0: plain whitening, which blows up directions no card varies
#: along; large: no whitening).  The EPFL figures are flat from 0.1 to 1; on the held-out
#: synthetic prints (``benchmarks/enroll_prints.py --per-face 4``) 1 reads 1-3 cards more than 0.1-0.3.
WHITEN_SHRINK = 1.0
#: Bounds of an enrollment file's numbers (a file past them is refused as corrupt): ``scale`` is
#: fitted among 10-40 (enroll_fit); prototypes and centre are about unit length.
MAX_SCALE = 1000.0
MAX_ABS = 1e6


@dataclass(frozen=True)
class Enrollment:
    """Prototypes (L2-normalised mean embeddings) for some or all cards of one deck."""

    deck: str
    codes: tuple[str, ...]
    prototypes: F32
    model_sha256: str
    weight: float = DEFAULT_WEIGHT
    scale: float = DEFAULT_SCALE
    #: subtracted from every embedding before cosine similarity (zeros: plain cosine)
    center: F32 | None = None
    #: (dim, dim) applied to the centred unit embedding before similarity (None: identity)
    whiten: F32 | None = None
    #: the cards' prototypes turned 180°, row for row with ``prototypes`` (None: one prototype
    #: per card, as files written before it hold)
    turned: F32 | None = None
    #: a crop nearer a prototype than this is a card of the deck whatever the base model's
    #: 'back' vote (None: the back vote always stands, as in files written before it)
    back_gate: float | None = None

    @staticmethod
    def from_embeddings(deck: str, codes: Sequence[str], embeddings: F32, model_sha256: str,
                        weight: float = DEFAULT_WEIGHT, scale: float = DEFAULT_SCALE,
                        centered: bool = True, turned: F32 | None = None,
                        whiten_shrink: float | None = WHITEN_SHRINK) -> Enrollment:
        """Average the embeddings of each code into one prototype, and ``turned`` (the same
        crops' embeddings turned 180°, row for row) into a second one.

        About the deck's mean and whitened (``whiten_shrink``; None: not whitened) when
        ``centered`` and at least :data:`MIN_CODES_TO_CENTER` distinct cards are enrolled; then
        ``back_gate`` too (:meth:`nearest_other_card`)."""
        uniq = tuple(sorted(set(codes)))
        rows = [np.array([c == u for c in codes]) for u in uniq]
        both = embeddings if turned is None else np.concatenate([embeddings, turned])
        dim = embeddings.shape[1]
        center = np.zeros(dim, np.float32)
        matrix: F32 | None = None
        if centered and len(uniq) >= MIN_CODES_TO_CENTER:
            # the mean of the per-card means, so a card photographed twice does not pull it
            twice = rows if turned is None else [np.concatenate([r, r]) for r in rows]
            center = np.stack([both[r].mean(axis=0) for r in twice]).mean(axis=0).astype(np.float32)
            if whiten_shrink is not None:
                matrix = whitening(unit_rows(both - center), whiten_shrink)
        e = Enrollment(deck, uniq, np.zeros((len(uniq), dim), np.float32), model_sha256, weight, scale,
                       center, matrix)

        def means(x: F32) -> F32:
            feats = e.features(x)
            return unit_rows(np.stack([feats[r].mean(axis=0) for r in rows]))

        e = replace(e, prototypes=means(embeddings), turned=None if turned is None else means(turned))
        return replace(e, back_gate=e.nearest_other_card()) if matrix is not None else e

    def nearest_other_card(self) -> float:
        """The highest similarity between prototypes of two different cards: a crop nearer a
        prototype than any two of the deck's own cards are to each other is that card."""
        protos = self.prototypes if self.turned is None else np.concatenate([self.prototypes, self.turned])
        owner = np.tile(np.arange(len(self.codes)), len(protos) // len(self.codes))
        sims = protos @ protos.T
        sims[owner[:, None] == owner[None, :]] = -1.0
        return float(sims.max()) if len(self.codes) > 1 else 1.0

    def with_fit(self, weight: float, scale: float) -> Enrollment:
        return replace(self, weight=float(weight), scale=float(scale))

    def features(self, embeddings: F32) -> F32:
        """Embeddings as the prototypes are compared with them: centred, whitened, unit length."""
        center = np.zeros(embeddings.shape[1], np.float32) if self.center is None else self.center
        out = unit_rows(embeddings - center)
        return out if self.whiten is None else unit_rows((out @ self.whiten).astype(np.float32))

    def similarities(self, embeddings: F32) -> F32:
        """Cosine similarity (N, len(codes)) of embeddings to each card, about the centre: to
        the nearer of its two prototypes (as photographed, turned) where there are two."""
        x = self.features(embeddings)
        out: F32 = (x @ self.prototypes.T).astype(np.float32)
        if self.turned is not None:
            out = np.maximum(out, x @ self.turned.T).astype(np.float32)
        return out

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        dim = self.prototypes.shape[1]
        # absent parts are written as empty arrays (np.savez has no None)
        center, whiten, turned = (np.zeros((0, dim), np.float32) if v is None else v
                                  for v in (self.center, self.whiten, self.turned))
        gate = np.zeros(0, np.float32) if self.back_gate is None else np.array([self.back_gate], np.float32)
        # written beside and renamed over: a crash or a full disk mid-write leaves the old file
        # whole (or none), never one cut short that the box would refuse at its next start
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            with tmp.open("wb") as fh:
                np.savez_compressed(fh, deck=self.deck, codes=np.array(self.codes), prototypes=self.prototypes,
                                    model_sha256=self.model_sha256, weight=self.weight, scale=self.scale,
                                    center=center, whiten=whiten, turned=turned, back_gate=gate)
                fh.flush()
                os.fsync(fh.fileno())
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)

    @staticmethod
    def load(path: Path) -> Enrollment:
        """Read and check a file written by :meth:`save`; anything wrong with it (missing,
        empty, cut short, not an enrollment, NaN values, arrays that do not fit together) is a
        :class:`ModelError` naming the file and what is wrong."""
        z = read_npz(path, "enrollment file", ModelError)
        try:
            # files written before centring, whitening or turned prototypes were added lack
            # those arrays: plain cosine, no whitening, one prototype per card
            center, whiten, turned, gate = (_optional(z, k) for k in ("center", "whiten", "turned", "back_gate"))
            e = Enrollment(str(z["deck"]), tuple(str(c) for c in z["codes"]),
                           z["prototypes"].astype(np.float32), str(z["model_sha256"]),
                           float(z["weight"]), float(z["scale"]), center, whiten, turned,
                           None if gate is None else float(gate.reshape(-1)[0]))
        except KeyError as exc:
            raise ModelError(f"corrupt enrollment file {path}: no {exc} array (not written by referee "
                             "enroll?)") from exc
        except (ValueError, TypeError, IndexError) as exc:
            raise ModelError(f"corrupt enrollment file {path}: {exc}") from exc
        e.check_shapes(path)
        e.check_values(path)
        return e

    def check_shapes(self, path: Path) -> None:
        """The arrays must fit together (a file edited or cut short names itself)."""
        if self.prototypes.ndim != 2 or not len(self.codes):
            raise ModelError(f"corrupt enrollment file {path}: prototypes has shape {self.prototypes.shape}, "
                             f"expected (cards, embedding size) for at least one card")
        n, dim = self.prototypes.shape
        wanted = {"prototypes": ((len(self.codes), dim), self.prototypes),
                  "center": ((dim,), self.center), "whiten": ((dim, dim), self.whiten),
                  "turned": ((n, dim), self.turned)}
        for key, (shape, array) in wanted.items():
            if array is not None and (n != len(self.codes) or array.shape != shape):
                raise ModelError(f"corrupt enrollment file {path}: {key} has shape {array.shape}, "
                                 f"{len(self.codes)} cards need {shape}")
        twice = sorted({c for c in self.codes if self.codes.count(c) > 1})
        if twice:
            raise ModelError(f"corrupt enrollment file {path}: codes holds {twice} more than once")

    def check_values(self, path: Path) -> None:
        """Numbers that would make the blend silently blind are refused, naming the array: a NaN
        anywhere in the prototypes (or centre, whitening) makes every similarity NaN, and with
        it every probability the blend gives."""
        arrays = {"prototypes": self.prototypes, "center": self.center, "whiten": self.whiten,
                  "turned": self.turned}
        for key, array in arrays.items():
            if array is not None and not np.isfinite(array).all():
                bad = int(np.size(array) - np.isfinite(array).sum())
                raise ModelError(f"corrupt enrollment file {path}: {key} holds {bad} NaN or infinite value(s)")
            # unit-length rows and a whitening of the deck's spread are far below this; past it
            # float32 products overflow to infinity, and the blend to NaN
            if array is not None and array.size and float(np.abs(array).max()) > MAX_ABS:
                raise ModelError(f"corrupt enrollment file {path}: {key} holds values beyond ±{MAX_ABS:g} "
                                 f"(up to {float(np.abs(array).max()):g})")
        checks = {"weight": (self.weight, 0.0 <= self.weight <= 1.0, "a number 0..1"),
                  "scale": (self.scale, 0 < self.scale <= MAX_SCALE, f"a number > 0 and <= {MAX_SCALE:g}")}
        if self.back_gate is not None:
            checks["back_gate"] = (self.back_gate, math.isfinite(self.back_gate), "a finite similarity")
        for key, (value, ok, expected) in checks.items():
            if not ok:
                raise ModelError(f"corrupt enrollment file {path}: {key}: expected {expected}, got {value!r}")

    def check_compatible(self, info: ModelInfo, onnx_sha256: str) -> None:
        """Prototypes only mean something on the embedding of the model they were made with."""
        if self.deck != info.deck:
            raise ModelError(f"enrollment is for deck {self.deck!r}, model is {info.deck!r}")
        if self.model_sha256 != onnx_sha256:
            raise ModelError("enrollment was made with another model (sha256 "
                             f"{self.model_sha256[:12]}), re-run referee enroll")
        unknown = [c for c in self.codes if c not in info.labels]
        if unknown:
            raise ModelError(f"enrollment has codes not in the {info.deck!r} labels: {unknown}")
        if self.prototypes.shape[1] != info.embedding_dim:
            raise ModelError(f"enrollment prototypes have {self.prototypes.shape[1]} values each, the model's "
                             f"embedding has {info.embedding_dim}: re-run referee enroll")

    def blend(self, probs: F32, embeddings: F32, labels: Sequence[str]) -> F32:
        """Mix the base probabilities with prototype similarity (rows still sum to 1)."""
        index = [labels.index(c) for c in self.codes]
        sims = self.similarities(embeddings)
        z = self.scale * sims
        z -= z.max(axis=1, keepdims=True)
        proto = np.exp(z)
        proto /= proto.sum(axis=1, keepdims=True)
        # The prototypes share out only the mass the base model gives the enrolled codes:
        # 'back' (unless enrolled) and cards without a prototype keep their base share ...
        target = probs.copy()
        mass = probs[:, index].sum(axis=1)
        if self.back_gate is not None and BACK in labels and BACK not in self.codes and self.back_gate < 1.0:
            # ... except a crop nearer a prototype than two of the deck's cards are to each
            # other: a base model that takes the deck's plain faces for paper or a back is
            # overruled, in proportion to how far past that line the crop is, wholly from
            # halfway between the line and a perfect match
            back = labels.index(BACK)
            give = np.clip(2.0 * (sims.max(axis=1) - self.back_gate) / (1.0 - self.back_gate), 0.0, 1.0) * probs[:, back]
            mass = mass + give
            target[:, back] -= give
        target[:, index] = proto * mass[:, None]
        out: F32 = ((1.0 - self.weight) * probs + self.weight * target).astype(np.float32)
        return out


def whitening(x: F32, shrink: float) -> F32:
    """Symmetric (dim, dim) matrix that gives the rows of ``x`` unit variance along every
    direction, each direction's variance first raised by ``shrink`` x the mean variance."""
    vals, vecs = np.linalg.eigh(np.cov(x.T.astype(np.float64)))
    vals = np.maximum(vals, 0.0)
    floor = shrink * float(vals.mean()) + 1e-12
    out: F32 = ((vecs / np.sqrt(vals + floor)) @ vecs.T).astype(np.float32)
    return out


def _optional(z: dict[str, npt.NDArray[Any]], key: str) -> F32 | None:
    """An optional array of an enrollment file: None if absent or empty."""
    if key not in z or z[key].size == 0:
        return None
    out: F32 = z[key].astype(np.float32)
    return out


def unit_rows(x: F32) -> F32:
    """Each row scaled to length 1 (embeddings, prototypes); all-zero rows stay zero."""
    out: F32 = (x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)).astype(np.float32)
    return out
