"""Boxes, broker and tournament service together, with a real Mosquitto running the shipped
configuration: the ACL keeps each box to its own table's topics, and delivery survives a broker
restart, a tournament service restart and a box killed mid-match: every record of the boxes
reaches the service's record once, nothing lost, no result applied twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from referee.box.config import TournamentConfig
from referee.box.publish import Publisher
from referee.box.state import DB_NAME, MatchStore
from referee.rules.playout import random_match_events
from referee.tournament import BoxResult, Entrant, Knockout, Register, Start
from referee.tournament.messages import Assignment
from referee.tournament_service.broker import BrokerLink
from referee.tournament_service.service import Service
from referee.tournament_service.store import TournamentStore
from tournament.boxes import TEAMS, append_events, box_config
from tournament.mosquitto import Mosquitto, mosquitto  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]


def wait_until(condition: Callable[[], bool], timeout: float = 20.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or condition}")


class Room:
    """The tournament service connected to the broker, restartable on the same record."""

    def __init__(self, folder: Path, broker: Mosquitto) -> None:
        self.folder, self.broker = folder, broker
        self.service: Service | None = None
        self.link: BrokerLink | None = None

    def start(self) -> Service:
        self.service = Service(TournamentStore.open(self.folder))
        if self.service.store.action_count() == 0:
            self.service.apply([Register(Entrant(f"p{i}", (f"A{i}", f"B{i}"))) for i in range(4)]
                               + [Start(Knockout(2), seed=1)])
        self.link = BrokerLink(self.service, self.broker.url, "tournament",
                               self.broker.password_file("tournament"))
        self.link.start()
        wait_until(self.link.connected.is_set, what="the service to connect")
        return self.service

    def stop(self) -> None:
        if self.link is not None and self.service is not None:
            self.link.stop()
            self.service.store.close()

    def taken(self, table: int, box_match: int) -> list[tuple[int, str, dict[str, object]]]:
        assert self.service is not None
        with self.service.lock:
            return list(self.service.store.records(table, box_match))


@pytest.fixture
def room(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[Room]:  # noqa: F811
    r = Room(tmp_path / "tournament", mosquitto)
    r.start()
    yield r
    r.stop()


def box_records(state: Path, match: int) -> list[tuple[int, str, dict[str, object]]]:
    with MatchStore.open(state, read_only=True) as store:
        return [(r.seq, r.kind, r.body) for r in store.records(match)]


def publisher(state: Path, broker: Mosquitto, table: int) -> Publisher:
    cfg = TournamentConfig(broker.url, table, f"table-{table}", broker.password_file(f"table-{table}"))
    return Publisher(cfg, state / DB_NAME, status_every_s=0.5)


def test_acl_keeps_a_box_to_its_own_table(mosquitto: Mosquitto) -> None:  # noqa: F811
    from paho.mqtt.client import Client, MQTTv311
    from paho.mqtt.enums import CallbackAPIVersion

    got: list[str] = []
    subscribed = threading.Event()

    def client(account: str) -> Client:
        c = Client(CallbackAPIVersion.VERSION2, client_id=account, protocol=MQTTv311)
        c.username_pw_set(account, mosquitto.password_file(account).read_text().strip())
        return c

    service = client("tournament")
    service.on_message = lambda c, u, msg: got.append(msg.topic)
    service.on_subscribe = lambda *a: subscribed.set()
    service.on_connect = lambda c, *a: c.subscribe([("referee/+/record", 1)])
    service.connect("127.0.0.1", mosquitto.port)
    service.loop_start()
    assert subscribed.wait(5)
    box = client("table-3")
    box.connect("127.0.0.1", mosquitto.port)
    box.loop_start()
    box.publish("referee/table-2/record", b"{}", qos=1).wait_for_publish(5)  # not its table
    box.publish("referee/table-3/record", b"{}", qos=1).wait_for_publish(5)
    wait_until(lambda: bool(got), 5)
    time.sleep(0.3)
    assert got == ["referee/table-3/record"]
    for c in (box, service):
        c.loop_stop()
        c.disconnect()
    # a box with a wrong password is refused
    impostor = Client(CallbackAPIVersion.VERSION2, client_id="x", protocol=MQTTv311)
    impostor.username_pw_set("table-1", "guess")
    refused: list[bool] = []
    impostor.on_connect = lambda c, u, f, reason, p: refused.append(reason.is_failure)
    impostor.connect("127.0.0.1", mosquitto.port)
    impostor.loop_start()
    wait_until(lambda: bool(refused), 5)
    impostor.loop_stop()
    assert refused == [True]


def test_delivery_across_broker_and_service_restarts(tmp_path: Path, room: Room) -> None:
    state = tmp_path / "box-1"
    events = random_match_events("briscola-4", 5)
    third = len(events) // 3
    with MatchStore.open(state) as store:
        match = store.begin_match("briscola-4", {"teams": TEAMS["briscola-4"]})
        referee = append_events(store, match, events[:third])
        pub = publisher(state, room.broker, 1)
        told: list[Assignment] = []
        pub.on_assignment = told.append
        pub.start()
        try:
            wait_until(lambda: len(room.taken(1, match)) == len(box_records(state, match)),
                       what="the first third")
            room.broker.stop()  # the broker goes away mid-match; the box keeps refereeing
            append_events(store, match, events[third:2 * third], referee)
            room.broker.start()
            wait_until(lambda: len(room.taken(1, match)) == len(box_records(state, match)),
                       what="the second third after the broker restart")
            room.stop()  # the service goes away; the broker keeps its session's messages
            append_events(store, match, events[2 * third:], referee)
            time.sleep(0.5)
            room.start()
            wait_until(lambda: len(room.taken(1, match)) == len(box_records(state, match)),
                       what="the rest after the service restart")
            wait_until(lambda: told[-1].match is None, what="the table to be told it is free")
        finally:
            pub.stop()
    assert room.taken(1, match) == box_records(state, match)  # nothing lost, each once, in order
    # the table was told what to play, then (its match over, the final waiting for the other
    # semi-final) that it has nothing to play now
    assert told[0].caption.startswith("Tavolo 1: ") and told[0].deck_owner is not None
    assert told[-1].match is None
    assert room.service is not None
    results = [a for a in room.service.store.actions() if isinstance(a, BoxResult)]
    assert [(r.table, r.box_match) for r in results] == [(1, match)]  # applied once


def test_box_killed_mid_match_resumes_publishing(tmp_path: Path, room: Room) -> None:
    log_file = tmp_path / "match.jsonl"
    log_file.write_text("".join(json.dumps(e) + "\n" for e in random_match_events("briscola-4", 9)))
    state = tmp_path / "box-2"
    config = box_config(tmp_path / "box.toml", state, room.broker.url, room.broker.password_file("table-2"), 2)
    argv = [sys.executable, "-m", "referee", "run", "--config", str(config), "--events",
            str(log_file), "--no-hardware", "--pace", "0.02", "--log-level", "WARNING"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    box = subprocess.Popen(argv, cwd=ROOT, env=env)
    try:
        wait_until(lambda: len(room.taken(2, 1)) >= 40, what="the box to publish 40 records")
        box.send_signal(signal.SIGKILL)  # a power cut: no goodbye, acks maybe not saved
        box.wait(10)
        box = subprocess.Popen(argv, cwd=ROOT, env=env)
        assert box.wait(60) == 0
    finally:
        if box.poll() is None:
            box.kill()
    wait_until(lambda: len(room.taken(2, 1)) == len(box_records(state, 1)), what="the rest")
    assert room.taken(2, 1) == box_records(state, 1)
    assert room.service is not None
    assert room.service.tournament.matches["R1-2"].result is not None
