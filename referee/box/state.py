"""Crash-safe match record: every event and the calls it produced, appended to SQLite (WAL).

One transaction per event holds the event *and* its calls, so after ``kill -9`` or a power cut
the file holds whole steps only: either the event and all its calls, or neither (the source
delivers that event again). ``synchronous=FULL`` makes a committed step survive a power cut.
Resuming is replaying the recorded events into a fresh Referee (the rules core is cheap).

One writer per record: ``referee run`` holds :class:`~referee.box.record_lock.RecordLock` for
its life, and :meth:`MatchStore.append` takes its sequence number inside the transaction that
inserts (``BEGIN IMMEDIATE``), so even two writers could not interleave one match's steps.

The source's position is part of the record (table ``sources``): a source that can be read
again (an event log, a video, a simulation) is named by what it is (:mod:`referee.box.source`),
and every step it fed moves its position in the same transaction, across the end of a match
too, so a restart neither referees a line twice nor starts the same log again as a new match.
A line the strict reader rejected is kept in ``rejected`` with its position, so a restart
skips it instead of dying on it again.

>>> store = MatchStore.open(Path("/var/lib/referee"))  # doctest: +SKIP
>>> match = store.current_match() or store.begin_match("briscola-4", {"seats": ["N", "S"]})
>>> store.append(match, {"event": "play", "seat": "N", "card": "coppe_3"}, calls, source_pos=12)
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import RefereeError

DB_NAME = "matches.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    ended REAL
);
CREATE TABLE IF NOT EXISTS records (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'call')),
    body TEXT NOT NULL,
    source_pos INTEGER,
    PRIMARY KEY (match_id, seq)
);
-- Operator answers that change no referee state, so no event records them: "no, <seat> did
-- not play" to a missed-card question. Kept apart from the events (which the rules core
-- replays and `referee history --export` hands to `referee replay`); after_seq orders an
-- answer among its match's records.
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    after_seq INTEGER NOT NULL,
    t REAL NOT NULL,
    body TEXT NOT NULL
);
-- Where each re-readable source has been read to (the last position a recorded step or a
-- rejected line came from), whichever match it fed; finished: when it was read to its end.
CREATE TABLE IF NOT EXISTS sources (
    key TEXT PRIMARY KEY,
    pos INTEGER NOT NULL,
    match_id INTEGER,
    t REAL NOT NULL,
    finished REAL
);
-- Source lines the strict reader rejected (not JSON, NaN, ...): no event, so no step.
CREATE TABLE IF NOT EXISTS rejected (
    id INTEGER PRIMARY KEY,
    match_id INTEGER,
    source TEXT,
    source_pos INTEGER,
    t REAL NOT NULL,
    detail TEXT NOT NULL
);
"""
#: columns added to ``matches`` after the first release: the source that fed the match, and
#: when an operator's ``--new-match`` set it aside unfinished
_MATCH_COLUMNS = {"source": "TEXT", "abandoned": "REAL"}


class StateError(RefereeError, OSError):
    """The state directory cannot be written (full disk, read-only, corrupt); names the file."""


@dataclass(frozen=True)
class MatchInfo:
    id: int
    started: float
    game: str
    ended: float | None
    events: int
    calls: int


@dataclass(frozen=True)
class Record:
    seq: int
    t: float
    kind: str  # "event" | "call"
    body: dict[str, Any]
    source_pos: int | None


