"""Whether a still photo's read holds when its box moves (:func:`steady_reads`).

A card-sized box the finder built over *part* of a card (a window offset over a nine, half of it
and the paper beside it) can read surely as some other card: the read hangs on exactly where the
window lies. A card's own box, or a covered card's box built from its visible corner, reads the
same card when nudged, since the card is there whichever way the box moves. So each read is
taken again in boxes moved about it (:func:`moved_quads`: shifted by ``shift`` of its short and of
its long side each way, and scaled by ``1 -/+ shift`` about its centre), and a read that at most
``max_agree_drop`` of them give again is not kept.

Measured on pinochle's training half (committed models, 7 Dec 2026,
``docs/lab/2026-12-07-steady-reads.md``): of 244 right reads none had fewer than two of the six
moved reads agreeing, of 7 false reads 4 had at most one. The shift (15%) was fixed before that
measurement; the count was chosen on it and judged on the held-out half and the other real sets.

The rule is the model JSON's (``"still_steady"``, :class:`~referee.recognition.steady_rule.SteadyRule`).
Pure numpy and OpenCV geometry plus the caller's recogniser; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from referee.recognition.steady_rule import SteadyRule
from referee.vision.detections import BoolArray, Detections, FloatArray, Image
from referee.vision.finder.quad import rectify


def moved_quads(quad: FloatArray, shift: float) -> list[FloatArray]:
    """Six boxes about ``quad`` (4x2, portrait-ordered): shifted by ``shift`` of its first side
    each way, then of its second side each way, then scaled by ``1 - shift`` and ``1 + shift``
    about its centre."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    u, v = q[1] - q[0], q[3] - q[0]
    centre = q.mean(axis=0)
    out = [q + np.float32(sign * shift) * side for side in (u, v) for sign in (1.0, -1.0)]
    out += [centre + (q - centre) * np.float32(k) for k in (1.0 - shift, 1.0 + shift)]
    return [np.asarray(m, np.float32) for m in out]


def steady_reads(image: Image, found: Detections, classify: Callable[[Sequence[Image]], Sequence[object]],
                 crop_size: tuple[int, int], rule: SteadyRule) -> BoolArray:
    """Which of ``found`` (quads in ``image`` px) read as the same card in more than
    ``rule.max_agree_drop`` of their moved boxes. ``classify`` reads crops of ``crop_size`` (w, h)
    and returns objects with a ``card``; all moved boxes of the photo go in one call."""
    n = len(found)
    if not n:
        return np.zeros(0, bool)
    boxes = [m for q in found.quad for m in moved_quads(q, rule.shift)]
    reads = classify([rectify(image, m, crop_size) for m in boxes])
    per = len(boxes) // n
    cards = [str(getattr(r, "card", "")) for r in reads]
    agree = np.array([sum(c == str(found.card[i]) for c in cards[i * per:(i + 1) * per]) for i in range(n)])
    return np.asarray(agree > rule.max_agree_drop, bool)
