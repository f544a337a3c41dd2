"""The repository's hand-kept CSV files (reviews, suits, quads, labels): ``#`` lines are comments,
the first other line is the header, and every error names the file and the line."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from referee.errors import ConfigError


def csv_rows(path: Path, columns: Sequence[str], what: str) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) of each data row of ``path``, whose header must be ``columns``;
    ``what`` names the file in errors (``photo review``, ``photo suits``...)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{what} {path}: cannot read: {exc}") from exc
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]
    if not lines or tuple(h.strip() for h in lines[0][1].split(",")) != tuple(columns):
        raise ConfigError(f"{what} {path}: header must be {','.join(columns)}")
    rows = list(csv.DictReader(line for _, line in lines))
    for (n, _), row in zip(lines[1:], rows, strict=True):
        if None in row or any(v is None for v in row.values()):
            raise ConfigError(f"{what} {path}, line {n}: expected {len(columns)} fields")
    return [(n, row) for (n, _), row in zip(lines[1:], rows, strict=True)]


def int_box(row: dict[str, str], where: str) -> tuple[int, int, int, int]:
    """The row's ``xmin, ymin, xmax, ymax`` as integers; ``where`` (file and line) names a bad one."""
    try:
        return int(row["xmin"]), int(row["ymin"]), int(row["xmax"]), int(row["ymax"])
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: box must be four integers: {exc}") from exc
