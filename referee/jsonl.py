"""The one strict JSON Lines reader: every input path (``referee run``'s event sources,
``referee replay``, and any later console or broker) reads events through it, so a line gets
the same verdict wherever it is read.

A line is accepted only if it is a JSON *object* that any JSON parser reads the same way.
Rejected, each with a :class:`JsonLineError` naming the line and what is wrong:

- a line longer than :data:`MAX_LINE_BYTES` (checked before it is decoded or parsed);
- bytes that are not UTF-8;
- a byte-order mark anywhere but the very start of the file (a UTF-8 BOM at the start of the
  first line, as some editors write, is not part of the event and is dropped: both commands
  accept it);
- ``NaN``, ``Infinity``, ``-Infinity`` (Python's decoder accepts them, JSON has no such thing)
  and numbers too large for a float (``1e999``);
- integers of more than :data:`MAX_INT_DIGITS` digits (Python refuses to print those);
- nesting deeper than :data:`MAX_DEPTH` (checked before parsing: the decoder recurses);
- strings (keys or values) holding a lone surrogate (``"\\ud800"``, not encodable as UTF-8)
  or a control character, raw or escaped (no event field needs one);
- an object naming the same key twice (parsers disagree on which one wins);
- anything but an object (``[]``, ``3``, ``"play"``).

Blank lines (JSON whitespace only) are skipped: they carry no event.

    with open("game.jsonl", "rb") as f:
        for line in read_lines(f):
            line.number, line.event, line.error   # event is None when error says why
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from referee.errors import RefereeError

#: the longest line read (bytes, without its line end); a longer one is rejected unread
MAX_LINE_BYTES = 64 * 1024
#: the deepest nesting of objects and arrays accepted (an event needs 3)
MAX_DEPTH = 32
#: the most digits an integer may have (the largest integer option needs 7)
MAX_INT_DIGITS = 100

_BOM_BYTES = b"\xef\xbb\xbf"
_BOM = "\ufeff"
_JSON_SPACE = " \t\r\n"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
#: C0 controls, DEL and C1 controls: never part of a seat, card, game or option
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
#: what a decoded string may not hold (controls, lone surrogates): a line with none of these and
#: no backslash (so no escape) cannot decode to such a string, and its strings need no walk
_BAD_CHAR = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class JsonLineError(RefereeError, ValueError):
    """A JSON Lines line that is rejected; ``str()`` names the line and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line, self.reason = line, reason


@dataclass(frozen=True)
class RawLine:
    """One line's bytes without its line end (cut at :data:`MAX_LINE_BYTES` + 1 when longer)."""

    number: int
    data: bytes
    too_long: bool = False


@dataclass(frozen=True)
class JsonLine:
    """One non-blank line read: its event, or why it was rejected."""

    number: int
    event: dict[str, Any] | None
    error: str | None = None