class MatchStore:
    """The SQLite match record in the state directory (see module docstring)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path = conn, path
        #: the source now feeding the record (:meth:`follow_source`); ``None``: untracked
        self.source: str | None = None
        self.positional = False

    @classmethod
    def open(cls, state_dir: Path, *, read_only: bool = False, max_pages: int | None = None) -> MatchStore:
        """Open (creating) the record. ``max_pages`` caps the file size (tests: a full disk)."""
        path = state_dir / DB_NAME
        try:
            if read_only:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
            else:
                state_dir.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(path, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.executescript(_SCHEMA)
                _add_columns(conn)
            if max_pages is not None:
                conn.execute(f"PRAGMA max_page_count={int(max_pages)}")
        except (OSError, sqlite3.Error) as exc:
            raise StateError(f"{path}: cannot open the match record: {exc}") from exc
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``: what is read inside it
        cannot change before the commit); any failure rolls all of it back."""
        cur = self.conn.cursor()
        try:
            cur.execute("BEGIN IMMEDIATE")
            yield cur
            cur.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise StateError(f"{self.path}: cannot write the match record ({_why(exc)}): {exc}") from exc
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    def _write(self, sql_steps: Sequence[tuple[str, Sequence[Any]]]) -> sqlite3.Cursor:
        """Run the statements in one transaction; any failure rolls all of them back."""
        with self._transaction() as cur:
            for sql, params in sql_steps:
                cur.execute(sql, params)
        return cur

    def begin_match(self, game: str, config: Mapping[str, Any]) -> int:
        """Start a new match record; the config is kept so an export is self-describing, and
        the source feeding it (:meth:`follow_source`), so another cannot resume it unasked."""
        cur = self._write(
            [("INSERT INTO matches (started, game, config, source) VALUES (?, ?, ?, ?)",
              (time.time(), game, json.dumps(config, sort_keys=True), self.source))]
        )
        return int(cur.lastrowid or 0)

    # -- sources -----------------------------------------------------------------------
    def follow_source(self, key: str, *, positional: bool) -> None:
        """``key`` (:func:`referee.box.source.source_key`) feeds the record from now on; a
        ``positional`` one (read again after a restart) has its position kept with each step."""
        self.source = key
        self.positional = positional

    def source_position(self, key: str) -> int | None:
        """Where ``key`` was read to (``None``: never read, or set back to its start)."""
        row = self._read("SELECT pos FROM sources WHERE key = ?", (key,)).fetchone()
        return None if row is None else int(row[0])

    def source_finished(self, key: str) -> float | None:
        """When ``key`` was read to its end (``None``: not yet)."""
        row = self._read("SELECT finished FROM sources WHERE key = ?", (key,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def finish_source(self, key: str) -> None:
        """``key`` was read to its end: nothing of it is left to referee."""
        now = time.time()
        self._write([(_UPSERT_SOURCE, (key, 0, None, now)),
                     ("UPDATE sources SET finished = ? WHERE key = ?", (now, key))])

    def restart_source(self, key: str) -> None:
        """Read ``key`` from its start again (the operator asked for a new match from it)."""
        self._write([("DELETE FROM sources WHERE key = ?", (key,))])

    def match_source(self, match_id: int) -> str | None:
        """The source that fed ``match_id`` (``None`` for a match recorded before sources
        were kept, or one fed by the buttons alone)."""
        row = self._read("SELECT source FROM matches WHERE id = ?", (match_id,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def abandon_match(self, match_id: int) -> None:
        """Set ``match_id`` aside unfinished (the operator started a new match): it is kept,
        ended and marked abandoned, and an undo never reopens it."""
        now = time.time()
        self._write([("UPDATE matches SET ended = ?, abandoned = ? WHERE id = ?", (now, now, match_id))])

    def append_rejected(self, match_id: int | None, source_pos: int | None, detail: str) -> None:
        """Keep a source line the strict reader rejected, and move the source past it, in one
        transaction (a restart skips the line instead of failing on it again)."""
        now = time.time()
        with self._transaction() as cur:
            cur.execute("INSERT INTO rejected (match_id, source, source_pos, t, detail) VALUES (?, ?, ?, ?, ?)",
                        (match_id, self.source, source_pos, now, detail))
            self._move_source(cur, source_pos, match_id, now)

    def rejected_lines(self, match_id: int | None = None) -> list[tuple[int | None, str]]:
        """``(source position, why)`` of each rejected line (of ``match_id`` when given)."""
        sql = "SELECT source_pos, detail FROM rejected"
        params: tuple[Any, ...] = ()
        if match_id is not None:
            sql, params = sql + " WHERE match_id = ?", (match_id,)
        try:
            rows = self.conn.execute(sql + " ORDER BY id", params).fetchall()
        except sqlite3.Error as exc:
            if "no such table" in str(exc):  # a record written before rejected lines were kept
                return []
            raise StateError(f"{self.path}: cannot read the match record: {exc}") from exc
        return [(None if pos is None else int(pos), str(detail)) for pos, detail in rows]

    def _move_source(self, cur: sqlite3.Cursor, source_pos: int | None, match_id: int | None, now: float) -> None:
        if self.source is not None and self.positional and source_pos is not None:
            cur.execute(_UPSERT_SOURCE, (self.source, source_pos, match_id, now))

    def end_match(self, match_id: int) -> None:
        self._write([("UPDATE matches SET ended = ? WHERE id = ?", (time.time(), match_id))])

    def current_match(self, game: str | None = None) -> int | None:
        """The newest match not yet ended (of ``game`` when given): the one to resume."""
        sql = "SELECT id FROM matches WHERE ended IS NULL"
        params: tuple[Any, ...] = ()
        if game is not None:
            sql, params = sql + " AND game = ?", (game,)
        row = self._read(sql + " ORDER BY id DESC LIMIT 1", params).fetchone()
        return int(row[0]) if row else None

    def previous_match(self, game: str, before: int | None = None) -> int | None:
        """The newest ended match of ``game`` (older than match ``before`` when given): the one
        an undo right after its end reopens."""
        sql = "SELECT id FROM matches WHERE ended IS NOT NULL AND game = ?"
        if self._has_column("matches", "abandoned"):
            sql += " AND abandoned IS NULL"
        params: tuple[Any, ...] = (game,)
        if before is not None:
            sql, params = sql + " AND id < ?", (game, before)
        row = self._read(sql + " ORDER BY id DESC LIMIT 1", params).fetchone()
        return int(row[0]) if row else None

    def reopen_match(self, match_id: int, abandon: int | None = None) -> None:
        """Mark ``match_id`` unfinished again (an undo of its last play) and, in the same
        transaction, ``abandon`` as ended (a next match begun too early, kept for the record)."""
        steps: list[tuple[str, Sequence[Any]]] = [
            ("UPDATE matches SET ended = NULL WHERE id = ?", (match_id,))
        ]
        if abandon is not None:
            steps.append(("UPDATE matches SET ended = ? WHERE id = ?", (time.time(), abandon)))
        self._write(steps)

    def append(
        self,
        match_id: int,
        event: Mapping[str, Any],
        calls: Sequence[Mapping[str, Any]],
        source_pos: int | None = None,
        *,
        ends_match: bool = False,
        filed_as: tuple[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Record one event and the calls it produced, atomically (with the match's end when
        the calls end it, so a restart never resumes a finished match, and with the source's
        position, so a restart goes on after this event, in this match or the next).
        ``filed_as``: the match's game and config, known only now (a match begun by a dealer
        draw, which names no game, is filed under its first deal's game)."""
        now = time.time()
        insert = "INSERT INTO records (match_id, seq, t, kind, body, source_pos) VALUES (?, ?, ?, ?, ?, ?)"
        bodies = [("event", _dump(event), source_pos)] + [("call", _dump(c), None) for c in calls]
        with self._transaction() as cur:
            seq0 = cur.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM records WHERE match_id = ?", (match_id,)
            ).fetchone()[0]
            for i, (kind, body, pos) in enumerate(bodies, start=1):
                cur.execute(insert, (match_id, seq0 + i, now, kind, body, pos))
            if ends_match:
                cur.execute("UPDATE matches SET ended = ? WHERE id = ?", (now, match_id))
            if filed_as is not None:
                cur.execute("UPDATE matches SET game = ?, config = ? WHERE id = ?",
                            (filed_as[0], json.dumps(filed_as[1], sort_keys=True), match_id))
            self._move_source(cur, source_pos, match_id, now)

    def append_answer(self, match_id: int, answer: Mapping[str, Any]) -> None:
        """Record an operator answer that is no event (see the ``answers`` table), after the
        match's last record, in its own transaction."""
        with self._transaction() as cur:
            seq = cur.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM records WHERE match_id = ?", (match_id,)
            ).fetchone()[0]
            cur.execute("INSERT INTO answers (match_id, after_seq, t, body) VALUES (?, ?, ?, ?)",
                        (match_id, seq, time.time(), _dump(answer)))

    def answers(self, match_id: int) -> list[dict[str, Any]]:
        """The match's recorded operator answers, oldest first (none in a record written
        before answers were kept, opened read-only)."""
        try:
            rows = self.conn.execute(
                "SELECT body FROM answers WHERE match_id = ? ORDER BY id", (match_id,)
            ).fetchall()
        except sqlite3.Error as exc:
            if "no such table" in str(exc):
                return []
            raise StateError(f"{self.path}: cannot read the match record: {exc}") from exc
        return [json.loads(body) for (body,) in rows]

    def records(self, match_id: int, kind: str | None = None) -> Iterator[Record]:
        sql = "SELECT seq, t, kind, body, source_pos FROM records WHERE match_id = ?"
        params: tuple[Any, ...] = (match_id,)
        if kind is not None:
            sql, params = sql + " AND kind = ?", (match_id, kind)
        for seq, t, k, body, pos in self._read(sql + " ORDER BY seq", params):
            yield Record(seq, t, k, json.loads(body), pos)

    def readable(self, match_id: int, what: str) -> tuple[list[dict[str, Any]], list[str]]:
        """The match's ``what`` ("event", "call" or "answer") bodies that can be read, and
        where and why each other one cannot (not UTF-8, not JSON, a damaged page): a dispute
        can still be settled from the rest."""
        params: tuple[Any, ...] = (match_id,)
        if what == "answer":
            sql = "SELECT id, CAST(body AS BLOB) FROM answers WHERE match_id = ? ORDER BY id"
        else:
            sql = "SELECT seq, CAST(body AS BLOB) FROM records WHERE match_id = ? AND kind = ? ORDER BY seq"
            params = (match_id, what)
        bodies: list[dict[str, Any]] = []
        unreadable: list[str] = []
        last = None
        try:
            for number, blob in self.conn.execute(sql, params):
                last = number
                try:
                    bodies.append(json.loads(bytes(blob).decode("utf-8")))
                except UnicodeDecodeError:
                    unreadable.append(f"match {match_id} {what} {number}: not UTF-8")
                except ValueError:
                    unreadable.append(f"match {match_id} {what} {number}: not JSON")
        except sqlite3.Error as exc:
            if "no such table" in str(exc):  # answers, in a record older than them
                return bodies, unreadable
            after = "" if last is None else f" after {what} {last}"
            unreadable.append(f"match {match_id}: the {what}s{after}: {exc}")
        return bodies, unreadable

    def events(self, match_id: int) -> list[dict[str, Any]]:
        return [r.body for r in self.records(match_id, "event")]

    def calls(self, match_id: int) -> list[dict[str, Any]]:
        return [r.body for r in self.records(match_id, "call")]

    def steps(self, match_id: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Each recorded event with the calls it produced, in order (one step per transaction)."""
        out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        for record in self.records(match_id):
            if record.kind == "event":
                out.append((record.body, []))
            elif out:
                out[-1][1].append(record.body)
        return out

    def last_source_pos(self, match_id: int) -> int | None:
        row = self._read(
            "SELECT MAX(source_pos) FROM records WHERE match_id = ?", (match_id,)
        ).fetchone()
        return None if row[0] is None else int(row[0])

    def require_match(self, match_id: int) -> None:
        """:class:`StateError` naming ``match_id`` when the record has no such match."""
        if self._read("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
            raise StateError(f"{self.path}: no match {match_id}")

    def match_config(self, match_id: int) -> dict[str, Any]:
        row = self._read("SELECT config FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise StateError(f"{self.path}: no match {match_id}")
        result: dict[str, Any] = json.loads(row[0])
        return result

    def matches(self) -> list[MatchInfo]:
        rows = self._read(
            "SELECT m.id, m.started, m.game, m.ended,"
            " SUM(r.kind = 'event'), SUM(r.kind = 'call')"
            " FROM matches m LEFT JOIN records r ON r.match_id = m.id"
            " GROUP BY m.id ORDER BY m.id",
            (),
        )
        return [MatchInfo(i, s, g, e, int(ne or 0), int(nc or 0)) for i, s, g, e, ne, nc in rows]

    def integrity_ok(self) -> bool:
        return bool(self._read("PRAGMA integrity_check", ()).fetchone()[0] == "ok")

    def _has_column(self, table: str, column: str) -> bool:
        return any(row[1] == column for row in self._read(f"PRAGMA table_info({table})", ()))

    def _read(self, sql: str, params: Sequence[Any]) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise StateError(f"{self.path}: cannot read the match record: {exc}") from exc


_UPSERT_SOURCE = (
    "INSERT INTO sources (key, pos, match_id, t) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (key) DO UPDATE SET pos = MAX(pos, excluded.pos),"
    " match_id = COALESCE(excluded.match_id, match_id), t = excluded.t"
)


def _add_columns(conn: sqlite3.Connection) -> None:
    """Bring a record written by an older release up to :data:`_MATCH_COLUMNS`."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(matches)")}
    for name, kind in _MATCH_COLUMNS.items():
        if name not in have:
            conn.execute(f"ALTER TABLE matches ADD COLUMN {name} {kind}")


def _dump(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _why(exc: sqlite3.Error) -> str:
    text = str(exc).lower()
    if "full" in text:
        return "disk full"
    if "readonly" in text or "read-only" in text:
        return "state directory is read-only"
    return "database error"
