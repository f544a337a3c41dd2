"""Read the enrolled deck back: every card of the layout read again with the new enrollment,
and the ones the box would still confuse named with their top-2 pair and margin.

Enrolling only tells the club which cards it photographed; what it needs to know is which of
its cards the box will still hesitate over at the table. So after enrolling, each card is
read as the live loop reads it: from another frame than the one its prototype was made of
where there is one, as cut, and on :data:`COPIES` jittered copies (corners moved, light
changed, blur, a band covered: :func:`referee.recognition.enroll_fit.jitter`, seeded), and
its worst read is kept. A card is *confused* when a read names another card, or is less sure
than ``sure`` (the box's ``thresholds.confidence``: below it the table is asked to confirm).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from referee.recognition.classifier import CardClassifier
from referee.recognition.enroll_fit import jitter, no_tick

U8 = npt.NDArray[np.uint8]

#: jittered copies read per card besides the crop itself
COPIES = 2
#: the box's default ``thresholds.confidence``: a read below it is asked about at the table
SURE = 0.80
BATCH = 32


@dataclass(frozen=True)
class Confusion:
    """A card the box would still confuse: at ``position`` (grid row and column, or photo),
    ``code`` read at worst as ``first`` (p ``p_first``) against ``second`` (p ``p_second``);
    the pair is ``code`` and the other card when ``first`` is ``code`` itself."""

    position: str
    code: str
    first: str
    p_first: float
    second: str
    p_second: float
    #: the card's place in the order laid out (0-based)
    index: int = -1

    @property
    def margin(self) -> float:
        """How far the true card's probability lies above the best other card's (negative:
        another card wins)."""
        p_true = self.p_first if self.first == self.code else self.p_second if self.second == self.code else 0.0
        p_other = self.p_second if self.first == self.code else self.p_first
        return p_true - p_other

    @property
    def other(self) -> str:
        """The card it is confused with."""
        return self.second if self.first == self.code else self.first

    def describe(self) -> str:
        wrong = "" if self.first == self.code else f", read as {self.first}"
        return (f"{self.position}: {self.code} / {self.other} margin {self.margin:+.2f} "
                f"({self.first} {self.p_first:.2f}, {self.second} {self.p_second:.2f}{wrong})")


@dataclass(frozen=True)
class ReadBack:
    """The read-back of an enrolled layout: ``cards`` read, ``right`` of them read as
    themselves every time, ``confused`` those the box would still confuse, and ``seconds``
    the whole enrolment took (capture, enrol, read-back)."""

    cards: int
    right: int
    confused: tuple[Confusion, ...]
    seconds: float = 0.0

    def with_seconds(self, seconds: float) -> ReadBack:
        return ReadBack(self.cards, self.right, self.confused, float(seconds))

    def lines(self) -> list[str]:
        """The report, one line each: the summary, then each confused card."""
        head = (f"read back {self.cards} cards: {self.right} right every time, {len(self.confused)} "
                f"the box would still confuse; {self.seconds:.1f} s in all")
        return [head, *(f"  confused: {c.describe()}" for c in self.confused)]


def read_back(clf: CardClassifier, crops: Sequence[U8], codes: Sequence[str], positions: Sequence[str],
              sure: float = SURE, seed: int = 0, tick: Callable[[], None] = no_tick) -> ReadBack:
    """Read ``crops`` (labelled ``codes``, found at ``positions``) with ``clf`` (the enrolled
    classifier) and on :data:`COPIES` jittered copies of each; see the module docstring.
    ``tick`` is called after every batch read (the box pings its watchdog)."""
    if not len(crops) == len(codes) == len(positions):
        raise ValueError("read_back: crops, codes and positions must be as many")
    rng = np.random.default_rng(seed)
    reads = [crop for crop in crops for _ in range(1 + COPIES)]
    reads = [r if k % (1 + COPIES) == 0 else jitter(r, rng) for k, r in enumerate(reads)]
    batches = []
    for i in range(0, len(reads), BATCH):
        batches.append(clf.probabilities(reads[i:i + BATCH]))
        tick()
    probs = np.concatenate(batches)
    probs = probs.reshape(len(crops), 1 + COPIES, -1)
    labels = list(clf.labels)
    confused: list[Confusion] = []
    right = 0
    for index, (code, position, card_probs) in enumerate(zip(codes, positions, probs, strict=True)):
        truth = labels.index(code)
        others = card_probs.copy()
        others[:, truth] = -1.0
        # the worst read: the one where the true card's lead over the best other is smallest
        margins = card_probs[:, truth] - others.max(axis=1)
        worst = card_probs[int(margins.argmin())]
        order = np.argsort(-worst)
        first, second = int(order[0]), int(order[1])
        wrong = bool((card_probs.argmax(axis=1) != truth).any())
        right += not wrong
        if wrong or float(card_probs[:, truth].min()) < sure:
            confused.append(Confusion(position, code, labels[first], float(worst[first]), labels[second],
                                      float(worst[second]), index))
    return ReadBack(len(crops), right, tuple(sorted(confused, key=lambda c: c.margin)))
