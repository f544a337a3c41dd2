"""``referee history``: the matches in the record, and any one exported as JSON Lines.

    referee history --config /etc/referee/config.toml          # list matches
    referee history --state-dir DIR --export 3 > match3.jsonl  # its events: `referee replay` input
    referee history --state-dir DIR --export 3 --calls         # the calls the box made
    referee history --state-dir DIR --export 3 --answers       # the operator's "no" answers
    referee history --state-dir DIR --export 3 --rejected      # source lines the reader refused
    referee history --state-dir DIR --export 3 --frames OUT    # the frames that decided its plays

``referee replay match3.jsonl`` prints exactly the calls of ``--calls`` (dispute review).

A damaged record still exports: every readable row is written, and each one that cannot be
read (not UTF-8, not JSON, a damaged page) is named on stderr; the exit status is then 2. A
reader that closes stdout early (``| head``) ends the export quietly (exit status 141).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from referee.box.config import DEFAULT_PATH, load_config
from referee.box.frames import FRAMES_DIR, play_frames, scan
from referee.box.state import MatchStore, StateError
from referee.cli.replay import reader_gone
from referee.errors import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, help=f"take state_dir from this config (default {DEFAULT_PATH})")
    where.add_argument("--state-dir", type=Path, help="the folder holding matches.sqlite")
    parser.add_argument("--export", type=int, metavar="MATCH", help="write this match as JSON Lines")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--calls", action="store_true", help="with --export: the calls, not the events")
    what.add_argument("--answers", action="store_true",
                      help="with --export: the operator's answers that are no event ('no, <seat> did not play')")
    what.add_argument("--rejected", action="store_true",
                      help="with --export: the source lines the strict reader rejected (line and why)")
    what.add_argument("--frames", type=Path, metavar="DIR",
                      help="with --export: copy the camera frames that decided its plays into DIR (JPEG, one"
                           " per play, named by deal, trick and event) and list them as JSON Lines")


def _state_dir(args: argparse.Namespace) -> Path:
    if args.state_dir is not None:
        return Path(args.state_dir)
    return load_config(args.config or DEFAULT_PATH).state_dir


def _when(t: float | None) -> str:
    return "-" if t is None else dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def _export_frames(events: list[dict[str, Any]], state_dir: Path, match: int, out: Path) -> list[dict[str, Any]]:
    """Copy ``match``'s kept frames into ``out``; one row per frame copied (what it shows and
    the file). A frame evicted meanwhile is simply not there."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StateError(f"{out}: cannot write the frames: {exc.strerror or exc}") from exc
    kept = [f for f in scan(state_dir / FRAMES_DIR) if f.match == match]
    rows = []
    for frame in play_frames(events, kept):
        name = f"match-{match}-deal-{frame.deal}-trick-{frame.trick}-event-{frame.event:05d}.jpg"
        try:
            shutil.copyfile(frame.frame.path, out / name)
        except OSError as exc:
            raise StateError(f"{frame.frame.path}: cannot copy to {out / name}: {exc.strerror or exc}") from exc
        rows.append({**frame.to_dict(), "file": str(out / name)})
    return rows


def run(args: argparse.Namespace) -> int:
    try:
        state_dir = _state_dir(args)
        if not (state_dir / "matches.sqlite").exists():
            print(f"referee history: no match record in {state_dir}", file=sys.stderr)
            return 1
        with MatchStore.open(state_dir, read_only=True) as store:
            if args.export is None:
                print(f"{'match':>5}  {'game':<18} {'started':<19}  {'ended':<19}  events  calls")
                for m in store.matches():
                    print(f"{m.id:>5}  {m.game:<18} {_when(m.started):<19}  {_when(m.ended):<19}  {m.events:>6}  {m.calls:>5}")
                return 0
            store.require_match(args.export)
            unreadable: list[str] = []
            if args.frames is not None:
                rows = _export_frames(store.events(args.export), state_dir, args.export, args.frames)
            elif args.rejected:
                rows = [{"line": pos, "detail": why} for pos, why in store.rejected_lines(args.export)]
            else:
                what = "answer" if args.answers else "call" if args.calls else "event"
                rows, unreadable = store.readable(args.export, what)
        for row in rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        for problem in unreadable:
            print(f"referee history: unreadable, left out: {problem}", file=sys.stderr)
        return 2 if unreadable else 0
    except BrokenPipeError:
        return reader_gone()
    except (ConfigError, StateError) as exc:
        print(f"referee history: {exc}", file=sys.stderr)
        return 2
