"""One-line captions of referee calls, for the annotated video of `referee watch` and
`referee demo` (pure: no OpenCV, so the demo can import it before the vision stack loads)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
