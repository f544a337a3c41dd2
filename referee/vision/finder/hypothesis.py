"""One card proposal of the finder: a quad, its score, its group and how it was found."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.vision.detections import FloatArray


@dataclass(frozen=True)
class Hypothesis:
    quad: FloatArray  # (4, 2) work-scale corners, c0 + u*a, + v*b ...
    score: float
    group: int
    #: how it was found: "single"/"edge" (its own outline: measures the card size) or
    #: "partial"/"outline"/"corner" (built from the expected card size)
    kind: str = ""


def new_only(more: list[Hypothesis], found: list[Hypothesis], short: float, first_group: int) -> list[Hypothesis]:
    """Hypotheses of a second threshold that are not already proposed, regrouped after ``found``."""
    centres = [h.quad.mean(axis=0) for h in found]
    out: list[Hypothesis] = []
    groups: dict[int, int] = {}
    for h in more:
        c = h.quad.mean(axis=0)
        if any(float(np.hypot(*(c - o))) < 0.3 * short for o in centres):
            continue
        group = groups.setdefault(h.group, first_group + len(groups))
        out.append(Hypothesis(h.quad, h.score, group, h.kind))
    return out
