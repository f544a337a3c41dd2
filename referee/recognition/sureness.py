"""When a read is not to be trusted: rules on the read itself that make a card unsure or no card.

The classifier's probability of its card says how sure the network is, not whether the crop is a
card it knows: a placemat, a game box or the face of a deck no training print resembles can read
as a card at 0.9.  The read tells more than that one number:

* ``no_card_back``: the probability the read gives ``back`` (face down or not a card).  A card the
  model knows leaves almost none there (renders of the training prints read surely right: 99 in
  100 below 0.0061); a read that gives ``back`` more than ``no_card_back`` is taken for no card: all its
  probability goes to ``back``.
* ``prototypes``: a read whose embedding lies farther from the prototype of the card it is read
  as than every render of that card the model read right (:class:`Prototypes`, renders of the
  training prints only) is *unsure*: its card keeps at most ``unsure_at`` of the probability
  (below the pipeline's 0.8 ``sure``, above its 0.4 floor for a single photo), the rest goes to
  ``back``, so the still path neither takes it as a card without asking nor measures the card
  size from it.

The committed models use the first rule only: the second, through the still path, cost real
pinochle cards (a right read made unsure no longer counts as a sure card in the still reading's
rules). The test-time views disagreeing and the top-2 margin were measured too and caught almost
none of the sure false cards of the real photos (models/HISTORY.md, 28 Nov).  The model's JSON
carries the rules (``"sureness": {"no_card_back": 0.02, "prototypes": "<deck>.prototypes.npz", "unsure_at":
0.6}``, each rule off when its key is absent) and names the prototypes file beside it; that file
records the graph's sha256, so prototypes of another model (or a damaged file) are refused,
naming the file; a missing one turns that rule off with a logged warning.

    rule = Sureness.from_info(info.extra, json_path, sha256, labels, dim)   # None: no "sureness"
    probs = rule.apply(probs, embeddings, labels)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.cards import BACK
from referee.errors import ModelError
from referee.recognition.prototypes import Prototypes

log = logging.getLogger(__name__)
F32 = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
#: the pipeline takes a read at or above this without asking (``FramePipeline.process_still``'s
#: ``sure``); a doubted read is held below it
SURE = 0.8
#: the keys of a model JSON's ``"sureness"`` block
KEYS = ("no_card_back", "prototypes", "unsure_at")


@dataclass(frozen=True)
class Sureness:
    """The rules of the module docstring; a rule set to None is off."""

    prototypes: Prototypes | None = None
    unsure_at: float = 0.6
    no_card_back: float | None = None

    @staticmethod
    def from_info(extra: dict[str, Any], json_path: Path, model_sha256: str, labels: Sequence[str],
                  dim: int) -> Sureness | None:
        """The JSON's ``"sureness"`` block (None when it has none), its prototypes loaded from
        beside ``json_path``; a bad key or value is a ModelError naming the file and key."""
        block = extra.get("sureness")
        if block is None:
            return None
        if not isinstance(block, dict):
            raise ModelError(f"{json_path}: sureness: expected an object with keys {', '.join(KEYS)}, got {block!r}")
        unknown = sorted(set(block) - set(KEYS))
        if unknown:
            raise ModelError(f"{json_path}: sureness: unknown key(s) {unknown}; known: {', '.join(KEYS)}")

        def number(key: str, low: float, high: float, why: str) -> float | None:
            value = block.get(key)
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value < high:
                raise ModelError(f"{json_path}: sureness.{key}: expected a number between {low} and {high} ({why}), "
                                 f"got {value!r}")
            return float(value)

        unsure_at = number("unsure_at", 0.5, SURE, "the card stays the read's top, unsure")
        no_card_back = number("no_card_back", 0.0, 0.5, "the probability of 'back' past which a read is no card")
        name = block.get("prototypes")
        protos = None
        if name is not None:
            if not isinstance(name, str) or not name or Path(name).name != name:
                raise ModelError(f"{json_path}: sureness.prototypes: expected the name of a file beside it, "
                                 f"got {name!r}")
            path = json_path.parent / name
            if path.exists():
                protos = Prototypes.load(path, model_sha256, labels, dim)
            else:
                # a model copied without it (a lab folder, a recalibrated copy) still reads, as
                # surely as before the rule; a file there but damaged or of another model is refused
                log.warning("%s: no prototypes file %s beside it: reads far from every render of their card "
                            "stay sure (remake it: python -m referee.recognition.make_prototypes)", json_path, path)
        return Sureness(protos, 0.6 if unsure_at is None else unsure_at, no_card_back)

    def doubted(self, probs: F32, embeddings: F32, labels: Sequence[str]) -> tuple[BoolArray, BoolArray]:
        """Which reads (rows of ``probs``, with their ``embeddings``) are (no card, unsure); a
        read of ``back`` neither."""
        top = probs.argmax(axis=1)
        card = top != labels.index(BACK)
        none = np.zeros(len(probs), bool)
        if self.no_card_back is not None:
            none = card & (probs[:, labels.index(BACK)] > self.no_card_back)
        unsure = np.zeros(len(probs), bool)
        if self.prototypes is not None:
            unsure = card & ~none & self.prototypes.below_floor(embeddings, [labels[i] for i in top])
        return none, unsure

    def apply(self, probs: F32, embeddings: F32, labels: Sequence[str]) -> F32:
        """``probs`` with each read taken for no card all on ``back``, and each unsure read's
        card held to ``unsure_at``, the rest on ``back``."""
        if BACK not in labels:
            return probs
        none, unsure = self.doubted(probs, embeddings, labels)
        if not (none.any() or unsure.any()):
            return probs
        out = probs.copy()
        back = labels.index(BACK)
        out[none] = 0.0
        out[none, back] = 1.0
        rows = np.flatnonzero(unsure)
        top = out[rows].argmax(axis=1)
        excess = np.maximum(out[rows, top] - self.unsure_at, 0.0)
        out[rows, top] -= excess
        out[rows, back] += excess
        return out