def raw_lines(stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[RawLine]:
    """The lines of a binary stream, numbered from 1, never holding more than ``max_bytes``
    + 1 bytes of one line in memory (the rest of an over-long line is read and dropped)."""
    number = 0
    while True:
        data = stream.readline(max_bytes + 2)  # the line, its "\r\n", and one byte too many
        if not data:
            return
        number += 1
        ended = data.endswith(b"\n")
        content = data.rstrip(b"\r\n")
        too_long = len(content) > max_bytes
        if not ended:
            while (more := stream.readline(max_bytes)) and not more.endswith(b"\n"):
                too_long = True
            too_long = too_long or bool(more)
        yield RawLine(number, content[: max_bytes + 1], too_long)


def read_lines(stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[JsonLine]:
    """Every non-blank line of ``stream`` with its event or its rejection."""
    for raw in raw_lines(stream, max_bytes):
        line = check_raw(raw, max_bytes)
        if line is not None:
            yield line


def check_raw(raw: RawLine, max_bytes: int = MAX_LINE_BYTES) -> JsonLine | None:
    """:func:`parse_line` as a verdict: ``None`` for a blank line."""
    try:
        if raw.too_long:
            raise JsonLineError(raw.number, _too_long(max_bytes))
        event = parse_line(raw.data, raw.number, max_bytes)
    except JsonLineError as exc:
        return JsonLine(raw.number, None, exc.reason)
    return None if event is None else JsonLine(raw.number, event)


def parse_line(data: bytes | str, number: int, max_bytes: int = MAX_LINE_BYTES) -> dict[str, Any] | None:
    """The event on line ``number`` (``None`` for a blank line); :class:`JsonLineError` says
    why a line is rejected. ``number == 1`` is the start of the file, where a BOM may be."""
    if isinstance(data, bytes):
        if number == 1:
            data = data.removeprefix(_BOM_BYTES)
        if len(data.rstrip(b"\r\n")) > max_bytes:
            raise JsonLineError(number, _too_long(max_bytes))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonLineError(number, f"not UTF-8: byte {exc.start + 1} is {data[exc.start:exc.start + 1]!r}") from None
    else:
        text = data.removeprefix(_BOM) if number == 1 else data
        # a character is at most 4 bytes: a shorter text needs no encoding to be measured
        if len(text) * 4 > max_bytes and len(text.encode("utf-8", "surrogatepass").rstrip(b"\r\n")) > max_bytes:
            raise JsonLineError(number, _too_long(max_bytes))
    text = text.strip(_JSON_SPACE)
    if not text:
        return None
    if text.startswith(_BOM):
        raise JsonLineError(number, "a byte-order mark (U+FEFF) is allowed only at the start of the file")
    # nesting can be no deeper than the number of opening brackets (the usual event has 1 to 3)
    if text.count("{") + text.count("[") > MAX_DEPTH:
        _check_depth(text, number)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise JsonLineError(number, f"malformed JSON: {exc}") from None
    except _Rejected as exc:
        raise JsonLineError(number, f"malformed JSON: {exc}") from None
    if not isinstance(value, dict):
        raise JsonLineError(number, f"an event must be a JSON object, got {type(value).__name__}")
    if "\\" in text or _BAD_CHAR.search(text) is not None:
        problem = _bad_string(value)
        if problem is not None:
            raise JsonLineError(number, problem)
    return value


def _too_long(max_bytes: int) -> str:
    return f"line longer than {max_bytes} bytes"


class _Rejected(ValueError):
    """A value Python's decoder would accept that this reader does not."""


def _no_constant(name: str) -> Any:
    raise _Rejected(f"{name} is not valid JSON")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Rejected(f"an integer of {len(digits.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(digits)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Rejected(f"the number {text[:20]} is too large")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Rejected(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return out


#: one decoder for every line (``json.loads`` with hooks builds a new one per call); it keeps no
#: state between lines but the key memo it clears after each
_DECODER = json.JSONDecoder(
    parse_constant=_no_constant,
    parse_int=_bounded_int,
    parse_float=_finite_float,
    object_pairs_hook=_unique_keys,
)


def _check_depth(text: str, number: int) -> None:
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                raise JsonLineError(number, "malformed JSON: nested too deeply")


def _bad_string(value: Any) -> str | None:
    """Why a string in ``value`` cannot be part of an event, or ``None``."""
    if isinstance(value, str):
        return _string_problem(value)
    if isinstance(value, dict):
        for key, item in value.items():
            problem = _string_problem(key) or _bad_string(item)
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for item in value:
            problem = _bad_string(item)
            if problem is not None:
                return problem
    return None


def _string_problem(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"the string {text[:30]!r} holds a lone surrogate (U+{ord(text[exc.start]):04X}), which is not text"
    control = _CONTROL.search(text)
    if control is not None:
        return f"the string {text[:30]!r} holds the control character U+{ord(control.group()):04X}"
    return None
