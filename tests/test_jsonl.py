"""The one strict JSON Lines reader, and the same verdict on every line from ``referee run``'s
ingestion (event log -> record) and ``referee replay``."""

from __future__ import annotations

import io
import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.box.app import Box
from referee.box.config import BoxConfig, parse_config
from referee.box.deal_card_menu import missing_deal_card
from referee.box.display import NullDisplay
from referee.box.feed import JsonlFeed
from referee.box.notify import Notifier
from referee.box.run import Runner
from referee.box.signals import NullSignals
from referee.box.source import events_source
from referee.box.state import MatchStore
from referee.cli import main
from referee.jsonl import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_LINE_BYTES,
    JsonLineError,
    parse_line,
    raw_lines,
    read_lines,
)
from referee.paths import REPO_ROOT
from referee.replay import replay_stream
from referee.rules.playout import random_deal_events

CONFIG = REPO_ROOT / "hardware" / "config.toml"
DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
        "trump_card": "bastoni_1"}
PLAY = b'{"event":"play","seat":"N","card":"coppe_3"}'

#: (name, line, words of the reason): each rejected wherever it is read
POISON: list[tuple[str, bytes, str]] = [
    ("nan", b'{"event":"play","seat":"N","card":"coppe_3","confidence":NaN}', "NaN is not valid JSON"),
    ("infinity", b'{"event":"play","confidence":-Infinity}', "-Infinity is not valid JSON"),
    ("float_overflow", b'{"event":"play","confidence":1e999}', "too large"),
    ("huge_integer", b'{"event":"deal","options":{"rounds_to_win":' + b"9" * 5000 + b"}}",
     f"5000 digits (at most {MAX_INT_DIGITS})"),
    ("lone_surrogate", b'{"event":"deal","seats":["\\ud800","S"]}', "lone surrogate (U+D800)"),
    ("escaped_control", b'{"event":"play","seat":"N\\u0000"}', "control character U+0000"),
    ("raw_control", b'{"event":"play","seat":"N\x07"}', "Invalid control character"),
    ("raw_delete", b'{"event":"play","seat":"N\x7f"}', "control character U+007F"),
    ("raw_c1_control", b'{"event":"play","seat":"N\xc2\x85"}', "control character U+0085"),
    ("escaped_control_in_a_key", b'{"event":"play","se\\u001bat":"N"}', "control character U+001B"),
    ("deep_nesting", b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1), "nested too deeply"),
    ("invalid_utf8", b'{"event":"play","seat":"N\xff"}', "not UTF-8: byte 26 is b'\\xff'"),
    ("not_an_object", b'["play","N","coppe_3"]', "must be a JSON object, got list"),
    ("duplicate_key", b'{"event":"play","seat":"N","seat":"S"}', "the key 'seat' appears twice"),
    ("bom_inside_the_file", b"\xef\xbb\xbf" + PLAY, "byte-order mark (U+FEFF) is allowed only at the start"),
    ("not_json", b'{"event":"play",', "malformed JSON"),
]


@pytest.mark.parametrize(("name", "line", "reason"), POISON, ids=[p[0] for p in POISON])
def test_each_kind_of_poison_line_is_rejected_naming_the_line_and_why(name: str, line: bytes, reason: str) -> None:
    with pytest.raises(JsonLineError) as caught:
        parse_line(line, 7)
    assert caught.value.line == 7 and reason in caught.value.reason
    assert str(caught.value).startswith("line 7: ")


def test_a_str_line_with_a_raw_lone_surrogate_is_rejected() -> None:
    with pytest.raises(JsonLineError, match="lone surrogate"):
        parse_line('{"event":"play","seat":"N\ud800"}', 2)


def test_nesting_is_limited_by_depth_not_by_how_many_brackets_a_line_holds() -> None:
    deepest = '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH
    assert parse_line(deepest, 2) is not None
    wide = '{"event":"deal","options":{' + ",".join(f'"o{i}":[[1]]' for i in range(2 * MAX_DEPTH)) + "}}"
    assert parse_line(wide, 2) is not None
    inner = MAX_DEPTH - 1  # arrays inside the one object
    brackets_in_strings = '{"a":"' + "[{" * MAX_DEPTH + '","b":' + "[" * inner + "]" * inner + "}"
    assert parse_line(brackets_in_strings, 2) is not None
    with pytest.raises(JsonLineError, match="nested too deeply"):
        parse_line('{"a":"[[[",' + '"b":' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}", 2)


