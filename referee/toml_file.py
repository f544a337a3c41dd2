"""Reading a TOML file (the box's config, a training recipe, the tournament service's config)
with one set of clear errors: unreadable, not UTF-8 (with the line and column of the first bad
byte) or not valid TOML is a :class:`~referee.errors.ConfigError` naming the file, never a
traceback."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from referee.errors import ConfigError


def read_text(path: Path, what: str = "config file") -> str:
    """The file's text; unreadable or not UTF-8 is a :class:`ConfigError` naming the file (and
    the line and column of the first byte that is not UTF-8)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read {what}: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x}): "
                          f"save the {what} as UTF-8") from exc


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML text as a table; invalid TOML is a :class:`ConfigError` naming ``where``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from exc


def read_toml(path: Path, what: str = "config file") -> dict[str, Any]:
    """The file as a TOML table (see :func:`read_text` and :func:`parse_toml`)."""
    return parse_toml(read_text(path, what), str(path))
