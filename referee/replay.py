"""Replaying a JSON Lines event log through the referee: each line one event, each call a dict.

Lines are read by the strict reader :mod:`referee.jsonl`, the same one ``referee run`` uses.  A
line that cannot be used (rejected by the reader, an unknown event or seat, an event out of
phase) gives ``{"call": "error", "line": N, "detail": "..."}``, is skipped, and processing goes
on with nothing already decided lost.  The command line is :mod:`referee.cli.replay`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO, Any

from referee.errors import RefereeError
from referee.jsonl import MAX_LINE_BYTES, parse_line, raw_lines
from referee.rules.calls import ErrorCall
from referee.rules.referee import Referee


def replay_lines(
    lines: Iterable[bytes | str],
    emit: Callable[[dict[str, Any]], None],
    referee: Referee | None = None,
) -> int:
    """Feed event lines to ``referee`` (a new one by default), ``emit`` every call dict.

    Returns the number of rejected lines."""
    ref = referee if referee is not None else Referee()
    rejected = 0
    for number, raw in enumerate(lines, start=1):
        rejected += replay_numbered(raw, number, emit, ref)
    return rejected


def replay_stream(stream: IO[bytes], emit: Callable[[dict[str, Any]], None]) -> int:
    """:func:`replay_lines` over a binary stream, never holding more than one line of
    :data:`~referee.jsonl.MAX_LINE_BYTES` in memory (a longer line is an error line)."""
    ref = Referee()
    rejected = 0
    for raw in raw_lines(stream):
        if raw.too_long:
            rejected += 1
            emit(ErrorCall(raw.number, f"line longer than {MAX_LINE_BYTES} bytes").to_dict())
            continue
        rejected += replay_numbered(raw.data, raw.number, emit, ref)
    return rejected


def replay_numbered(raw: bytes | str, number: int, emit: Callable[[dict[str, Any]], None], referee: Referee) -> int:
    """One line, numbered ``number`` in its file, through ``referee``: 1 if rejected, else 0."""
    try:
        event = parse_line(raw, number)
        if event is None:
            return 0
        calls = referee.apply(event)
    except RefereeError as exc:
        emit(ErrorCall(number, getattr(exc, "reason", str(exc))).to_dict())
        return 1
    for call in calls:
        emit(call.to_dict())
    return 0
