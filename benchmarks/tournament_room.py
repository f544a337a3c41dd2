"""A whole club tournament with faults: simulated boxes, a real Mosquitto, ``referee tournament``.

Each of ``--tables`` simulated boxes is a real box record (``MatchStore``) with the real
publisher (``referee.box.publish``); it waits for its table's assignment (the retained
``assign`` topic the service pushes), then referees a random legal match of the format's game
at ``--speed`` times a real pace of ``--real-s`` seconds per event, and waits for the next one.
The broker runs the shipped configuration (``hardware/mosquitto``), the service is the real
``referee tournament`` process. With ``--faults`` (default): the service is SIGKILLed twice
(and restarted, as systemd would), the broker is restarted, and one box is cut off the network
for ``--cut-s`` seconds (its connection goes through a proxy that drops it and refuses it).

Pairs' decks are registered with an enrolment file each, which the service sends to the table
where the deck plays; the boxes check and keep it (they have no recogniser to switch).

Printed: the end-to-end delay from a box's recorded event or call to the service's record of it
and to the room page (a WebSocket client of the page's live channel, as a browser showing the
page is: each push names the last record it reflects per table) (median, p95, max; all records
and those of boxes never cut), the broker's and the service's
CPU and peak memory, and the check against the boxes' own records: records lost, records
taken twice, results applied twice, and whether the bracket and the standings equal those
computed from the boxes' records alone.

    nice .venv/bin/python benchmarks/tournament_room.py                      # knockout, 32 tables
    nice .venv/bin/python benchmarks/tournament_room.py --format evening --game briscola-chiamata --rounds 2
    nice .venv/bin/python benchmarks/tournament_room.py --tables 4 --no-faults   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import logging
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

from referee.box.config import TournamentConfig
from referee.box.publish import Publisher
from referee.box.state import DB_NAME, MatchStore
from referee.paths import REPO_ROOT
from referee.rules import Referee
from referee.rules.playout import random_match_events
from referee.tournament import TABLE_SIDES, BoxResult, Tournament, TournamentError
from referee.tournament_service.auth import hash_password
from referee.tournament_service.config import load_service_config
from referee.tournament_service.store import TournamentStore

sys.path.insert(0, str(REPO_ROOT / "tests"))
from tournament.mosquitto import Mosquitto, free_port  # the tests' broker

TEAMS = {"briscola-4": [["N", "S"], ["W", "E"]], "belotta": [["N", "S"], ["W", "E"]]}


class CutProxy(threading.Thread):
    """A TCP proxy to the broker that can be cut: open connections dropped, new ones refused."""

    def __init__(self, target_port: int) -> None:
        super().__init__(daemon=True)
        self.target_port, self.port = target_port, free_port()
        self.cut = threading.Event()
        self.sockets: list[socket.socket] = []
        self.server = socket.create_server(("127.0.0.1", self.port))

    def run(self) -> None:
        while True:
            client, _ = self.server.accept()
            if self.cut.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def set_cut(self, cut: bool) -> None:
        if cut:
            self.cut.set()
            for s in self.sockets:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
            self.sockets = []
        else:
            self.cut.clear()


class RoomWatcher(threading.Thread):
    """The room page's live channel (``/ws``), as a browser showing the page gets it: when each
    table's records first appeared on the page. Reconnects while the service is down."""

    RECORDS = re.compile(r'data-records="([0-9: ]*)"')

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(name="room-page", daemon=True)
        self.url, self.stop = f"http://127.0.0.1:{port}/ws", stop
        #: table -> [(box match, seq)] in the order shown, and when each was shown first
        self.keys: dict[int, list[tuple[int, int]]] = {}
        self.times: dict[int, list[float]] = {}
        self.pushes = 0

    def run(self) -> None:
        asyncio.run(self._watch())

    async def _watch(self) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            while not self.stop.is_set():
                try:
                    async with session.ws_connect(self.url, heartbeat=5) as ws:
                        while not self.stop.is_set():
                            with contextlib.suppress(asyncio.TimeoutError):
                                msg = await ws.receive(timeout=0.5)
                                if msg.type != aiohttp.WSMsgType.TEXT:
                                    break
                                self._shown(msg.data, time.time())
                except (aiohttp.ClientError, OSError):
                    await asyncio.sleep(0.3)

    def _shown(self, html: str, now: float) -> None:
        self.pushes += 1
        m = self.RECORDS.search(html)
        for item in (m.group(1).split() if m else []):
            table, match, seq = (int(x) for x in item.split(":"))
            keys = self.keys.setdefault(table, [])
            if not keys or (match, seq) > keys[-1]:
                keys.append((match, seq))
                self.times.setdefault(table, []).append(now)

    def shown_at(self, table: int, match: int, seq: int, not_before: float) -> float | None:
        """When the page first showed ``(match, seq)`` of ``table`` or a later record of it,
        at or after ``not_before`` (the service's record of it)."""
        keys, times = self.keys.get(table, []), self.times.get(table, [])
        for i in range(bisect.bisect_left(keys, (match, seq)), len(keys)):
            if times[i] >= not_before:
                return times[i]
        return None


