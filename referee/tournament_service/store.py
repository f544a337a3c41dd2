"""The tournament service's crash-safe record (SQLite, WAL, ``synchronous=FULL``).

Two tables: ``actions``, the tournament's actions in order (registration, start, results,
corrections: replaying them rebuilds the tournament), and ``inbox``, every box record taken,
keyed by ``(table, box_match, seq)``. A box record and the result it carries (a
``match_end``) are written in one transaction (with the other records that arrived meanwhile:
``batch()``), so after ``kill -9`` the record holds both or neither, and the box is asked for
the record again.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.tournament import Action, action_from_dict, action_to_dict
from referee.tournament.messages import RecordMessage

DB_NAME = "tournament.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS actions (
    seq INTEGER PRIMARY KEY,
    t REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS inbox (
    table_no INTEGER NOT NULL,
    box_match INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    game TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (table_no, box_match, seq)
);
"""


class StoreError(RefereeError, OSError):
    """The tournament record cannot be opened or written (names the file)."""


@dataclass(frozen=True)
class BoxMatch:
    table: int
    box_match: int
    game: str
    records: int


class TournamentStore:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path = conn, path
        self._batch: list[tuple[str, Sequence[Any]]] | None = None

    @classmethod
    def open(cls, state_dir: Path) -> TournamentStore:
        path = state_dir / DB_NAME
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"{path}: cannot open the tournament record: {exc}") from exc
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Writes inside go to disk in one transaction at the end (one sync for many box
        records: a tournament of 32 tables sends a few hundred a second)."""
        self._batch = []
        try:
            yield
            steps, self._batch = self._batch, None
            if steps:
                self._commit(steps)
        finally:
            self._batch = None

    def _write(self, steps: Sequence[tuple[str, Sequence[Any]]]) -> None:
        if self._batch is not None:
            self._batch.extend(steps)
        else:
            self._commit(steps)

    def _commit(self, steps: Sequence[tuple[str, Sequence[Any]]]) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            for sql, params in steps:
                self.conn.execute(sql, params)
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise StoreError(f"{self.path}: cannot write the tournament record: {exc}") from exc

    @staticmethod
    def _action_step(action: Action) -> tuple[str, Sequence[Any]]:
        body = json.dumps(action_to_dict(action), ensure_ascii=False, sort_keys=True)
        return "INSERT INTO actions (t, body) VALUES (?, ?)", (time.time(), body)

    def append_actions(self, actions: Sequence[Action]) -> None:
        self._write([self._action_step(a) for a in actions])

    def append_record(self, msg: RecordMessage, action: Action | None = None) -> None:
        """One box record, with the result it carries when it ends the match."""
        steps: list[tuple[str, Sequence[Any]]] = [(
            "INSERT INTO inbox (table_no, box_match, seq, t, kind, game, body)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (msg.table, msg.match, msg.seq, time.time(), msg.kind, msg.game,
             json.dumps(msg.body, ensure_ascii=False, separators=(",", ":"))),
        )]
        if action is not None:
            steps.append(self._action_step(action))
        self._write(steps)

    def actions(self) -> list[Action]:
        return [action_from_dict(json.loads(b))
                for (b,) in self.conn.execute("SELECT body FROM actions ORDER BY seq")]

    def action_count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0])

    def next_seqs(self) -> dict[tuple[int, int], int]:
        """(table, box match) -> the next sequence number expected (records are taken in order)."""
        rows = self.conn.execute("SELECT table_no, box_match, MAX(seq) FROM inbox GROUP BY table_no, box_match")
        return {(int(t), int(m)): int(s) + 1 for t, m, s in rows}

    def box_matches(self) -> list[BoxMatch]:
        rows = self.conn.execute(
            "SELECT table_no, box_match, MIN(game), COUNT(*) FROM inbox"
            " GROUP BY table_no, box_match ORDER BY table_no, box_match")
        return [BoxMatch(int(t), int(m), str(g), int(n)) for t, m, g, n in rows]

    def records(self, table: int, box_match: int) -> Iterator[tuple[int, str, dict[str, Any]]]:
        """(seq, kind, body) of one box match, in order."""
        for seq, kind, body in self.conn.execute(
            "SELECT seq, kind, body FROM inbox WHERE table_no = ? AND box_match = ? ORDER BY seq",
            (table, box_match),
        ):
            yield int(seq), str(kind), json.loads(body)
