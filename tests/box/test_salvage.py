"""A damaged match record: kept, salvaged into a fresh one, shown, and still exportable."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from box.helpers import FakeClock, RecordingSignals, Screens, write_jsonl
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.notify import Notifier
from referee.box.run import RECORD_FAULT_S, Runner
from referee.box.salvage import damage, salvage_if_damaged
from referee.box.screens import FaultScreen
from referee.box.state import MatchStore
from referee.cli import main
from referee.paths import REPO_ROOT
from referee.rules.playout import random_match_events

CONFIG = REPO_ROOT / "hardware" / "config.toml"


def _run(log: Path, state: Path) -> int:
    return main(["run", "--config", str(CONFIG), "--events", str(log), "--pace", "0",
                 "--no-hardware", "--state-dir", str(state)])


def _damaged(state: Path) -> list[Path]:
    return sorted(state.glob("matches.sqlite.damaged-*Z"))


def _spoil(state: Path, seq: int, body: bytes) -> None:
    """Overwrite one stored body with bytes (as a bad sector or a bug would)."""
    with sqlite3.connect(state / "matches.sqlite") as conn:
        conn.execute("UPDATE records SET body = CAST(? AS TEXT) WHERE match_id = 1 AND seq = ?", (body, seq))


def test_a_zero_length_record_is_kept_and_a_fresh_one_started(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: an emptied record file silently started a new record
    state = tmp_path / "state"
    state.mkdir()
    (state / "matches.sqlite").write_bytes(b"")
    events = random_match_events("briscola-4", seed=3)
    assert _run(write_jsonl(tmp_path / "m.jsonl", events), state) == 0
    assert "the match record was damaged (the file is empty)" in capsys.readouterr().err
    (kept,) = _damaged(state)
    assert kept.stat().st_size == 0
    with MatchStore.open(state) as store:
        assert [m.events for m in store.matches()] == [len(events)]


def test_rows_with_a_bad_body_are_left_out_and_the_match_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: one row that was not UTF-8 (or not JSON) made `run` crash-loop at resume
    events = random_match_events("briscola-4", seed=4)
    state = tmp_path / "state"
    assert _run(write_jsonl(tmp_path / "part.jsonl", events[:30]), state) == 0
    _spoil(state, 2, b'{"call":"turn","seat":"\xff"}')
    _spoil(state, 4, b'{"call":')
    assert damage(state / "matches.sqlite") == "a row of records whose body is not UTF-8"
    assert _run(write_jsonl(tmp_path / "part.jsonl", events), state) == 0  # same log, grown
    err = capsys.readouterr().err
    assert "match 1 record 2: body is not UTF-8" in err and "match 1 record 4: body is not JSON" in err
    assert len(_damaged(state)) == 1
    with MatchStore.open(state) as store:
        (match,) = store.matches()
        assert store.events(match.id) == events  # every event kept, the rest refereed
        assert match.ended is not None
        assert [r.seq for r in store.records(match.id)][:4] == [1, 3, 5, 6]
    assert damage(state / "matches.sqlite") is None


def test_a_damaged_page_fails_the_integrity_check_and_the_readable_rows_are_salvaged(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-4", {})
        for i in range(400):
            store.append(match, {"event": "play", "seat": "N", "i": i, "pad": "x" * 200}, [{"call": "turn"}])
    path = tmp_path / "matches.sqlite"
    with path.open("r+b") as f:  # a page in the middle of the records overwritten
        f.seek(4096 * 20)
        f.write(bytes(range(256)) * 16)
    assert damage(path) is not None
    salvage = salvage_if_damaged(tmp_path)
    assert salvage is not None and salvage.damaged.exists()
    with MatchStore.open(tmp_path) as store:
        assert store.integrity_ok()
        kept = store.events(match)
        assert 200 < len(kept) < 400 and salvage.lost
        assert all(e["pad"] == "x" * 200 for e in kept)


def test_a_salvaged_record_shows_its_fault_then_the_game(cfg: BoxConfig, clock: FakeClock) -> None:
    events = random_match_events("briscola-4", seed=5)[:5]
    display = Screens()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)

    class Feed:
        finished = False

        def poll(self, timeout: float) -> list:  # type: ignore[type-arg]
            from referee.box.feed import FeedItem

            clock.now += 1.0
            if not events:
                self.finished = clock.now > 1000 + RECORD_FAULT_S + 5
                return [FeedItem(None)]
            return [FeedItem(events.pop(0))]

        def skip_to(self, pos: int | None) -> None: ...
        def reopen(self) -> None: ...
        def close(self) -> None: ...

    runner = Runner(cfg, box, Feed(), Notifier(None), clock=clock, sleep=clock.sleep)
    runner.start_fault = "fault_record"
    runner.run()
    faults = [i for i, s in enumerate(display.shown) if s == FaultScreen("fault_record", 0)]
    assert faults and faults[0] <= 2  # lit at start, over the ready screen
    assert box.fault_screen is None and not isinstance(display.last, FaultScreen)  # then the game


def test_history_exports_what_is_readable_and_names_what_is_not(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: one bad row made `history --export` fail, so that match could not be exported
    events = random_match_events("briscola-4", seed=6)
    state = tmp_path / "state"
    assert _run(write_jsonl(tmp_path / "m.jsonl", events), state) == 0
    capsys.readouterr()
    with MatchStore.open(state) as store:
        seq = next(r.seq for r in store.records(1) if r.kind == "event" and r.body == events[3])
    _spoil(state, seq, b'{"event":"play","seat":"\xfe"}')
    assert main(["history", "--state-dir", str(state), "--export", "1"]) == 2
    out, err = capsys.readouterr()
    assert [json.loads(line) for line in out.splitlines()] == events[:3] + events[4:]
    assert f"unreadable, left out: match 1 event {seq}: not UTF-8" in err


@pytest.mark.slow
def test_history_export_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # regression: `referee history --export N | head` printed a BrokenPipeError traceback
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-4", {})
        for i in range(3000):  # more than a pipe holds
            store.append(match, {"event": "play", "seat": "N", "i": i, "pad": "x" * 40}, [])
    proc = subprocess.Popen([sys.executable, "-m", "referee", "history", "--state-dir", str(tmp_path), "--export", "1"],
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["i"] == 0
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == b""