class SimBox(threading.Thread):
    """One table's box: its record, its publisher, the matches the service assigns it."""

    def __init__(self, table: int, root: Path, broker: Mosquitto, url: str, game: str,
                 event_s: float, stop: threading.Event) -> None:
        super().__init__(name=f"box-{table}", daemon=True)
        self.table, self.state, self.game, self.event_s, self.stop = table, root / f"box-{table}", game, event_s, stop
        self.assigned: queue.Queue[dict[str, Any]] = queue.Queue()
        account = f"table-{table}"
        with MatchStore.open(self.state):
            pass
        self.publisher = Publisher(TournamentConfig(url, table, account, broker.password_file(account)),
                                   self.state / DB_NAME, status_every_s=5.0)
        # the box begins a match when its publisher hears the assignment (as a table would,
        # seeing "Tavolo N: ..." on its display), so the match's records name it
        self.publisher.on_assignment = self._heard
        self.publisher.on_deck = self._deck
        self.matches = 0
        #: the deck file each assignment named (match -> sha256), and the files the box took
        self.deck_expected: dict[str, str] = {}
        self.decks_taken: set[str] = set()

    def _heard(self, a: Any) -> None:
        if a.match is not None and a.deck_sha256 is not None:
            self.deck_expected[a.match] = a.deck_sha256
        self.assigned.put({"match": a.match})

    def _deck(self, deck: Any) -> None:  # no recogniser here: taken as it is
        self.decks_taken.add(deck.sha256)
        self.publisher.report_deck(deck.sha256, None)

    def run(self) -> None:
        self.publisher.start()
        played: set[str] = set()
        with MatchStore.open(self.state) as store:
            while not self.stop.is_set():
                try:
                    assignment = self.assigned.get(timeout=0.2)
                except queue.Empty:
                    continue
                match = assignment.get("match")
                if match is None or match in played:
                    continue
                played.add(match)
                seed = zlib.crc32(f"{self.table}/{match}".encode())
                seats = ["N", "W", "S", "E"] if len(TABLE_SIDES[self.game]) != 5 else list("ABCDE")
                events = random_match_events(self.game, seed, seats)
                box_match = store.begin_match(self.game, {"game": self.game, "seats": seats,
                                                          "teams": TEAMS.get(self.game, [])})
                referee = Referee()
                for event in events:
                    if self.stop.wait(self.event_s):
                        return
                    calls = [c.to_dict() for c in referee.apply(event)]
                    store.append(box_match, event, calls,
                                 ends_match=any(c["call"] == "match_end" for c in calls))
                self.matches += 1

    def close(self) -> None:
        self.publisher.stop(timeout=10)


class ServiceProcess:
    """``referee tournament`` as the club runs it; SIGKILL and restart on demand."""

    def __init__(self, config: Path, log: Path) -> None:
        self.config, self.log = config, log
        self.process: subprocess.Popen[bytes] | None = None
        self.cpu_s, self.peak_rss_kb = 0.0, 0

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "referee", "tournament", "--config", str(self.config),
                 "--log-level", "WARNING"], cwd=REPO_ROOT, env=env, stdout=out, stderr=out)

    def sample(self) -> tuple[float, int]:
        return proc_usage(self.process.pid) if self.process else (0.0, 0)

    def kill(self) -> None:
        assert self.process is not None
        cpu, rss = self.sample()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.cpu_s += cpu
        self.peak_rss_kb = max(self.peak_rss_kb, rss)

    def stop(self) -> None:
        assert self.process is not None
        cpu, rss = self.sample()
        self.process.terminate()
        self.process.wait(20)
        self.cpu_s += cpu
        self.peak_rss_kb = max(self.peak_rss_kb, rss)


