"""The operator's answer to a :class:`~referee.table.question.Question`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import RefereeError


class AnswerError(RefereeError, ValueError):
    """A ``confirm`` event that is not an answer (names the key)."""


@dataclass(frozen=True)
class Answer:
    """Yes (``Answer()``: the card asked about), a named card (``Answer(card="coppe_2")``: it
    was that card), or no (``Answer(accept=False)``: no play; after a missed-play question the
    next play stands; after a correction or a premise the recorded play stays as it was).

    The ``confirm`` event of ``referee watch --events`` (:meth:`to_event`) says the same.
    """

    accept: bool = True
    card: str | None = None
    seat: str | None = None  # rarely needed: the seat that played, when not the one asked about

    @classmethod
    def yes(cls) -> Answer:
        return cls()

    @classmethod
    def no(cls) -> Answer:
        return cls(accept=False)

    @classmethod
    def named(cls, card: str) -> Answer:
        return cls(card=card)

    def to_event(self) -> dict[str, Any]:
        """``{"event": "confirm"}``, ``{"event": "confirm", "card": C}`` or ``..."accept": false``."""
        event: dict[str, Any] = {"event": "confirm"}
        if not self.accept:
            event["accept"] = False
        if self.card is not None:
            event["card"] = self.card
        if self.seat is not None:
            event["seat"] = self.seat
        return event

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> Answer:
        """The answer a ``confirm`` event gives; a bad key is an :class:`AnswerError` naming it."""
        accept, card, seat = event.get("accept", True), event.get("card"), event.get("seat")
        if not isinstance(accept, bool):
            raise AnswerError(f"confirm: key 'accept' must be true or false, got {accept!r}")
        if card is not None and not isinstance(card, str):
            raise AnswerError(f"confirm: key 'card' must be a card code, got {card!r}")
        if seat is not None and not isinstance(seat, str):
            raise AnswerError(f"confirm: key 'seat' must be a seat, got {seat!r}")
        return cls(accept, card, seat)
