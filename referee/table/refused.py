"""An event the table did not take, as a value: the rules core's reason (or the table's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Refused:
    """``detail`` says why, naming the key or the card (the rules core's
    :class:`~referee.errors.RefereeError` text); nothing was recorded.  ``t``: the frame time
    it came at, when the table runs on a camera's clock."""

    detail: str
    t: float | None = None

    def to_call(self) -> dict[str, Any]:
        """The ``{"call": "error", "detail"}`` line of ``referee watch`` (and a console's reply)."""
        call: dict[str, Any] = {"call": "error", "detail": self.detail}
        if self.t is not None:
            call["t"] = round(self.t, 2)
        return call
