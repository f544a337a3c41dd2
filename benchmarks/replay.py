"""Replay speed of the rules core: plays per second on one core.

Generates a JSON Lines log of at least ``--deals`` random legal deals (whole matches, every
implemented game in turn), then replays it twice:
  core    Referee.apply on the already-parsed event dicts (the rules engine alone)
  replay  referee.replay.replay_lines on the JSON text (parse + referee + call serialisation)
and prints plays/s by CPU time of this process (robust on a shared machine) and by wall time.
Target (issue 2): >= 20,000 plays/s on one core.

    .venv/bin/python benchmarks/replay.py                 # 10,000 deals, all games
    .venv/bin/python benchmarks/replay.py --deals 2000 --games briscola-4 --log /tmp/log.jsonl
    .venv/bin/python benchmarks/replay.py --reuse /tmp/log.jsonl     # skip the generation
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from referee.replay import replay_lines
from referee.rules import Referee, available_games
from referee.rules.playout import random_match_events

TARGET = 20_000


def generate(games: list[str], deals: int, seed: int) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Whole random matches, next from the game with the fewest deals so far, until ``deals``
    deals are logged (matches differ in length: belotta plays to 151, briscola best of 3)."""
    events: list[dict[str, Any]] = []
    per_game: Counter[str] = Counter(dict.fromkeys(games, 0))
    n = 0
    while sum(per_game.values()) < deals:
        game = min(games, key=lambda g: per_game[g])
        match = random_match_events(game, seed + n)
        per_game[game] += sum(e["event"] == "deal" for e in match)
        events += match
        n += 1
    return events, per_game


def timed(fn: Any) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", nargs="*", default=None, help="default: every implemented game")
    parser.add_argument("--log", type=Path, help="write the generated log here")
    parser.add_argument("--reuse", type=Path, help="replay this log instead of generating one")
    args = parser.parse_args(argv)
    games = args.games or available_games()

    t0 = time.perf_counter()
    if args.reuse:
        lines = args.reuse.read_text().splitlines(keepends=True)
        events = [json.loads(line) for line in lines]
        per_game = Counter(e["game"] for e in events if e["event"] == "deal")
        games = sorted(per_game)
    else:
        events, per_game = generate(games, args.deals, args.seed)
        lines = [json.dumps(e) + "\n" for e in events]
    if args.log:
        args.log.write_text("".join(lines))
    plays = sum(e["event"] == "play" for e in events)
    print(f"games: {', '.join(f'{g} {per_game[g]} deals' for g in games)}")
    print(
        f"log: {sum(per_game.values())} deals, {len(events)} events, {plays} plays "
        f"(generated in {time.perf_counter() - t0:.1f} s)"
    )

    def core() -> None:
        ref = Referee()
        for event in events:
            ref.apply(event)

    calls: list[dict[str, Any]] = []

    def replay() -> None:
        rejected = replay_lines(lines, calls.append)
        if rejected:
            raise SystemExit(f"{rejected} lines rejected: the generated log is not legal")

    for name, fn in (("core", core), ("replay", replay)):
        wall, cpu = timed(fn)
        print(
            f"{name:6s}: {plays / cpu:10,.0f} plays/s CPU time ({cpu:.2f} s)   "
            f"{plays / wall:10,.0f} plays/s wall ({wall:.2f} s)"
        )
    violations = sum(c["call"] == "violation" for c in calls)
    ends = sum(c["call"] == "deal_end" for c in calls)
    print(f"calls: {len(calls)}, deal_end {ends}, violations {violations}")
    _, cpu = timed(replay)
    verdict = "meets" if plays / cpu >= TARGET else "MISSES"
    print(
        f"replay (2nd run): {plays / cpu:,.0f} plays/s CPU; {verdict} the {TARGET:,} plays/s target"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
