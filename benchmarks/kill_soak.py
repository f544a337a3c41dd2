"""SIGKILL soak of ``referee run``: kill it at random moments, restart it, and check the record.

Each round writes an ``events:`` log of several whole briscola-4 matches back to back and runs
``referee run --events LOG --no-hardware`` (no camera) on a fresh state directory. Every run is
SIGKILLed after a random delay (start-up, mid-deal, mid-write), or, for one kill in
``--after-end-share``, the moment the record shows a newly ended match (the window right after
``match_end``, where a restart used to referee the whole log again), then restarted, until a
run reads the log to its end; a final restart checks that a finished log is not refereed again.

At the end of each round the record is compared with the log and with ``referee replay``:
  events lost        log lines with no recorded event
  events duplicated  recorded events beyond one per log line
  replay equal       every recorded match holds exactly its part of the log and exactly the
                     calls ``referee replay`` gives for that part (what a dispute would check)

    nice .venv/bin/python benchmarks/kill_soak.py --kills 200
    nice .venv/bin/python benchmarks/kill_soak.py --kills 20 --matches 2 --pace 0.002 --keep /tmp/soak
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.box.state import MatchStore
from referee.paths import REPO_ROOT
from referee.replay import replay_lines
from referee.rules.playout import random_match_events

CONFIG = REPO_ROOT / "hardware" / "config.toml"


@dataclass
class Tally:
    kills: int = 0
    kills_after_end: int = 0
    restarts: int = 0
    rounds: int = 0
    log_events: int = 0
    lost: int = 0
    duplicated: int = 0
    rounds_equal: int = 0
    refereed_again: int = 0
    integrity_failures: int = 0
    exit_codes: Counter[int] = field(default_factory=Counter)


def run_cmd(log: Path, state: Path, pace: float) -> list[str]:
    return [sys.executable, "-m", "referee", "run", "--config", str(CONFIG), "--events", str(log),
            "--pace", str(pace), "--state-dir", str(state), "--no-hardware", "--log-level", "ERROR"]


def ended_matches(state: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{state / 'matches.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM matches WHERE ended IS NOT NULL").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def one_round(number: int, args: argparse.Namespace, root: Path, tally: Tally, rng: random.Random) -> None:
    matches = [random_match_events("briscola-4", seed=1000 * number + i) for i in range(args.matches)]
    events = [e for m in matches for e in m]
    log = root / f"round{number}.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    state = root / f"state{number}"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    while True:
        proc = subprocess.Popen(run_cmd(log, state, args.pace), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        tally.restarts += 1
        if tally.kills >= args.kills:
            break  # no more kills: let this run finish the log
        after_end = rng.random() < args.after_end_share
        deadline = time.monotonic() + (args.max_delay * 4 if after_end else rng.uniform(0, args.max_delay))
        ended = ended_matches(state)
        while proc.poll() is None and time.monotonic() < deadline:
            if after_end and ended_matches(state) > ended:
                break
            time.sleep(0.0005 if after_end else 0.002)
        if proc.poll() is not None:  # it read the log to its end before the kill
            tally.exit_codes[proc.returncode] += 1
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr.read().decode() if proc.stderr else "")
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        tally.kills += 1
        tally.kills_after_end += after_end and ended_matches(state) > ended
    if proc.poll() is None:
        proc.wait(timeout=600)
        tally.exit_codes[proc.returncode] += 1
    # a restart on a log read to its end must referee nothing again
    before = recorded_events(state)
    again = subprocess.run(run_cmd(log, state, 0.0), env=env, capture_output=True, timeout=600)
    tally.exit_codes[again.returncode] += 1
    tally.refereed_again += recorded_events(state) - before
    check(state, matches, tally)


def recorded_events(state: Path) -> int:
    with MatchStore.open(state, read_only=True) as store:
        return sum(m.events for m in store.matches())


def check(state: Path, matches: list[list[dict[str, Any]]], tally: Tally) -> None:
    tally.rounds += 1
    expected_lines = sum(len(m) for m in matches)
    tally.log_events += expected_lines
    with MatchStore.open(state, read_only=True) as store:
        tally.integrity_failures += not store.integrity_ok()
        per_line: Counter[int] = Counter()
        equal = True
        recorded = store.matches()
        for info in recorded:
            for record in store.records(info.id, "event"):
                per_line[record.source_pos or 0] += 1
        for i, part in enumerate(matches):
            if i >= len(recorded):
                equal = False
                continue
            calls: list[dict[str, Any]] = []
            replay_lines([json.dumps(e) for e in part], calls.append)
            equal &= store.events(recorded[i].id) == part and store.calls(recorded[i].id) == calls
        equal &= len(recorded) == len(matches)
    tally.lost += sum(1 for line in range(1, expected_lines + 1) if per_line[line] == 0)
    tally.duplicated += sum(n - 1 for n in per_line.values() if n > 1)
    tally.rounds_equal += equal


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200, help="SIGKILLs in all (default 200)")
    parser.add_argument("--matches", type=int, default=3, help="whole matches per round's log (default 3)")
    parser.add_argument("--pace", type=float, default=0.003, help="--pace of referee run (default 0.003 s)")
    parser.add_argument("--max-delay", type=float, default=2.0, help="longest wait before a random kill (s)")
    parser.add_argument("--after-end-share", type=float, default=0.25,
                        help="share of kills aimed right after a match_end (default 0.25)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="keep the logs and records in this folder")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tally = Tally()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        number = 0
        while tally.kills < args.kills:
            number += 1
            one_round(number, args, root, tally, rng)
            print(f"round {number}: {tally.kills} kills so far, {tally.lost} lost, {tally.duplicated} duplicated",
                  file=sys.stderr, flush=True)
    print(f"kills                 {tally.kills} ({tally.kills_after_end} right after a match_end)")
    print(f"restarts              {tally.restarts} (+{tally.rounds} on a finished log)")
    print(f"rounds                {tally.rounds} ({tally.log_events} log events, {args.matches} matches each)")
    print(f"events lost           {tally.lost}")
    print(f"events duplicated     {tally.duplicated}")
    print(f"refereed again        {tally.refereed_again} events after a finished log was restarted")
    print(f"replay equals record  {tally.rounds_equal}/{tally.rounds} rounds")
    print(f"integrity failures    {tally.integrity_failures}")
    print(f"exit codes (no kill)  {dict(tally.exit_codes)}")
    print(f"wall time             {time.monotonic() - started:.0f} s")
    ok = (tally.lost == tally.duplicated == tally.refereed_again == tally.integrity_failures == 0
          and tally.rounds_equal == tally.rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
