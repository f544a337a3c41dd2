"""The box's publisher: every recorded event and call goes to the club's MQTT broker, so the
tournament service sees the table live (``[tournament]`` in the config; without it nothing
here runs and the box works alone).

The match record IS the outbox. Records are read back from the box's SQLite file in the order
they were written (``rowid``) and published with QoS 1 under ``referee/table-N/record``; what
the broker acknowledged is kept per match in the ``published`` table of the same file, so a
box restarted after a crash, a power cut or a Wi-Fi drop publishes again from the first record
the broker did not acknowledge. Publishing twice is harmless: every message carries
``(table, match, seq)`` and the service takes each once. The service asks for a match again
from a sequence number (``resend``) when it sees a gap, e.g. after a broker restart lost
messages it had already acknowledged; the retained ``status`` (repeated every few seconds,
offline by the broker's last will) tells it the last sequence number of the recent matches.

>>> publisher = Publisher(cfg.tournament, cfg.state_dir / DB_NAME)  # doctest: +SKIP
>>> publisher.start(); ...; publisher.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from referee.box.config import TournamentConfig
from referee.box.deck_file import DeckFile, DeckFileError, DeckReceiver
from referee.errors import ConfigError
from referee.tournament.messages import (
    Assignment,
    DeckReport,
    MessageError,
    RecordMessage,
    ResendRequest,
    StatusMessage,
    topic,
)

log = logging.getLogger("referee.publish")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS published (
    match_id INTEGER PRIMARY KEY,
    acked_seq INTEGER NOT NULL  -- every record of the match up to here reached the broker
);
-- What the service told this table to play, and when the box heard it: a match the box began
-- after hearing "R1-3" is R1-3's (its records say so), one begun before is not.
CREATE TABLE IF NOT EXISTS assignments (
    received REAL NOT NULL,
    match TEXT NOT NULL  -- '' when the table had nothing to play
);
"""
#: recent matches whose last sequence number the status repeats
STATUS_MATCHES = 8
#: records published per poll at most (a long backlog goes out in slices)
BATCH = 200
#: unacknowledged messages at most before reading more of the record
MAX_IN_FLIGHT = 1000
#: how long the deck file heard may differ from the assignment's before that is reported
DECK_WAIT_S = 10.0


def broker_address(url: str) -> tuple[str, int, bool]:
    """``mqtt://host[:port]`` -> (host, port, TLS?); mqtts defaults to port 8883."""
    parts = urlsplit(url)
    tls = parts.scheme == "mqtts"
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ConfigError(f"broker {url!r}: expected mqtt://host[:port] or mqtts://host[:port]")
    return parts.hostname, parts.port or (8883 if tls else 1883), tls


class Outbox:
    """Reads the record in write order and keeps what the broker acknowledged, per match."""

    def __init__(self, db_path: Path) -> None:
        self.path = db_path
        self.conn = sqlite3.connect(db_path, timeout=10, isolation_level=None,
                                    check_same_thread=False)
        # an acknowledgement lost in a power cut only makes the box publish a record again
        # (harmless), so it does not need the record's own sync on every write
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(_SCHEMA)
        self.games: dict[int, str] = {}

    def close(self) -> None:
        self.conn.close()

    def acked(self) -> dict[int, int]:
        return {m: s for m, s in self.conn.execute("SELECT match_id, acked_seq FROM published")}

    def first_unacked_rowid(self) -> int:
        """Where publishing starts again: the first record the broker never acknowledged."""
        row = self.conn.execute(
            "SELECT MIN(r.rowid) FROM records r LEFT JOIN published p ON p.match_id = r.match_id"
            " WHERE r.seq > COALESCE(p.acked_seq, 0)"
        ).fetchone()
        if row[0] is not None:
            return int(row[0]) - 1
        last = self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM records").fetchone()
        return int(last[0])

    def after(self, rowid: int, limit: int = BATCH) -> list[tuple[int, int, int, str, str]]:
        """(rowid, match, seq, kind, body) of the records written after ``rowid``."""
        return list(self.conn.execute(
            "SELECT rowid, match_id, seq, kind, body FROM records WHERE rowid > ?"
            " ORDER BY rowid LIMIT ?", (rowid, limit)))

    def match_from(self, match: int, seq: int, limit: int = BATCH) -> list[tuple[int, str, str]]:
        return list(self.conn.execute(
            "SELECT seq, kind, body FROM records WHERE match_id = ? AND seq >= ?"
            " ORDER BY seq LIMIT ?", (match, seq, limit)))

    def assignments(self) -> list[tuple[float, str]]:
        return [(float(t), str(m)) for t, m in
                self.conn.execute("SELECT received, match FROM assignments ORDER BY received")]

    def save_assignment(self, received: float, match: str) -> None:
        with self.conn:
            self.conn.execute("INSERT INTO assignments (received, match) VALUES (?, ?)",
                              (received, match))

    def started(self, match: int) -> float | None:
        row = self.conn.execute("SELECT started FROM matches WHERE id = ?", (match,)).fetchone()
        return float(row[0]) if row else None

    def game(self, match: int) -> str:
        if match not in self.games:
            row = self.conn.execute("SELECT game FROM matches WHERE id = ?", (match,)).fetchone()
            self.games[match] = str(row[0]) if row else "?"
        return self.games[match]

    def last_seqs(self) -> dict[int, int]:
        rows = self.conn.execute(
            "SELECT match_id, MAX(seq) FROM records WHERE match_id >"
            " (SELECT COALESCE(MAX(id), 0) FROM matches) - ? GROUP BY match_id",
            (STATUS_MATCHES,))
        return {int(m): int(s) for m, s in rows}

    def save_acked(self, acked: dict[int, int]) -> None:
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(
                "INSERT INTO published (match_id, acked_seq) VALUES (?, ?) ON CONFLICT(match_id)"
                " DO UPDATE SET acked_seq = MAX(acked_seq, excluded.acked_seq)",
                list(acked.items()))


