"""What the console knows of a table that the rules core does not: its number in the club and
the players' names per seat. Kept in ``console.json`` beside the match record (written beside
and renamed over, so a crash leaves the old file whole); read with the strict JSON reader."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.jsonl import JsonLineError, parse_line

MAX_NAME = 40


class SetupError(RefereeError, ValueError):
    """A table setup that is not one (names the key)."""


@dataclass(frozen=True)
class TableSetup:
    """``table``: the table's number in the room (None: not numbered); ``names``: seat -> player."""

    table: int | None = None
    names: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "names": dict(self.names)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableSetup:
        unknown = sorted(set(data) - {"table", "names"})
        if unknown:
            raise SetupError(f"setup: unknown key {unknown[0]!r}")
        table = data.get("table")
        if table is not None and (isinstance(table, bool) or not isinstance(table, int) or not 0 < table < 1000):
            raise SetupError(f"setup: key 'table' must be a table number 1..999, got {table!r}")
        names = data.get("names", {})
        if not isinstance(names, dict):
            raise SetupError(f"setup: key 'names' must be an object seat -> name, got {names!r}")
        for seat, name in names.items():
            if not isinstance(name, str) or len(name) > MAX_NAME or not name.isprintable():
                raise SetupError(f"setup: names.{seat}: expected a name of at most {MAX_NAME} printable characters")
        return cls(table, {s: n.strip() for s, n in names.items() if n.strip()})

    @classmethod
    def load(cls, path: Path) -> TableSetup:
        """The saved setup; none saved yet: an empty one. A damaged file is a :class:`SetupError`
        naming it (the box goes on without names rather than stop)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise SetupError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        try:
            parsed = parse_line(data, 1)
        except JsonLineError as exc:
            raise SetupError(f"{path}: {exc}") from exc
        try:
            return cls.from_dict(parsed or {})
        except SetupError as exc:
            raise SetupError(f"{path}: {exc}") from exc

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            f.write(json.dumps(self.to_dict(), ensure_ascii=False))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
