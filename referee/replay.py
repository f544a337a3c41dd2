"""``referee replay [FILE|-]``: JSON Lines events in, JSON Lines calls out.

Each input line is one event (see ``docs/design/rules-core.md``); each call is printed as one
JSON object per line.  A line that cannot be used (malformed JSON, unknown event or seat, an
event out of phase) gives ``{"call": "error", "line": N, "detail": "..."}``, is skipped, and
processing goes on with nothing already decided lost; the exit status is then 2.
Blank lines are ignored.  A reader that closes stdout early (``| head``) ends the replay
quietly (exit status 141, as for a tool killed by SIGPIPE).

    referee replay game.jsonl
    cat game.jsonl | referee replay -
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any

from referee.errors import RefereeError
from referee.rules.calls import ErrorCall
from referee.rules.referee import Referee

EXIT_REJECTED = 2
#: stdout was closed by its reader (``referee replay FILE | head``): stop quietly, with the
#: status of a tool killed by SIGPIPE
EXIT_BROKEN_PIPE = 128 + 13


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE|-",
        help="JSON Lines event log (default '-': standard input)",
    )


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
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            if number == 1:  # a byte-order mark, as some editors write, is not part of the event
                text = text.removeprefix("\ufeff")
            text = text.strip()
            if not text:
                continue
            event = json.loads(text, parse_constant=_no_constant)
            calls = ref.apply(event)
        except (UnicodeDecodeError, json.JSONDecodeError, _NotJson) as exc:
            rejected += 1
            emit(ErrorCall(number, f"malformed JSON: {exc}").to_dict())
            continue
        except RecursionError:  # json's decoder recurses once per level of nesting
            rejected += 1
            emit(ErrorCall(number, "malformed JSON: nested too deeply").to_dict())
            continue
        except RefereeError as exc:
            rejected += 1
            emit(ErrorCall(number, str(exc)).to_dict())
            continue
        for call in calls:
            emit(call.to_dict())
    return rejected


class _NotJson(ValueError):
    """A value Python's JSON decoder accepts but JSON does not have."""


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON (Python's decoder accepts them): reject the line."""
    raise _NotJson(f"{name} is not valid JSON")


def _printer(out: IO[str]) -> Callable[[dict[str, Any]], None]:
    def emit(call: dict[str, Any]) -> None:
        out.write(json.dumps(call, ensure_ascii=False) + "\n")

    return emit


def _reader_gone() -> int:
    # Point stdout at /dev/null so the interpreter's final flush does not raise again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def run(args: argparse.Namespace) -> int:
    name: str = args.file
    emit = _printer(sys.stdout)
    try:
        if name == "-":
            rejected = replay_lines(sys.stdin.buffer, emit)
        else:
            with open(name, "rb") as f:
                rejected = replay_lines(f, emit)
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone()
    except OSError as exc:
        print(f"referee replay: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if rejected:
        print(f"referee replay: {rejected} line(s) of {name} rejected", file=sys.stderr)
        return EXIT_REJECTED
    return 0