class _Acks:
    """Broker acknowledgements (paho's ``mid``) turned into a contiguous acked seq per match."""

    def __init__(self, acked: dict[int, int]) -> None:
        self.lock = threading.Lock()
        self.acked = dict(acked)
        self.beyond: dict[int, set[int]] = {}
        self.waiting: dict[int, tuple[int, int]] = {}  # mid -> (match, seq)
        self.early: set[int] = set()  # acks that came before publish() returned
        self.dirty = False

    def sent(self, mid: int, match: int, seq: int) -> None:
        with self.lock:
            if mid in self.early:
                self.early.discard(mid)
                self._ack(match, seq)
            else:
                self.waiting[mid] = (match, seq)

    def acknowledged(self, mid: int) -> None:
        with self.lock:
            where = self.waiting.pop(mid, None)
            if where is None:
                self.early.add(mid)
            else:
                self._ack(*where)

    def _ack(self, match: int, seq: int) -> None:
        done = self.beyond.setdefault(match, set())
        done.add(seq)
        top = self.acked.get(match, 0)
        while top + 1 in done:
            top += 1
            done.discard(top)
        if top != self.acked.get(match, 0):
            self.acked[match], self.dirty = top, True

    def take_changes(self) -> dict[int, int] | None:
        with self.lock:
            if not self.dirty:
                return None
            self.dirty = False
            return dict(self.acked)

    def in_flight(self) -> int:
        with self.lock:
            return len(self.waiting)


def _paho_client(client_id: str) -> Any:
    # only a box with [tournament] needs paho
    from paho.mqtt.client import Client, MQTTv311
    from paho.mqtt.enums import CallbackAPIVersion

    return Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                  protocol=MQTTv311)


