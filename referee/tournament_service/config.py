"""``referee tournament``'s configuration file (TOML): the broker, the web page, the organiser's
password hash, the format and the entrants. Every error names the file and the key.

    state_dir = "/var/lib/referee-tournament"
    language = "it"
    [broker]
    url = "mqtt://localhost:1883"        # mqtts://... with ca_file for TLS
    username = "tournament"
    password_file = "tournament.password"
    [web]
    host = "0.0.0.0"
    port = 8080
    organiser_password_file = "organiser.hash"   # referee tournament --hash-password FILE
    [format]
    kind = "knockout"                    # or "evening" (with rounds)
    game = "briscola-4"
    tables = 8
    seed = 2026                          # the draw
    [[entrants]]
    id = "rossi-bianchi"
    members = ["Rossi", "Bianchi"]
    enrollment = "decks/rossi.npz"       # optional: the enrolment file of the pair's deck (referee enroll)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.toml_file import read_toml
from referee.tournament import (
    Action,
    Entrant,
    Evening,
    Knockout,
    Register,
    Start,
    TournamentError,
)
from referee.tournament.formats import Format
from referee.tournament_service.deck_files import read_deck_file

DEFAULT_PATH = Path("/etc/referee/tournament.toml")


@dataclass(frozen=True)
class ServiceConfig:
    state_dir: Path
    language: str
    broker_url: str
    username: str
    password_file: Path | None
    ca_file: Path | None
    host: str
    port: int
    organiser_hash: str
    format: Format
    seed: int
    entrants: tuple[Entrant, ...]

    def setup(self) -> list[Action]:
        """The actions that open a new tournament record: registration, then the start."""
        return [*(Register(e) for e in self.entrants), Start(self.format, self.seed)]


class _Table:
    def __init__(self, where: str, prefix: str, data: Any) -> None:
        self.where, self.prefix = where, prefix
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: {prefix or 'top level'}: expected a table")
        self.data = dict(data)

    def error(self, key: str, expected: str) -> ConfigError:
        name = f"{self.prefix}.{key}" if self.prefix else key
        return ConfigError(f"{self.where}: {name}: expected {expected}, got {self.data.get(key)!r}")

    def str_(self, key: str, default: str | None = None) -> str:
        value = self.data.pop(key, default)
        if not isinstance(value, str) or not value:
            raise self.error(key, "a string")
        return value

    def int_(self, key: str, default: int | None, low: int, high: int) -> int:
        value = self.data.pop(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.error(key, f"an integer {low}..{high}")
        return value

    def path(self, key: str, base: Path) -> Path | None:
        value = self.data.pop(key, None)
        if value is not None and not isinstance(value, str):
            raise self.error(key, "a file path string")
        return base / value if value else None

    def sub(self, key: str) -> _Table:
        return _Table(self.where, f"{self.prefix}.{key}" if self.prefix else key,
                      self.data.pop(key, {}))

    def done(self) -> None:
        if self.data:
            key = sorted(self.data)[0]
            name = f"{self.prefix}.{key}" if self.prefix else key
            raise ConfigError(f"{self.where}: {name}: unknown key")


def load_service_config(path: Path) -> ServiceConfig:
    return parse_service_config(read_toml(path), str(path), path.parent)


def parse_service_config(data: dict[str, Any], where: str, base: Path) -> ServiceConfig:
    top = _Table(where, "", data)
    state_dir = base / top.str_("state_dir", "/var/lib/referee-tournament")
    language = top.str_("language", "it")
    if language not in ("it", "en"):
        raise ConfigError(f"{where}: language: expected 'it' or 'en', got {language!r}")
    broker = top.sub("broker")
    url = broker.str_("url", "mqtt://localhost:1883")
    username = broker.str_("username", "tournament")
    password_file, ca_file = broker.path("password_file", base), broker.path("ca_file", base)
    broker.done()
    web = top.sub("web")
    host, port = web.str_("host", "0.0.0.0"), web.int_("port", 8080, 1, 65535)
    hash_path = web.path("organiser_password_file", base)
    web.done()
    if hash_path is None:
        raise ConfigError(f"{where}: web.organiser_password_file: expected a file path string, "
                          "got None (make one with `referee tournament --hash-password FILE`)")
    try:
        organiser_hash = hash_path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"{hash_path}: cannot read the organiser password hash: "
                          f"{exc.strerror or exc}") from exc
    from referee.tournament_service.auth import parse_hash

    parse_hash(organiser_hash, str(hash_path))
    fmt = top.sub("format")
    kind = fmt.str_("kind", "knockout")
    try:
        if kind == "knockout":
            form: Format = Knockout(fmt.int_("tables", None, 1, 999), fmt.str_("game", "briscola-4"))
        elif kind == "evening":
            form = Evening(fmt.str_("game"), fmt.int_("rounds", None, 1, 99),
                           fmt.int_("tables", None, 1, 999))
        else:
            raise fmt.error("kind", "'knockout' or 'evening'")
    except TournamentError as exc:
        raise ConfigError(f"{where}: format: {exc}") from exc
    seed = fmt.int_("seed", 0, 0, 2**31)
    fmt.done()
    raw = top.data.pop("entrants", [])
    if not isinstance(raw, list):
        raise ConfigError(f"{where}: entrants: expected [[entrants]] tables")
    entrants = []
    for i, item in enumerate(raw):
        e = _Table(where, f"entrants[{i}]", item)
        members = e.data.pop("members", None)
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise ConfigError(f"{where}: entrants[{i}].members: expected a list of names, got {members!r}")
        enrollment = e.path("enrollment", base)
        if enrollment is not None:  # checked now, not when the deck reaches a table
            try:
                read_deck_file(enrollment, str(e.data.get("id")))
            except ConfigError as exc:
                raise ConfigError(f"{where}: entrants[{i}].{exc}") from exc
        try:
            entrants.append(Entrant(e.str_("id"), tuple(members),
                                    str(enrollment) if enrollment else None))
        except TournamentError as exc:
            raise ConfigError(f"{where}: entrants[{i}]: {exc}") from exc
        e.done()
    top.done()
    return ServiceConfig(state_dir, language, url, username, password_file, ca_file, host, port,
                         organiser_hash, form, seed, tuple(entrants))
