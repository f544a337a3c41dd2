"""What boxes and the tournament service say to each other over MQTT: topics and payloads.

Every box publishes under its own topic root, ``referee/table-N/``, the broker account
``table-N`` being allowed nothing else (``hardware/mosquitto/acl``):

- ``record``: one recorded event or call, ``{"table", "match", "seq", "kind", "game", "body"}``
  and ``assigned`` (the tournament match the table had been assigned when the box began that
  match) (QoS 1; ``match`` and ``seq`` are the box's own record keys, so a consumer is
  idempotent on ``(table, match, seq)``);
- ``status`` (retained): ``{"table", "online", "last": {match: last seq}}``, repeated while the
  box runs, so a consumer sees a tail it missed; the broker's last will sets ``online`` false.

The service publishes ``resend`` (``{"match", "from_seq"}``: publish that match again from that
sequence number), ``assign`` (retained: what the table plays now, with the deck's enrolment
file's sha256 and size) and ``deck`` (retained: that enrolment file's bytes, the ``.npz``
itself) to the box. The box's status reports whether it took the deck's file
(``"deck": {"sha256", "error"}``).

Parsing is strict: a payload that is not a JSON object, has NaN or Infinity, misses a key or
has one of the wrong type raises :class:`MessageError` naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import RefereeError
from referee.jsonl import JsonLineError, parse_line

PREFIX = "referee"
#: an enrolment file sent to a box on ``deck`` is at most this big (one is a few KB to a
#: few hundred KB; the bound keeps a wrong file from filling a box's memory or disk)
MAX_DECK_FILE_BYTES = 8 * 1024 * 1024
_TOPIC = re.compile(rf"^{PREFIX}/table-([1-9][0-9]{{0,2}})/(record|status|resend|assign|deck)$")


class MessageError(RefereeError, ValueError):
    """A message that does not parse or does not belong where it was published."""


def account(table: int) -> str:
    """The broker account of table ``table``'s box (the ACL pattern's ``%u``)."""
    return f"table-{table}"


def topic(table: int, leaf: str) -> str:
    return f"{PREFIX}/{account(table)}/{leaf}"


def parse_topic(name: str) -> tuple[int, str]:
    """``referee/table-3/record`` -> ``(3, "record")``."""
    m = _TOPIC.match(name)
    if m is None:
        raise MessageError(f"topic {name!r}: not a table topic")
    return int(m.group(1)), m.group(2)


def loads(payload: bytes) -> dict[str, Any]:
    """A JSON object, read by the same strict reader as every event log (:mod:`referee.jsonl`):
    UTF-8, no NaN/Infinity, no duplicate keys, bounded size, depth and integers, no lone
    surrogates or control characters, no byte-order mark."""
    try:
        # Not line 1: a message has no file start, so a BOM is refused like anywhere else.
        value = parse_line(payload, 2)
    except JsonLineError as exc:
        raise MessageError(f"not JSON: {exc.reason}") from None
    if value is None:
        raise MessageError("not JSON: an empty message")
    return value


def dumps(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _int(d: Mapping[str, Any], key: str, low: int = 0) -> int:
    value = d.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise MessageError(f"{key}: expected an integer >= {low}, got {value!r}")
    return value


@dataclass(frozen=True)
class RecordMessage:
    table: int
    match: int
    seq: int
    kind: str  # "event" | "call"
    game: str
    body: Mapping[str, Any] = field(default_factory=dict)
    #: the tournament match the table was assigned when the box began this match: "" for
    #: none (a friendly game), None when the box had heard of no assignment at all
    assigned: str | None = None

    def to_bytes(self) -> bytes:
        d = {"table": self.table, "match": self.match, "seq": self.seq, "kind": self.kind,
             "game": self.game, "body": self.body}
        if self.assigned is not None:
            d["assigned"] = self.assigned
        return dumps(d)

    @classmethod
    def parse(cls, payload: bytes) -> RecordMessage:
        d = loads(payload)
        kind, game, body = d.get("kind"), d.get("game"), d.get("body")
        if kind not in ("event", "call"):
            raise MessageError(f"kind: expected 'event' or 'call', got {kind!r}")
        if not isinstance(game, str):
            raise MessageError(f"game: expected a string, got {game!r}")
        if not isinstance(body, dict):
            raise MessageError(f"body: expected an object, got {body!r}")
        assigned = d.get("assigned")
        if assigned is not None and not isinstance(assigned, str):
            raise MessageError(f"assigned: expected a match id or null, got {assigned!r}")
        return cls(_int(d, "table", 1), _int(d, "match", 1), _int(d, "seq", 1), kind, game, body,
                   assigned)


@dataclass(frozen=True)
class DeckReport:
    """The box's word on the deck's enrolment file: ``sha256`` of the file it heard of, and
    ``error`` (``None``: recognising with it now; else why it kept the one it had)."""

    sha256: str
    error: str | None = None


@dataclass(frozen=True)
class StatusMessage:
    table: int
    online: bool
    last: Mapping[int, int] = field(default_factory=dict)  # box match -> its last seq
    deck: DeckReport | None = None

    def to_bytes(self) -> bytes:
        d: dict[str, Any] = {"table": self.table, "online": self.online,
                             "last": {str(m): s for m, s in self.last.items()}}
        if self.deck is not None:
            d["deck"] = {"sha256": self.deck.sha256, "error": self.deck.error}
        return dumps(d)

    @classmethod
    def parse(cls, payload: bytes) -> StatusMessage:
        d = loads(payload)
        online, last = d.get("online"), d.get("last", {})
        if not isinstance(online, bool):
            raise MessageError(f"online: expected true or false, got {online!r}")
        if not isinstance(last, dict) or not all(
            k.isdigit() and isinstance(v, int) and not isinstance(v, bool) for k, v in last.items()
        ):
            raise MessageError(f"last: expected an object match -> last seq, got {last!r}")
        deck, report = d.get("deck"), None
        if deck is not None:
            if not (isinstance(deck, dict) and isinstance(deck.get("sha256"), str)
                    and isinstance(deck.get("error"), str | None)):
                raise MessageError(f"deck: expected {{sha256, error}}, got {deck!r}")
            report = DeckReport(deck["sha256"], deck["error"])
        return cls(_int(d, "table", 1), online, {int(k): v for k, v in last.items()}, report)


@dataclass(frozen=True)
class ResendRequest:
    match: int
    from_seq: int

    def to_bytes(self) -> bytes:
        return dumps({"match": self.match, "from_seq": self.from_seq})

    @classmethod
    def parse(cls, payload: bytes) -> ResendRequest:
        d = loads(payload)
        return cls(_int(d, "match", 1), _int(d, "from_seq", 1))


@dataclass(frozen=True)
class Assignment:
    """What the service tells a table to play (retained on ``assign``); ``match`` is ``None``
    when the table has nothing to play now."""

    table: int
    match: str | None
    caption: str = ""  # "Tavolo 3: Rossi/Bianchi - Verdi/Neri", what the box shows
    sides: tuple[tuple[str, str], ...] = ()  # (side as the box names it, entrant name)
    deck_owner: str | None = None
    deck_enrollment: str | None = None
    round: int | None = None
    game: str | None = None  # the game the table plays (the tournament's format)
    #: the deck's enrolment file, sent on ``deck``: its sha256 (hex) and size in bytes
    deck_sha256: str | None = None
    deck_size: int | None = None

    @classmethod
    def parse(cls, payload: bytes) -> Assignment:
        d = loads(payload)
        table, match = _int(d, "table", 1), d.get("match")
        if match is None:
            return cls(table, None)
        caption, sides, deck, game = d.get("caption"), d.get("sides"), d.get("deck"), d.get("game")
        if game is not None and not isinstance(game, str):
            raise MessageError(f"game: expected a game name or null, got {game!r}")
        if not isinstance(match, str) or not isinstance(caption, str):
            raise MessageError(f"match, caption: expected strings, got {match!r}, {caption!r}")
        if not isinstance(sides, list) or not all(
            isinstance(s, list) and len(s) == 3 and all(isinstance(x, str) for x in s) for s in sides
        ):
            raise MessageError(f"sides: expected [side, entrant id, name] lists, got {sides!r}")
        if deck is not None and not (isinstance(deck, dict) and isinstance(deck.get("owner"), str)):
            raise MessageError(f"deck: expected null or an object with an owner, got {deck!r}")
        enrollment = deck.get("enrollment") if deck else None
        sha, size = (deck.get("sha256"), deck.get("size")) if deck else (None, None)
        if sha is not None and not (isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
            raise MessageError(f"deck.sha256: expected 64 hex digits, got {sha!r}")
        if (sha is None) != (size is None):
            raise MessageError("deck: sha256 and size come together")
        if size is not None:
            size = _int(deck, "size", 1)  # type: ignore[arg-type]
        return cls(table, match, caption, tuple((s[0], s[2]) for s in sides),
                   deck["owner"] if deck else None,
                   enrollment if isinstance(enrollment, str) else None,
                   _int(d, "round", 1) if "round" in d else None, game, sha, size)

    def seat_names(self, seats: Sequence[str]) -> dict[str, str]:
        """Each of ``seats``' player, from the sides: a pair ``N+S`` = ``Rossi/Bianchi`` seats
        Rossi at N and Bianchi at S; a side that is one seat, its player. Sides that name no
        seat of ``seats`` (a box configured with other seats) give no names."""
        names: dict[str, str] = {}
        for side, name in self.sides:
            side_seats, players = side.split("+"), name.split("/")
            if len(side_seats) == len(players) and all(s in seats for s in side_seats):
                names.update(zip(side_seats, (p.strip() for p in players), strict=True))
            elif side in seats:
                names[side] = name
        return names