class Publisher:
    """Publishes the record of the box at ``db_path`` for ``cfg.table`` (see module docstring).
    ``client_factory`` makes the paho client (tests inject their own)."""

    def __init__(
        self,
        cfg: TournamentConfig,
        db_path: Path,
        *,
        poll_s: float = 0.05,
        status_every_s: float = 5.0,
        client_factory: Callable[[str], Any] = _paho_client,
    ) -> None:
        self.cfg, self.poll_s, self.status_every_s = cfg, poll_s, status_every_s
        self.host, self.port, tls = broker_address(cfg.broker)
        self.outbox = Outbox(db_path)
        self.acks = _Acks(self.outbox.acked())
        self.cursor = self.outbox.first_unacked_rowid()
        self.resends: queue.Queue[ResendRequest] = queue.Queue()
        #: what the service last told this table to play (the display's caption, the names)
        self.assignment: Assignment | None = None
        self.heard = self.outbox.assignments()  # (when, match id) of every assignment heard
        self.heard_lock = threading.Lock()
        self.to_save: queue.Queue[tuple[float, str]] = queue.Queue()
        self.tags: dict[int, str | None] = {}
        self.on_assignment: Callable[[Assignment], None] | None = None
        #: the deck's enrolment file, checked and kept: the recogniser is to switch to it
        self.on_deck: Callable[[DeckFile], None] | None = None
        self.decks = DeckReceiver(db_path.parent / "decks")
        self.deck_lock = threading.Lock()  # the receiver: paho's thread and this loop's
        self.deck_wait_s = DECK_WAIT_S
        self.deck_report: DeckReport | None = None  # told in the status
        self.connected = threading.Event()
        self.status_due = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="publisher", daemon=True)
        self.client = client_factory(f"referee-{cfg.username}")
        password = None
        if cfg.password_file is not None:
            try:
                password = cfg.password_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"{cfg.password_file}: cannot read the broker password: "
                                  f"{exc.strerror or exc}") from exc
        self.client.username_pw_set(cfg.username, password)
        if tls:
            self.client.tls_set(ca_certs=str(cfg.ca_file) if cfg.ca_file else None)
        status = topic(cfg.table, "status")
        self.client.will_set(status, StatusMessage(cfg.table, False).to_bytes(), qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=15)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message

    def start(self) -> None:
        log.info("publishing table %d to %s:%d", self.cfg.table, self.host, self.port)
        self.client.connect_async(self.host, self.port, keepalive=15)
        self.client.loop_start()
        self.thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Flush what is in flight (up to ``timeout``), say offline, keep what was acked."""
        deadline = time.monotonic() + timeout
        self.stopping.set()
        self.thread.join(timeout)
        try:  # what was recorded since the last poll goes out before the goodbye
            while self.connected.is_set() and self._publish_new() and time.monotonic() < deadline:
                pass
        except sqlite3.Error as exc:
            log.warning("cannot read the record to publish it: %s", exc)
        while self.connected.is_set() and self.acks.in_flight() and time.monotonic() < deadline:
            time.sleep(0.02)
        self._save_acks()
        while not self.to_save.empty():
            self.outbox.save_assignment(*self.to_save.get_nowait())
        if self.connected.is_set():
            info = self.client.publish(topic(self.cfg.table, "status"),
                                       StatusMessage(self.cfg.table, False).to_bytes(),
                                       qos=1, retain=True)
            info.wait_for_publish(max(0.1, deadline - time.monotonic()))
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()

    # --- paho callbacks (its network thread) ---------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("broker refused table %d: %s", self.cfg.table, reason)
            return
        client.subscribe([(topic(self.cfg.table, leaf), 1) for leaf in ("resend", "assign", "deck")])
        self.status_due.set()  # the loop's thread reads the record, not paho's
        self.connected.set()
        log.info("connected to the broker")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        if self.stopping.is_set():
            return
        log.warning("lost the broker (%s); paho reconnects, the record keeps everything", reason)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        self.acks.acknowledged(mid)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            if msg.topic.endswith("/assign"):
                assignment = self.assignment = Assignment.parse(msg.payload)
                heard = (time.time(), self.assignment.match or "")
                with self.heard_lock:  # before anyone can begin a match for it
                    self.heard.append(heard)
                self.to_save.put(heard)
                log.info("assigned: %s", self.assignment.caption or "no match at this table now")
                if self.on_assignment is not None:
                    self.on_assignment(self.assignment)
                self._deck(lambda: self.decks.expect(assignment))
            elif msg.topic.endswith("/deck"):
                self._deck(lambda: self.decks.received(msg.payload))
            else:
                self.resends.put(ResendRequest.parse(msg.payload))
        except MessageError as exc:
            log.warning("ignored a message on %s: %s", msg.topic, exc)

    def _deck(self, step: Callable[[], DeckFile | None]) -> None:
        """One step of taking the deck's enrolment file; a file taken goes to ``on_deck``, a
        refused one is logged and reported (the recogniser keeps what it has)."""
        try:
            with self.deck_lock:
                deck = step()
        except DeckFileError as exc:
            log.error("%s; the box keeps the enrolment it has", exc)
            self.report_deck(exc.sha256, exc.reason)
            return
        if deck is not None:
            if self.on_deck is None:
                self.report_deck(deck.sha256, None)
            else:
                self.on_deck(deck)  # it reports whether the recogniser took it

    def _deck_overdue(self) -> DeckFile | None:
        late = self.decks.overdue(self.deck_wait_s)
        if late is not None:
            raise late
        return None

    def report_deck(self, sha256: str, error: str | None) -> None:
        """Tell the service (in the status, at once) whether the box recognises with the deck's
        enrolment file ``sha256`` now (``error`` None) or kept the one it had, and why."""
        self.deck_report = DeckReport(sha256, error)
        self.status_due.set()

    # --- the publishing loop (its own thread) ---------------------------------------------
    def _loop(self) -> None:
        next_status = time.monotonic() + self.status_every_s
        last_save = time.monotonic()
        while not self.stopping.is_set():
            busy = False
            try:
                if self.connected.is_set():
                    busy = self._resend() or self._publish_new()
                    if time.monotonic() >= next_status or self.status_due.is_set():
                        self.status_due.clear()
                        self._status()
                        next_status = time.monotonic() + self.status_every_s
                while not self.to_save.empty():
                    self.outbox.save_assignment(*self.to_save.get_nowait())
                self._deck(self._deck_overdue)
                if time.monotonic() - last_save >= 0.5:
                    self._save_acks()
                    last_save = time.monotonic()
            except sqlite3.Error as exc:  # the box's writer holds the file: try again shortly
                log.warning("cannot read the record to publish it: %s", exc)
            if not busy:
                self.stopping.wait(self.poll_s)

    def tag(self, match: int) -> str | None:
        """The assignment the table had heard last when the box began ``match``."""
        if match not in self.tags:
            started = self.outbox.started(match)
            with self.heard_lock:
                before = [m for t, m in self.heard if started is not None and t <= started]
            self.tags[match] = before[-1] if before else None
        return self.tags[match]

    def _publish(self, match: int, seq: int, kind: str, body: str) -> None:
        message = RecordMessage(self.cfg.table, match, seq, kind, self.outbox.game(match),
                                json.loads(body), self.tag(match))
        info = self.client.publish(topic(self.cfg.table, "record"), message.to_bytes(), qos=1)
        self.acks.sent(info.mid, match, seq)

    def _publish_new(self) -> bool:
        if self.acks.in_flight() >= MAX_IN_FLIGHT:
            return False
        rows = self.outbox.after(self.cursor)
        for rowid, match, seq, kind, body in rows:
            self._publish(match, seq, kind, body)
            self.cursor = rowid
        return len(rows) == BATCH

    def _resend(self) -> bool:
        try:
            request = self.resends.get_nowait()
        except queue.Empty:
            return False
        rows = self.outbox.match_from(request.match, request.from_seq)
        log.info("resending match %d from %d (%d records)", request.match, request.from_seq, len(rows))
        for seq, kind, body in rows:
            self._publish(request.match, seq, kind, body)
        if len(rows) == BATCH:  # the rest in the next slice
            self.resends.put(ResendRequest(request.match, rows[-1][0] + 1))
        return True

    def _status(self) -> None:
        status = StatusMessage(self.cfg.table, True, self.outbox_last(), self.deck_report)
        self.client.publish(topic(self.cfg.table, "status"), status.to_bytes(), qos=1, retain=True)

    def outbox_last(self) -> dict[int, int]:
        try:
            return self.outbox.last_seqs()
        except sqlite3.Error:
            return {}

    def _save_acks(self) -> None:
        changes = self.acks.take_changes()
        if changes:
            try:
                self.outbox.save_acked(changes)
            except sqlite3.Error as exc:  # kept in memory; saved on the next try
                log.warning("cannot save what the broker acknowledged: %s", exc)
                self.acks.dirty = True


def start_publisher(cfg: TournamentConfig | None, db_path: Path,
                    on_assignment: Callable[[Assignment], None] | None = None,
                    on_deck: Callable[[DeckFile], None] | None = None) -> Publisher | None:
    """The publisher of a box configured for a tournament, started, handing each assignment
    it hears to ``on_assignment`` and each deck's enrolment file it took to ``on_deck`` (on
    its network thread); ``None`` without one, or when its password cannot be read (logged:
    the box referees and records all the same)."""
    if cfg is None:
        return None
    try:
        publisher = Publisher(cfg, db_path)
    except ConfigError as exc:  # the table still referees; its record is published once fixed
        log.error("not publishing to the tournament: %s", exc)
        return None
    publisher.on_assignment, publisher.on_deck = on_assignment, on_deck
    publisher.start()
    return publisher
