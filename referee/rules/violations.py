"""Violation calls, each remembered in the deal it belongs to.

Every violation the table is told of is also kept in ``DealState.violations`` (seat, rule,
trick), so that after a rebuild (undo, a voided declaration) the engine can tell the table
which ones no longer stand and which stand again (:func:`referee.rules.undo.restated`).
"""

from __future__ import annotations

from typing import Any

from referee.rules.calls import Call, ViolationCall
from referee.rules.state import DealState


def violation(
    deal: DealState, seat: str, rule: str, detail: str, *, trick: int | None = None, **extra: Any
) -> ViolationCall:
    """Build a violation call and remember it in ``deal.violations``."""
    number = deal.trick_number if trick is None else trick
    deal.violations.append((seat, rule, number))
    return ViolationCall(seat=seat, rule=rule, trick=number, detail=detail, **extra)


def rejected(deal: DealState, seat: str, rule: str, detail: str, **extra: Any) -> list[Call]:
    """A play reported and NOT recorded (a misread): its violation, remembered as such."""
    call = violation(deal, seat, rule, detail, **extra)
    deal.rejected.append(deal.violations[-1])
    return [call]
