"""The model JSON's ``"still_steady"`` block: how far a single photo's boxes are moved to check
that a read holds, and how many of the moved reads must agree (applied by
:func:`referee.vision.steady_read.steady_reads`).

    "still_steady": {"shift": 0.15, "max_agree_drop": 1}

The numbers belong to the model: they were measured on its reads (pinochle's training half for
the French model, 7 Dec 2026, ``docs/lab/2026-12-07-steady-reads.md``). No block, no check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ModelError

#: the keys of a ``"still_steady"`` block
KEYS = ("shift", "max_agree_drop")
#: the moved boxes a read is checked in (:func:`referee.vision.steady_read.moved_quads`)
MOVES = 6


@dataclass(frozen=True)
class SteadyRule:
    """How far the boxes move and how many moved reads must agree."""

    #: each move, as a share of the box's side (the shift along each side, and the scale about its centre)
    shift: float = 0.15
    #: a read that at most this many of the :data:`MOVES` moved boxes give again is dropped
    max_agree_drop: int = 1

    @staticmethod
    def from_info(extra: Mapping[str, Any], json_path: Path) -> SteadyRule | None:
        """The JSON's block (None when it has none); a bad key or value is a ModelError naming
        the file and the key."""
        block = extra.get("still_steady")
        if block is None:
            return None
        if not isinstance(block, dict) or sorted(block) != sorted(KEYS):
            raise ModelError(f"{json_path}: still_steady: expected an object with exactly the keys "
                             f"{', '.join(KEYS)}, got {block!r}")
        shift, drop = block["shift"], block["max_agree_drop"]
        if isinstance(shift, bool) or not isinstance(shift, (int, float)) or not 0.0 < shift <= 0.5:
            raise ModelError(f"{json_path}: still_steady.shift: expected a number above 0 and at most 0.5, got {shift!r}")
        if isinstance(drop, bool) or not isinstance(drop, int) or not 0 <= drop < MOVES:
            raise ModelError(f"{json_path}: still_steady.max_agree_drop: expected a whole number 0..{MOVES - 1}, got {drop!r}")
        return SteadyRule(float(shift), drop)