def proc_usage(pid: int) -> tuple[float, int]:
    """(CPU seconds, peak resident KB) of a running process, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        status = Path(f"/proc/{pid}/status").read_text()
        hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM"))
        return cpu, hwm
    except (OSError, StopIteration, IndexError):
        return 0.0, 0


def state_json(port: int) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/state.json", timeout=2) as r:
            data: dict[str, Any] = json.load(r)
            return data
    except OSError:
        return None


def deck_file(path: Path, seed: int) -> Path:
    """A pair's deck's enrolment file (random prototypes: the boxes here have no recogniser,
    the file's way to the table is what is measured)."""
    import numpy as np

    from referee.recognition.enrollment import Enrollment

    rng = np.random.default_rng(seed)
    codes = tuple(f"coppe_{r}" for r in range(1, 11))
    protos = rng.normal(size=(len(codes), 128)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    Enrollment("italian", codes, protos, "0" * 64, weight=0.7, scale=20.0).save(path)
    return path


def write_service_config(root: Path, broker: Mosquitto, args: argparse.Namespace, web_port: int) -> Path:
    (root / "organiser.hash").write_text(hash_password("benchmark-organiser") + "\n")
    per_table = len(TABLE_SIDES[args.game])
    pairs = args.game in ("briscola-4", "belotta")
    if args.format == "knockout":
        n = 2 * args.tables
        fmt = f'kind = "knockout"\ngame = "{args.game}"\ntables = {args.tables}\nseed = 7\n'
    else:
        n = per_table * args.tables
        fmt = f'kind = "evening"\ngame = "{args.game}"\nrounds = {args.rounds}\ntables = {args.tables}\nseed = 7\n'
    entrants = "".join(
        f'[[entrants]]\nid = "e{i}"\nmembers = {json.dumps([f"Rossi{i}", f"Bianchi{i}"] if pairs else [f"Verdi{i}"])}\n'
        + (f'enrollment = "{deck_file(root / "decks" / f"e{i}.npz", i)}"\n' if pairs else "")
        for i in range(n))
    config = root / "tournament.toml"
    config.write_text(
        f'state_dir = "{root / "service"}"\n'
        f'[broker]\nurl = "{broker.url}"\nusername = "tournament"\n'
        f'password_file = "{broker.password_file("tournament")}"\n'
        f'[web]\nhost = "127.0.0.1"\nport = {web_port}\norganiser_password_file = "organiser.hash"\n'
        f"[format]\n{fmt}{entrants}")
    return config


def check(root: Path, config: Path, boxes: list[SimBox], cut_table: int | None,
          windows: list[tuple[float, float]], room: RoomWatcher) -> None:
    """Compare the service's record with the boxes' own records. ``windows``: (from, to) wall
    times of the faults and their recovery, for the delay figures outside them."""
    service = TournamentStore.open(root / "service")
    delays, delays_clean, delays_calm = [], [], []
    page, page_clean, page_calm = [], [], []
    lost = total = unseen = 0
    ends: dict[tuple[int, int], BoxResult] = {}
    for box in boxes:
        with MatchStore.open(box.state, read_only=True) as store:
            for info in store.matches():
                taken = {seq: (kind, body) for seq, kind, body in service.records(box.table, info.id)}
                times = dict(service.conn.execute(
                    "SELECT seq, t FROM inbox WHERE table_no = ? AND box_match = ?", (box.table, info.id)))
                for r in store.records(info.id):
                    total += 1
                    if taken.get(r.seq) != (r.kind, r.body):
                        lost += 1
                        continue
                    delays.append(times[r.seq] - r.t)
                    shown = room.shown_at(box.table, info.id, r.seq, times[r.seq])
                    if shown is None:
                        unseen += 1
                    else:
                        page.append(shown - r.t)
                    if box.table != cut_table:
                        delays_clean.append(times[r.seq] - r.t)
                        if shown is not None:
                            page_clean.append(shown - r.t)
                        if not any(a <= r.t <= b for a, b in windows):
                            delays_calm.append(times[r.seq] - r.t)
                            if shown is not None:
                                page_calm.append(shown - r.t)
                    if r.kind == "call" and r.body.get("call") == "match_end":
                        ends[(box.table, info.id)] = BoxResult(
                            box.table, info.id, r.body.get("winner"), r.body["score"])
    actions = service.actions()
    box_results = [(a.table, a.box_match) for a in actions if isinstance(a, BoxResult)]
    twice = len(box_results) - len(set(box_results))
    extra = service.conn.execute("SELECT COUNT(*) FROM inbox").fetchone()[0] - (total - lost)
    got = Tournament.replay(actions)
    # the boxes' own match_end calls, in the order the service took them (which match a box
    # played depended on that order), then any the service never took
    expected = Tournament.replay(load_service_config(config).setup())
    order = [k for k in box_results if k in ends] + [k for k in ends if k not in set(box_results)]
    missing = len(ends) - len(set(box_results) & set(ends))
    for key in order:
        try:
            expected.apply(ends[key])
        except TournamentError as exc:
            print(f"  box result not applicable: {exc}")
    same_bracket = {m.id: (expected.entrants_of(m), m.result.winner if m.result else None)
                    for m in expected.matches.values()} == {
        m.id: (got.entrants_of(m), m.result.winner if m.result else None) for m in got.matches.values()}

    def ms(values: list[float], q: float) -> str:
        if not values:
            return "-"
        values = sorted(values)
        return f"{1000 * values[min(len(values) - 1, int(q * len(values)))]:.0f} ms"

    print(f"records: {total} recorded by the boxes, {lost} lost, {extra} taken beyond one each; "
          f"results applied twice: {twice}; box results the service lacks: {missing}")
    print(f"delay box record -> service record: median {ms(delays, 0.5)}, p95 {ms(delays, 0.95)}, "
          f"max {ms(delays, 1.0)} (all records)")
    print(f"  boxes never cut: median {ms(delays_clean, 0.5)}, p95 {ms(delays_clean, 0.95)}, "
          f"max {ms(delays_clean, 1.0)}")
    print(f"  and recorded outside the faults and their recovery ({len(delays_calm)} records): "
          f"median {ms(delays_calm, 0.5)}, p95 {ms(delays_calm, 0.95)}, max {ms(delays_calm, 1.0)}")
    print(f"delay box record -> room page (its WebSocket, {room.pushes} pushes): median {ms(page, 0.5)}, "
          f"p95 {ms(page, 0.95)}, max {ms(page, 1.0)} (all records; {unseen} never shown on the page)")
    print(f"  boxes never cut: median {ms(page_clean, 0.5)}, p95 {ms(page_clean, 0.95)}, "
          f"max {ms(page_clean, 1.0)}")
    print(f"  and recorded outside the faults and their recovery ({len(page_calm)} records): "
          f"median {ms(page_calm, 0.5)}, p95 {ms(page_calm, 0.95)}, max {ms(page_calm, 1.0)}")
    decks_named = sum(len(b.deck_expected) for b in boxes)
    decks_taken = sum(sha in b.decks_taken for b in boxes for sha in b.deck_expected.values())
    if decks_named:
        print(f"deck enrolment files: {decks_taken} of the {decks_named} assignments' decks reached their table "
              f"(size and sha256 checked, read by the enrolment reader)")
    print(f"bracket equal to the boxes' records: {same_bracket}; standings equal: "
          f"{expected.standings() == got.standings()}; finished: {got.finished}")
    service.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=32)
    parser.add_argument("--format", choices=("knockout", "evening"), default="knockout")
    parser.add_argument("--game", default="briscola-4")
    parser.add_argument("--rounds", type=int, default=2, help="evening rounds")
    parser.add_argument("--speed", type=float, default=10.0, help="times the real pace")
    parser.add_argument("--real-s", type=float, default=3.0, help="real seconds per event (a card laid)")
    parser.add_argument("--no-faults", dest="faults", action="store_false")
    parser.add_argument("--cut-s", type=float, default=30.0, help="seconds one box is cut off (5 min of real play at 10x)")
    parser.add_argument("--timeout-s", type=float, default=1200.0)
    parser.add_argument("--keep", type=Path, help="keep the records here")
    args = parser.parse_args()
    # every box's reconnect attempt would be a warning line: the figures below say what counts
    logging.getLogger("referee.publish").setLevel(logging.ERROR)
    root = args.keep or Path(tempfile.mkdtemp(prefix="tournament-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "broker").mkdir(exist_ok=True)
    broker = Mosquitto(root / "broker", args.tables)
    broker.start()
    web_port = free_port()
    config = write_service_config(root, broker, args, web_port)
    service = ServiceProcess(config, root / "service.log")
    service.start()
    stop = threading.Event()
    cut_table = min(5, args.tables) if args.faults else None
    proxy = CutProxy(broker.port) if cut_table else None
    if proxy:
        proxy.start()
    boxes = [SimBox(t, root, broker, f"mqtt://127.0.0.1:{proxy.port if proxy and t == cut_table else broker.port}",
                    args.game, args.real_s / args.speed, stop) for t in range(1, args.tables + 1)]
    for box in boxes:
        box.start()
    room = RoomWatcher(web_port, stop)
    room.start()
    t0 = time.monotonic()
    faults = [(20.0, "kill service"), (45.0, "restart broker"), (60.0, "cut box"),
              (60.0 + args.cut_s, "reconnect box"), (90.0, "kill service")] if args.faults else []
    broker_cpu, broker_rss = 0.0, 0
    service_samples: tuple[float, int] = (0.0, 0)
    finished = False
    windows: list[tuple[float, float]] = []  # wall time: a fault until its recovery
    down_since: float | None = None
    print(f"{args.tables} tables, {args.format} of {args.game}, {args.speed:g}x pace "
          f"({args.real_s / args.speed:.2f} s per event), faults: {[f for _, f in faults]}", flush=True)
    if args.faults:
        print(f"  table {cut_table} cut off for {args.cut_s:g} s of wall time = "
              f"{args.cut_s * args.speed / 60:.1f} min of real play at {args.speed:g}x "
              f"({args.cut_s * args.speed / args.real_s:.0f} events at {args.real_s:g} s each); "
              f"the service SIGKILLed twice, the broker restarted once", flush=True)
    while time.monotonic() - t0 < args.timeout_s:
        now = time.monotonic() - t0
        while faults and faults[0][0] <= now:
            _, fault = faults.pop(0)
            print(f"  {now:6.1f} s: {fault}", flush=True)
            if fault == "kill service":
                service.kill()
                down_since = time.time()
                time.sleep(1.0)
                service.start()
            elif fault == "restart broker":
                down_since = time.time()
                cpu, rss = proc_usage(broker.process.pid) if broker.process else (0.0, 0)
                broker_cpu, broker_rss = broker_cpu + cpu, max(broker_rss, rss)
                broker.stop()
                time.sleep(1.0)
                broker.start()
            elif fault == "cut box" and proxy:
                windows.append((time.time(), time.time()))  # the other boxes go on
                proxy.set_cut(True)
            elif fault == "reconnect box" and proxy:
                proxy.set_cut(False)
        service_samples = service.sample()
        state = state_json(web_port)
        if down_since is not None and state is not None:
            # back: the backlog it left is taken within a few seconds more
            print(f"  {time.monotonic() - t0:6.1f} s: the service answers again, "
                  f"{time.time() - down_since:.1f} s after the fault", flush=True)
            windows.append((down_since, time.time() + 10.0))
            down_since = None
        if state and state["finished"] and not faults:
            finished = True
            break
        time.sleep(1.0)
    wall = time.monotonic() - t0
    time.sleep(3.0)  # the last records' acknowledgements
    stop.set()
    room.join(5)
    for box in boxes:
        box.join(10)
        box.close()
    cpu, rss = proc_usage(broker.process.pid) if broker.process else (0.0, 0)
    broker_cpu, broker_rss = broker_cpu + cpu, max(broker_rss, rss)
    service.stop()
    broker.stop()
    print(f"finished: {finished} in {wall:.0f} s wall; {sum(b.matches for b in boxes)} box matches")
    print(f"broker CPU {broker_cpu:.1f} s ({100 * broker_cpu / wall:.1f}% of one core), peak RSS "
          f"{broker_rss / 1024:.1f} MB")
    print(f"service CPU {service.cpu_s:.1f} s over {1 + 2 * args.faults} runs ({100 * service.cpu_s / wall:.1f}% of one core), "
          f"peak RSS {max(service.peak_rss_kb, service_samples[1]) / 1024:.1f} MB")
    check(root, config, boxes, cut_table, windows, room)
    print(f"records kept in {root}")
    return 0 if finished else 1


if __name__ == "__main__":
    sys.exit(main())
