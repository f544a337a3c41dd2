"""A question the referee asks the table about a camera play, before anything is recorded."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any


class QuestionKind(Enum):
    """Why the referee asks (what a "yes", a named card and a "no" then mean)."""

    #: "is it this card?": a read the camera is unsure of (yes: played; a card: that card; no: no play)
    UNSURE = "unsure"
    #: "really this card? it breaks ``violation``": a sure read the rules would call a violation
    VIOLATION = "violation"
    #: "did ``seat`` play?": the camera may have missed the card of the seat on turn
    #: (``card`` is its guess, or None; no: that seat did not play, the next play stands)
    MISSED = "missed"
    #: "was it ``card``, not ``correction``?": a card played as ``correction``, still in the
    #: trick, now reads surely as ``card`` (yes: the play is replaced; no: it stays)
    CORRECTION = "correction"
    #: "was that earlier card really ``correction``?": a violation about to be called rests on
    #: the deal's ``index``-th play, which nobody confirmed (a card: it is replaced; no: it stands)
    PREMISE = "premise"


@dataclass(frozen=True)
class Question:
    """One question to the operator; ``id`` tells an answer to it from a late answer to an
    earlier one (two phones, a button pressed twice).

    The ``confirm`` call of ``referee watch`` (:meth:`to_call`) carries the same fields.
    """

    id: int
    kind: QuestionKind
    seat: str
    card: str | None  # the camera's card or guess (None: a missed play it has no guess for)
    confidence: float | None = None
    alternatives: tuple[str, ...] = ()
    t: float = 0.0
    correction: str | None = None  # the card recorded (CORRECTION, PREMISE)
    violation: str | None = None  # the rule it would break (VIOLATION, PREMISE)
    index: int | None = None  # PREMISE: which play of the deal (0 = its first card)

    @property
    def offered(self) -> tuple[str, ...]:
        """The cards to offer, in order: the camera's card, then its alternatives."""
        first = (self.card,) if self.card is not None else ()
        return tuple(dict.fromkeys((*first, *self.alternatives)))

    def to_call(self) -> dict[str, Any]:
        """The ``{"call": "confirm", ...}`` JSON object (``referee watch``, the box's screens)."""
        call: dict[str, Any] = {"call": "confirm", "seat": self.seat, "card": self.card,
                                "confidence": self.confidence, "alternatives": list(self.alternatives),
                                "t": self.t}
        if self.kind is QuestionKind.MISSED:
            call["missed"] = True
        if self.correction is not None:
            call["correction"] = self.correction
        if self.violation is not None:
            call["violation"] = self.violation
        if self.kind is QuestionKind.PREMISE:
            call["premise"] = True
            call["index"] = self.index
        return call

    @classmethod
    def from_call(cls, call: Mapping[str, Any], id: int = 0) -> Question:
        """The question a ``confirm`` call asks (the arbiter's own output)."""
        if call.get("premise"):
            kind = QuestionKind.PREMISE
        elif call.get("missed"):
            kind = QuestionKind.MISSED
        elif call.get("correction") is not None:
            kind = QuestionKind.CORRECTION
        elif call.get("violation"):
            kind = QuestionKind.VIOLATION
        else:
            kind = QuestionKind.UNSURE
        card, confidence, index = call.get("card"), call.get("confidence"), call.get("index")
        return cls(
            id, kind, str(call["seat"]), str(card) if card is not None else None,
            float(confidence) if isinstance(confidence, int | float) else None,
            tuple(str(c) for c in call.get("alternatives") or ()), float(call.get("t", 0.0)),
            str(call["correction"]) if call.get("correction") is not None else None,
            str(call["violation"]) if call.get("violation") else None,
            int(index) if isinstance(index, int) else None,
        )
