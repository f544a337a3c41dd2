"""``referee replay [FILE|-]``: JSON Lines events in, JSON Lines calls out.

Each input line is one event (see ``docs/design/rules-core.md``); each call is printed as one
JSON object per line.  Lines are read by the strict reader :mod:`referee.jsonl`, the same one
``referee run`` uses (a UTF-8 BOM at the start of the file is dropped; NaN, huge integers, lone
surrogates, control characters, deep nesting, over-long lines are rejected).  A line that
cannot be used (rejected by the reader, an unknown event or seat, an event out of phase) gives ``{"call": "error", "line": N, "detail": "..."}``, is skipped, and
processing goes on with nothing already decided lost; the exit status is then 2.
Blank lines are ignored.  A reader that closes stdout early (``| head``) ends the replay
quietly (exit status 141, as for a tool killed by SIGPIPE).

    referee replay game.jsonl
    cat game.jsonl | referee replay -

The work is :func:`referee.replay.replay_lines`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import IO, Any

from referee.replay import replay_lines

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


def _printer(out: IO[str]) -> Callable[[dict[str, Any]], None]:
    def emit(call: dict[str, Any]) -> None:
        out.write(json.dumps(call, ensure_ascii=False) + "\n")

    return emit


def reader_gone() -> int:
    """stdout's reader is gone (``| head``): the status of a tool killed by SIGPIPE."""
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
        return reader_gone()
    except OSError as exc:
        print(f"referee replay: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if rejected:
        print(f"referee replay: {rejected} line(s) of {name} rejected", file=sys.stderr)
        return EXIT_REJECTED
    return 0
