"""A play the camera proposes: the play tracker's output, the arbiter's input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import RefereeError


class ProposalError(RefereeError, ValueError):
    """A camera play event that is not a proposal (names the key)."""


@dataclass(frozen=True)
class ProposedPlay:
    """The camera saw ``seat`` lay ``card`` (a card lying still long enough, read consistently).

    ``confidence``: the tracker's share of the vote (``None``: an event log's play that gives
    none, taken as sure); ``uncertain``: the tracker itself doubts
    it (a weak vote, a card the rules make impossible, a second card from one seat), so the
    operator is asked.  ``alternatives``: the next guesses, offered by a question about it.
    ``track``: the tracker's id of the card, to tell the tracker what the operator named.
    ``correction``: the card a play already recorded for this seat was played as, and which
    now reads surely as ``card`` (yes replaces that play).

    >>> ProposedPlay("N", "coppe_3", 0.97, t=1.2).to_event()["card"]
    'coppe_3'
    """

    seat: str
    card: str
    confidence: float | None = None
    t: float = 0.0
    track: int | None = None
    alternatives: tuple[str, ...] = ()
    uncertain: bool = False
    correction: str | None = None

    def to_event(self) -> dict[str, Any]:
        """The JSON Lines form (``referee watch``, a box's camera log): a ``play`` event that
        ``referee replay`` reads (the rules core ignores the camera's extra keys)."""
        event: dict[str, Any] = {"event": "play", "seat": self.seat, "card": self.card}
        if self.confidence is not None:
            event["confidence"] = self.confidence
        event.update(t=self.t, track=self.track, alternatives=list(self.alternatives))
        if self.uncertain:
            event["uncertain"] = True
        if self.correction is not None:
            event["correction"] = self.correction
        return event

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> ProposedPlay:
        """A ``play`` event from a camera log or a test; a bad key is a :class:`ProposalError`
        naming it."""
        seat, card = event.get("seat"), event.get("card")
        if not isinstance(seat, str) or not isinstance(card, str):
            raise ProposalError(f"play: keys 'seat' and 'card' must be strings, got {seat!r}, {card!r}")
        confidence, t = event.get("confidence"), event.get("t", 0.0)
        if (confidence is not None and not isinstance(confidence, int | float)) or not isinstance(t, int | float):
            raise ProposalError(f"play: keys 'confidence' and 't' must be numbers, got {confidence!r}, {t!r}")
        track = event.get("track")
        alternatives = event.get("alternatives") or []
        correction = event.get("correction")
        if track is not None and not isinstance(track, int):
            raise ProposalError(f"play: key 'track' must be a whole number, got {track!r}")
        if not isinstance(alternatives, list | tuple) or not all(isinstance(c, str) for c in alternatives):
            raise ProposalError(f"play: key 'alternatives' must be a list of card codes, got {alternatives!r}")
        if correction is not None and not isinstance(correction, str):
            raise ProposalError(f"play: key 'correction' must be a card code, got {correction!r}")
        return cls(seat, card, float(confidence) if confidence is not None else None, float(t), track, tuple(alternatives),
                   event.get("uncertain") is True, correction)
