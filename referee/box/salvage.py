"""A damaged match record is kept and salvaged, never crash-looped on or silently replaced.

``referee run`` checks the record at start (:func:`damage`): a zero-length file (a record
that was lost, not a new one), SQLite's ``PRAGMA integrity_check``, and every stored body
(event, call, answer, match config) being UTF-8 JSON. A damaged record is renamed
``matches.sqlite.damaged-<UTC time>`` (with its ``-wal``/``-shm``, which belong to it), every
row that can still be read goes into a fresh record, keeping its match id and sequence
number, and :class:`Salvage` names what could not be read; the box shows the fault and goes
on (an unfinished match resumes from what was saved).

    salvage = salvage_if_damaged(state_dir)   # None: the record is sound (or absent)
    salvage.lost                              # ["match 3 record 17: body is not UTF-8", ...]
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.box.state import DB_NAME, MatchStore, StateError

log = logging.getLogger(__name__)

#: the tables copied, each with the columns kept and the columns whose text must be JSON
_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "matches": (("id", "started", "game", "config", "ended", "source", "abandoned"), ("config",)),
    "records": (("match_id", "seq", "t", "kind", "body", "source_pos"), ("body",)),
    "answers": (("id", "match_id", "after_seq", "t", "body"), ("body",)),
    "sources": (("key", "pos", "match_id", "t", "finished"), ()),
    "rejected": (("id", "match_id", "source", "source_pos", "t", "detail"), ()),
}


#: SQLite's words for a damaged file (others, such as a permission, are no damage)
_DAMAGE_WORDS = ("not a database", "malformed", "corrupt", "decode")


@dataclass(frozen=True)
class Salvage:
    """What was done with a damaged record: where it was kept, why, what was saved, what not."""

    damaged: Path
    why: str
    copied: int
    lost: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lost = f"; {len(self.lost)} unreadable, left out: " + "; ".join(self.lost[:5]) if self.lost else ""
        more = f" (and {len(self.lost) - 5} more)" if len(self.lost) > 5 else ""
        return (f"the match record was damaged ({self.why}); kept as {self.damaged}, "
                f"{self.copied} readable rows salvaged into a fresh record{lost}{more}")


def damage(path: Path) -> str | None:
    """Why the record at ``path`` cannot be trusted as it is, or ``None`` (sound or absent)."""
    if not path.exists():
        return None
    if path.stat().st_size == 0:
        return "the file is empty"
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error:
        return None  # not damage: opening the record names the file and why
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            return "integrity check: " + "; ".join(str(r[0]) for r in rows[:3])
        for table, (_, json_columns) in _TABLES.items():
            if json_columns and _has_table(conn, table):
                for column in json_columns:
                    for (blob,) in conn.execute(f"SELECT CAST({column} AS BLOB) FROM {table}"):
                        problem = _body_problem(blob)
                        if problem is not None:
                            return f"a row of {table} whose {column} {problem}"
    except sqlite3.Error as exc:
        if any(word in str(exc).lower() for word in _DAMAGE_WORDS):
            return f"cannot read it: {exc}"
        return None  # locked, unreadable, read-only: opening the record names the file and why
    finally:
        conn.close()
    return None


def salvage_if_damaged(state_dir: Path, now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)) -> Salvage | None:
    """Check the record in ``state_dir``; if damaged, keep it aside and salvage it (see the
    module docstring). Raises :class:`StateError` when the files cannot be moved."""
    path = state_dir / DB_NAME
    why = damage(path)
    if why is None:
        return None
    kept = path.with_name(f"{DB_NAME}.damaged-{now():%Y%m%dT%H%M%SZ}")
    try:
        for suffix in ("", "-wal", "-shm"):
            part = Path(f"{path}{suffix}")
            if part.exists():
                part.rename(f"{kept}{suffix}")
    except OSError as exc:
        raise StateError(f"{path}: damaged ({why}) and cannot be set aside: {exc.strerror or exc}") from exc
    copied, lost = _copy_readable(kept, state_dir)
    salvage = Salvage(kept, why, copied, lost)
    log.error("%s", salvage.summary())
    return salvage


def _copy_readable(damaged: Path, state_dir: Path) -> tuple[int, list[str]]:
    copied, lost = 0, []
    with MatchStore.open(state_dir) as fresh:
        if damaged.stat().st_size == 0:
            return 0, []
        try:
            old = sqlite3.connect(damaged, isolation_level=None)
        except sqlite3.Error as exc:
            return 0, [f"the whole file: {exc}"]
        try:
            fresh.conn.execute("BEGIN IMMEDIATE")
            matches: set[int] = set()
            orphans: set[int] = set()
            for table, (columns, json_columns) in _TABLES.items():
                for row, problem in _rows(old, table, columns):
                    if problem is not None:
                        lost.append(problem)
                        continue
                    bad = next((f"{_where(table, row)}: {c} {p}" for c in json_columns
                                if (p := _body_problem(row[c])) is not None), None)
                    if bad is not None:
                        lost.append(bad)
                        continue
                    values = {c: (v.decode("utf-8") if isinstance(v, bytes) else v) for c, v in row.items()}
                    if table == "matches":
                        matches.add(int(values["id"]))
                    elif table in ("records", "answers") and values["match_id"] not in matches:
                        orphans.add(int(values["match_id"]))
                    names = ", ".join(values)
                    fresh.conn.execute(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({', '.join('?' * len(values))})",
                                       tuple(values.values()))
                    copied += 1
            for match_id in sorted(orphans):  # its match row was lost: keep its steps findable, ended
                fresh.conn.execute("INSERT INTO matches (id, started, game, config, ended) VALUES (?, 0, '?', '{}', 0)",
                                   (match_id,))
            fresh.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if fresh.conn.in_transaction:
                fresh.conn.execute("ROLLBACK")
            raise StateError(f"{fresh.path}: cannot write the salvaged record: {exc}") from exc
        finally:
            old.close()
    return copied, lost


def _rows(conn: sqlite3.Connection, table: str, columns: Sequence[str]) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Each row of ``table`` (the ``columns`` it has, text as bytes), or where and why one
    cannot be read: whole scans while they work, then one row at a time past the damage."""
    try:
        if not _has_table(conn, table):
            return
        have = [c for c in columns if c in {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}]
    except sqlite3.Error as exc:
        yield {}, f"table {table}: {exc}"
        return
    select = ", ".join(f"CAST({c} AS BLOB)" if c in ("body", "config", "detail", "game", "kind", "key", "source")
                       else c for c in have)
    last = 0
    try:
        for rowid, *values in conn.execute(f"SELECT rowid, {select} FROM {table} ORDER BY rowid"):
            last = rowid
            yield dict(zip(have, values, strict=True)), None
        return
    except sqlite3.Error:
        pass
    try:
        (top,) = conn.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()
    except sqlite3.Error as exc:
        yield {}, f"table {table} after row {last}: {exc}"
        return
    for rowid in range(last + 1, int(top or 0) + 1):
        try:
            found = conn.execute(f"SELECT {select} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error as exc:
            yield {}, f"table {table} row {rowid}: {exc}"
            continue
        if found is not None:
            yield dict(zip(have, found, strict=True)), None


def _where(table: str, row: dict[str, Any]) -> str:
    if table == "records":
        return f"match {row.get('match_id')} record {row.get('seq')}"
    if table == "answers":
        return f"match {row.get('match_id')} answer {row.get('id')}"
    return f"{table} row {row.get('id')}"


def _body_problem(blob: Any) -> str | None:
    """Why a stored body is not UTF-8 JSON, or ``None``."""
    if blob is None:
        return "is empty"
    if isinstance(blob, str):
        blob = blob.encode("utf-8", "surrogatepass")
    try:
        text = bytes(blob).decode("utf-8")
    except UnicodeDecodeError:
        return "is not UTF-8"
    try:
        json.loads(text)
    except ValueError:
        return "is not JSON"
    return None


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None
