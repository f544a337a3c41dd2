"""When a read is not to be trusted: a rule on the read itself that makes a card no card.

The classifier's probability of its card says how sure the network is, not whether the crop is a
card it knows: a placemat, a game box or the face of a deck no training print resembles can read
as a card at 0.9.  The read tells more than that one number:

* ``no_card_back``: the probability the read gives ``back`` (face down or not a card).  A card the
  model knows leaves almost none there (renders of the training prints read surely right: 99 in
  100 below 0.0061); a read that gives ``back`` more than ``no_card_back`` is taken for no card: all its
  probability goes to ``back``.

A second rule was measured and left out of the product: a read whose embedding lies farther from
its card's prototype (renders of the training prints) than every render of that card read right
held unsure.  Through the still path it cost real pinochle cards (a right read made unsure no
longer counts as a sure card in the still reading's rules).  The test-time views disagreeing and
the top-2 margin caught almost none of the sure false cards of the real photos.  Figures:
models/HISTORY.md, 28 Nov.  The model's JSON carries the rule (``"sureness": {"no_card_back":
0.02}``; no rule without the block)::

    rule = Sureness.from_info(info.extra, json_path)   # None: no "sureness"
    probs = rule.apply(probs, labels)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.cards import BACK
from referee.errors import ModelError

F32 = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
#: the keys of a model JSON's ``"sureness"`` block
KEYS = ("no_card_back",)


@dataclass(frozen=True)
class Sureness:
    """The rule of the module docstring."""

    no_card_back: float

    @staticmethod
    def from_info(extra: dict[str, Any], json_path: Path) -> Sureness | None:
        """The JSON's ``"sureness"`` block (None when it has none); a bad key or value is a
        ModelError naming the file and key."""
        block = extra.get("sureness")
        if block is None:
            return None
        if not isinstance(block, dict):
            raise ModelError(f"{json_path}: sureness: expected an object with keys {', '.join(KEYS)}, got {block!r}")
        unknown = sorted(set(block) - set(KEYS))
        if unknown:
            raise ModelError(f"{json_path}: sureness: unknown key(s) {unknown}; known: {', '.join(KEYS)}")
        value = block.get("no_card_back")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 0.5:
            raise ModelError(f"{json_path}: sureness.no_card_back: expected a number between 0.0 and 0.5 (the "
                             f"probability of 'back' past which a read is no card), got {value!r}")
        return Sureness(float(value))

    def no_card(self, probs: F32, labels: Sequence[str]) -> BoolArray:
        """Which reads (rows of ``probs``) of a card are taken for no card; a read of ``back``
        never is."""
        back = labels.index(BACK)
        out: BoolArray = (probs.argmax(axis=1) != back) & (probs[:, back] > self.no_card_back)
        return out

    def apply(self, probs: F32, labels: Sequence[str]) -> F32:
        """``probs`` with each read taken for no card all on ``back``."""
        if BACK not in labels:
            return probs
        none = self.no_card(probs, labels)
        if not none.any():
            return probs
        out = probs.copy()
        out[none] = 0.0
        out[none, labels.index(BACK)] = 1.0
        return out