def test_a_line_over_the_size_limit_is_rejected_unread_and_the_next_line_is_read() -> None:
    stream = io.BytesIO(b'{"event":"play","seat":"' + b"N" * (MAX_LINE_BYTES + 10) + b'"}\n' + PLAY + b"\n")
    first, second = read_lines(stream)
    assert (first.number, first.event, first.error) == (1, None, f"line longer than {MAX_LINE_BYTES} bytes")
    assert (second.number, second.event) == (2, json.loads(PLAY))


def test_a_bom_is_accepted_at_the_start_of_the_file_only() -> None:
    assert parse_line(b"\xef\xbb\xbf" + PLAY, 1) == json.loads(PLAY)
    assert parse_line("\ufeff" + PLAY.decode(), 1) == json.loads(PLAY)
    with pytest.raises(JsonLineError, match="line 2: a byte-order mark"):
        parse_line(b"\xef\xbb\xbf" + PLAY, 2)


def test_blank_lines_and_crlf_are_not_events() -> None:
    lines = list(read_lines(io.BytesIO(b"\r\n  \t\n" + PLAY + b"\r\n")))
    assert [(x.number, x.event) for x in lines] == [(3, json.loads(PLAY))]


# -- run and replay on the same lines ----------------------------------------------------------

def _cfg(state: Path) -> BoxConfig:
    return replace(parse_config(""), state_dir=state)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def run_verdicts(log: Path, state: Path) -> dict[int, bool]:
    """Line number -> accepted, as ``referee run`` records the log (in process, no pacing)."""
    cfg, clock = _cfg(state), _Clock()
    store = MatchStore.open(state)
    box = Box(cfg, store, NullSignals(), NullDisplay(), clock=clock)
    feed = JsonlFeed(log, pace_s=0.0, clock=clock, sleep=clock.sleep)
    Runner(cfg, box, feed, Notifier(None), clock=clock, sleep=clock.sleep, source=events_source(log)).run()
    verdicts = {pos: False for pos, _ in store.rejected_lines() if pos is not None}
    for match in store.matches():
        for record in store.records(match.id):
            if record.kind == "event":
                assert record.source_pos is not None
                verdicts[pos := record.source_pos] = True
            elif record.body["call"] == "error":
                verdicts[pos] = False
    store.close()
    return verdicts


def replay_verdicts(log: Path) -> dict[int, bool]:
    """Line number -> accepted, as ``referee replay`` reads the log."""
    errors: set[int] = set()
    with log.open("rb") as f:
        replay_stream(f, lambda call: errors.add(call["line"]) if call["call"] == "error" else None)
    numbers = [x.number for x in read_lines(log.open("rb"))]
    blank = {n for n in range(1, len(log.read_bytes().splitlines()) + 1)} - set(numbers) - errors
    return {n: n not in errors for n in sorted(set(numbers) | errors) if n not in blank}


def test_run_and_replay_give_each_poison_line_the_same_verdict(tmp_path: Path) -> None:
    # regression: run recorded a NaN confidence that replay refused, and dropped a first line
    # that began with a BOM (then every play was rejected), so replaying the export differed
    events = random_deal_events("briscola-4", seed=4)
    body = [json.dumps(e).encode() for e in events]
    lines = [b"\xef\xbb\xbf" + body[0], *[p[1] for p in POISON][:6], *body[1:9], *[p[1] for p in POISON][6:], *body[9:]]
    log = tmp_path / "poison.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    run = run_verdicts(log, tmp_path / "state")
    assert run == replay_verdicts(log)
    assert [n for n, ok in run.items() if not ok] == [*range(2, 8), *range(16, 16 + len(POISON) - 6)]


def test_a_poison_line_is_recorded_and_a_restart_does_not_die_on_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: a 5000-digit integer and a lone surrogate crashed `run`, and since the line
    # was never recorded every restart died on it again
    events = random_deal_events("briscola-4", seed=5)
    lines = [json.dumps(events[0]).encode(), POISON[3][1], POISON[4][1],
             *[json.dumps(e).encode() for e in events[1:]]]
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    state = tmp_path / "state"
    args = ["run", "--config", str(CONFIG), "--events", str(log), "--pace", "0", "--no-hardware",
            "--state-dir", str(state)]
    assert main(args) == 0
    assert main(args) == 0
    with MatchStore.open(state) as store:
        assert [pos for pos, _ in store.rejected_lines()] == [2, 3]
        (match,) = store.matches()
        assert store.events(match.id) == events
    capsys.readouterr()
    assert main(["history", "--state-dir", str(state), "--export", "1", "--rejected"]) == 0
    rejected = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["line"] for r in rejected] == [2, 3] and "lone surrogate" in rejected[1]["detail"]
    assert main(["replay", str(log)]) == 2
    assert '"line": 2, "detail": "malformed JSON: an integer of 5000 digits' in capsys.readouterr().out


