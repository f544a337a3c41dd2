"""How fast a recorded call reaches the phone console's live scoreboards.

    nice .venv/bin/python benchmarks/console_fanout.py [--pages 20] [--events 40] [--poll 0.05]

A box (rules core, SQLite record in a temporary folder, no hardware) with its console on a
free local port; its main loop turns as ``referee run``'s does when no frame comes (the feed's
poll waits ``--poll`` seconds, then the console is pumped). ``--pages`` WebSockets are open on
``/api/live``. One by one, the events of a Briscola in two deal are POSTed to ``/api/events``
with the PIN; for each, the time from sending the POST to each page receiving the table with
that event recorded. Prints the median, p95 and worst over all (event, page) pairs; the
target is 200 ms to 20 pages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp

from referee.box.app import Box
from referee.box.config import parse_config
from referee.box.display import NullDisplay
from referee.box.signals import NullSignals
from referee.box.state import MatchStore
from referee.web.console import Console
from referee.web.server import ConsoleServer

PIN = "4711"
DEAL = Path(__file__).resolve().parents[1] / "tests" / "data" / "rules" / "briscola" / "heads-up-tie-replay.events.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--poll", type=float, default=0.05, help="the main loop's idle wait (referee run: 0.05 s)")
    args = parser.parse_args()
    events = [json.loads(line) for line in DEAL.read_text().splitlines() if line.strip()][: args.events]
    ready, done = threading.Event(), threading.Event()
    holder: dict[str, Any] = {}

    def box_main(folder: Path) -> None:  # the box's main loop: the record lives in this thread
        cfg = replace(parse_config('[game]\nname = "briscola-2"\nseats = ["N", "S"]\n'), state_dir=folder)
        box = Box(cfg, MatchStore.open(folder), NullSignals(), NullDisplay())
        console = Console(box, PIN)
        server = ConsoleServer(console, "127.0.0.1", 0).start()
        holder["url"] = f"http://127.0.0.1:{server.port}"
        ready.set()
        while not done.is_set():
            time.sleep(args.poll)  # the feed's poll when no frame comes
            console.pump()
        server.stop()
        box.store.close()

    with tempfile.TemporaryDirectory() as tmp:
        thread = threading.Thread(target=box_main, args=(Path(tmp),), daemon=True)
        thread.start()
        ready.wait(30)
        try:
            delays = asyncio.run(_measure(holder["url"], events, args.pages))
        finally:
            done.set()
            thread.join(10)
    ms = sorted(d * 1000 for d in delays)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(f"console fan-out: {len(events)} events x {args.pages} pages = {len(ms)} deliveries, "
          f"main loop idle poll {args.poll * 1000:.0f} ms")
    print(f"  POST -> page: median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, worst {ms[-1]:.1f} ms "
          f"(target: 200 ms)")
    return 0 if p95 <= 200 else 1


async def _measure(url: str, events: list[dict[str, Any]], pages: int) -> list[float]:
    seen: list[dict[int, float]] = [{} for _ in range(pages)]  # per page: events recorded -> when

    async def page(i: int, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                seen[i].setdefault(json.loads(msg.data)["events"], time.perf_counter())

    async with aiohttp.ClientSession() as session:
        sockets = [await session.ws_connect(url + "/api/live") for _ in range(pages)]
        readers = [asyncio.create_task(page(i, ws)) for i, ws in enumerate(sockets)]
        await asyncio.sleep(0.5)
        delays: list[float] = []
        for n, event in enumerate(events, start=1):
            sent = time.perf_counter()
            async with session.post(url + "/api/events", json=event, headers={"X-Referee-Pin": PIN}) as r:
                if r.status != 200:
                    print(f"event {n} refused: {await r.text()}", file=sys.stderr)
                    return delays
            deadline = time.perf_counter() + 5
            while not all(n in s for s in seen) and time.perf_counter() < deadline:
                await asyncio.sleep(0.001)
            delays.extend(s.get(n, float("inf")) - sent for s in seen)
            await asyncio.sleep(0.03)  # the next card is never laid at once
        for ws in sockets:
            await ws.close()
        for task in readers:
            task.cancel()
    return delays


if __name__ == "__main__":
    sys.exit(main())
