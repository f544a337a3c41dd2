"""One-line captions of referee calls, for the annotated video of `referee watch` and
`referee demo` (pure: no OpenCV, so the demo can import it before the vision stack loads)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: calls a table must be able to read: their caption stays on for :data:`HOLD_S` seconds even
#: when the next call (the winner's turn to lead) comes in the same frame
HELD_CALLS = frozenset({"trick", "violation", "withdrawn", "declaration", "deal_end", "match_end"})
HOLD_S = 3.0


def call_text(call: Mapping[str, Any]) -> str:
    """The caption for a referee call ("" for calls without one, e.g. confirm or error)."""
    kind = call.get("call")
    if kind == "trick":
        return f"trick {call.get('number')}: {call.get('winner')} takes {call.get('points')}"
    if kind == "turn":
        return f"{call.get('seat')} to play"
    if kind == "violation":
        return f"VIOLATION {call.get('seat')}: {call.get('rule')}"
    if kind == "withdrawn":  # a violation the table heard no longer stands (false declaration, undo)
        return f"WITHDRAWN {call.get('seat')}: {call.get('rule')} (trick {call.get('trick')}, {call.get('reason')})"
    if kind == "declaration":  # belotta declaration, binocolo meld
        return declaration_text(call)
    if kind == "deal_end":
        points = call.get("points")
        if isinstance(points, Mapping):
            return "deal over: " + ", ".join(f"{k} {v}" for k, v in points.items())
        return f"deal over: {call.get('winner')}"
    if kind == "match_end":
        return f"match over: {call.get('winner')}"
    return ""


def declaration_text(call: Mapping[str, Any]) -> str:
    """A belotta declaration's or binocolo meld's caption: who, what, points, cards."""
    text = f"{call.get('seat')} declares {call.get('kind')} ({call.get('points')})"
    cards = " ".join(str(c) for c in call.get("cards") or ())
    return f"{text}: {cards}" if cards else text


class CaptionBoard:
    """The annotated video's caption line: the newest caption, after those still held.

    A held call's caption (:data:`HELD_CALLS`) stays on screen for ``hold_s`` seconds of frame
    time, so "trick 3: N takes 11" is not replaced in the same frame by "N to play"; both show,
    the held one first. Otherwise the newest caption stays until another replaces it.
    """

    def __init__(self, hold_s: float = HOLD_S) -> None:
        self.hold_s = hold_s
        self.latest = ""
        self._held: list[tuple[str, float]] = []  # (caption, frame time it may go off)

    def show(self, text: str, t: float, hold: bool = False) -> None:
        """Show ``text`` from frame time ``t``; ``hold``: keep it on for ``hold_s`` seconds."""
        self.latest = text
        if hold:
            self._held.append((text, t + self.hold_s))

    def add(self, call: Mapping[str, Any], t: float) -> None:
        """Show a referee call's caption (calls without one change nothing)."""
        text = call_text(call)
        if text:
            self.show(text, t, hold=call.get("call") in HELD_CALLS)

    def text(self, t: float) -> str:
        """The caption line at frame time ``t``."""
        self._held = [(x, until) for x, until in self._held if until > t]
        parts = [x for x, _ in self._held if x != self.latest]
        return "  |  ".join([*parts, self.latest] if self.latest else parts)