# -- property: the same verdict on fuzzed lines --------------------------------------------------

_JSON_LEAF = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
_JSON = st.recursive(_JSON_LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                     max_leaves=8)
_KEYS = st.sampled_from(["event", "seat", "card", "game", "seats", "dealer", "trump_card", "options", "cards", "x"])
_RAW = st.sampled_from([p[1] for p in POISON]) | st.binary(max_size=40) | st.text(max_size=40).map(str.encode)


@st.composite
def fuzzed_logs(draw: st.DrawFn) -> list[bytes]:
    """A deal's events with some mutated (keys dropped or given any JSON value) and raw poison
    lines between them."""
    events = random_deal_events("briscola-4", seed=draw(st.integers(0, 50)))[: draw(st.integers(1, 45))]
    lines: list[bytes] = []
    for event in events:
        if draw(st.integers(0, 4)) == 0:
            event = dict(event)
            key = draw(_KEYS)
            if draw(st.booleans()):
                event.pop(key, None)
            else:
                event[key] = draw(_JSON)
        lines.append(json.dumps(event, ensure_ascii=draw(st.booleans())).encode())
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(_RAW).replace(b"\n", b" ").replace(b"\r", b" "))
    if draw(st.booleans()):
        lines[0] = b"\xef\xbb\xbf" + lines[0]
    return [line for line in lines if not _diverted(line)]


def _diverted(line: bytes) -> bool:
    """A line ``referee run`` puts to the operator instead of deciding (by design): an unsure
    play, a deal without its face-up card."""
    try:
        event = parse_line(line.removeprefix(b"\xef\xbb\xbf"), 2)
    except JsonLineError:
        return False
    return event is not None and ("confidence" in event or "uncertain" in event or missing_deal_card(event) is not None)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzzed_logs())
def test_run_and_replay_give_every_fuzzed_line_the_same_verdict(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as tmp:
        log = Path(tmp) / "fuzz.jsonl"
        log.write_bytes(b"\n".join(lines) + b"\n")
        assert run_verdicts(log, Path(tmp) / "state") == replay_verdicts(log)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=100).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_the_reader_never_raises_anything_but_a_line_error(data: bytes) -> None:
    try:
        event = parse_line(data, 3)
    except JsonLineError as exc:
        assert exc.line == 3 and exc.reason
        return
    if event is not None:  # what is accepted reads back the same through any JSON parser
        assert isinstance(event, dict)
        text = json.dumps(event, ensure_ascii=False, allow_nan=False)
        assert json.loads(text.encode("utf-8")) == event


@settings(max_examples=200, deadline=None)
@given(_JSON.filter(lambda v: isinstance(v, dict)))
def test_every_plain_json_object_is_accepted_unchanged(value: dict[str, Any]) -> None:
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for text in _strings(value) for c in text):
        with pytest.raises(JsonLineError, match="control character"):  # refused by design
            parse_line(json.dumps(value).encode(), 5)
        return
    assert parse_line(json.dumps(value).encode(), 5) == value
    assert parse_line(json.dumps(value, ensure_ascii=False).encode(), 5) == value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_the_simulations_event_log_is_read_strictly_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("cv2")
    sim = tmp_path / "sim.jsonl"
    sim.write_bytes(json.dumps(DEAL).encode() + b"\n" + POISON[0][1] + b"\n")
    config = tmp_path / "box.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n[camera]\nsource = "sim"\n')
    assert main(["run", "--config", str(config), "--sim-events", str(sim), "--no-hardware"]) == 1
    assert f"{sim}:2: cannot read the simulation's events: malformed JSON: NaN is not valid JSON" in capsys.readouterr().err


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")), min_size=1, max_size=8), st.booleans())
def test_raw_lines_cuts_only_the_lines_over_the_limit(lines: list[bytes], final_newline: bool) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    got = list(raw_lines(io.BytesIO(data), max_bytes=8))
    want = lines if final_newline or lines[-1] else lines[:-1]  # no line after the last "\n"
    assert [r.number for r in got] == list(range(1, len(want) + 1))
    for raw, line in zip(got, want, strict=True):
        content = line.rstrip(b"\r")
        assert raw.too_long == (len(content) > 8)
        if not raw.too_long:
            assert raw.data == content
