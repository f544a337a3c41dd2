"""One writer per record and the source's position in the record (``referee run``)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from box.helpers import write_jsonl
from referee.box.record_lock import LOCK_NAME, RecordLock, RecordLocked
from referee.box.run import EXIT_INPUT, EXIT_LOCKED
from referee.box.state import MatchStore
from referee.cli import main
from referee.paths import REPO_ROOT
from referee.replay import replay_lines
from referee.rules.playout import random_match_events

CONFIG = REPO_ROOT / "hardware" / "config.toml"


def _run(log: Path, state: Path, *extra: str) -> int:
    return main(["run", "--config", str(CONFIG), "--events", str(log), "--pace", "0",
                 "--no-hardware", "--state-dir", str(state), *extra])


def _replayed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    replay_lines([json.dumps(e) for e in events], calls.append)
    return calls


# -- one writer per record -------------------------------------------------------------------

def test_a_second_run_on_the_same_record_is_refused_naming_the_holder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_jsonl(tmp_path / "m.jsonl", random_match_events("briscola-4", seed=5))
    state = tmp_path / "state"
    with RecordLock.acquire(state):  # another `referee run` holds the record
        assert _run(log, state) == EXIT_LOCKED
        err = capsys.readouterr().err
        assert f"pid {os.getpid()}, started " in err and "in use by another `referee run`" in err
        assert not (state / "matches.sqlite").exists()  # the refused run touched nothing
    assert _run(log, state) == 0  # the holder is gone: the lock went with it
    with MatchStore.open(state) as store:
        assert [m.events for m in store.matches()] == [len(random_match_events("briscola-4", seed=5))]


def test_the_lock_goes_with_a_killed_holder(tmp_path: Path) -> None:
    state = tmp_path / "state"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from referee.box.record_lock import RecordLock; RecordLock.acquire(Path(sys.argv[1])); "
         "print('held', flush=True); time.sleep(60)", str(state)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RecordLocked, match=f"pid {holder.pid}, started "):
            RecordLock.acquire(state)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    with RecordLock.acquire(state) as lock:  # kill -9 leaves the file, never the lock
        assert (state / LOCK_NAME).read_text().startswith(f"pid {os.getpid()}")
        assert lock.fd >= 0


def test_append_takes_its_sequence_inside_the_insert_transaction(tmp_path: Path) -> None:
    # regression: two writers read MAX(seq) outside the transaction, so one of them collided
    # (or, with another key, interleaved); each step must still get a whole, unique range
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-4", {})
    errors: list[BaseException] = []

    def write(seat: str) -> None:
        try:
            with MatchStore.open(tmp_path) as store:
                for i in range(60):
                    store.append(match, {"event": "play", "seat": seat, "i": i}, [{"call": "turn", "seat": seat}])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(seat,)) for seat in ("N", "S")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with MatchStore.open(tmp_path) as store:
        steps = store.steps(match)
        assert len(steps) == 120
        assert all(calls == [{"call": "turn", "seat": event["seat"]}] for event, calls in steps)
        assert [r.seq for r in store.records(match)] == list(range(1, 241))


# -- the source's position -------------------------------------------------------------------

def test_a_log_read_to_its_end_is_not_refereed_again_after_a_restart(tmp_path: Path) -> None:
    events = random_match_events("briscola-4", seed=7)
    log = write_jsonl(tmp_path / "m.jsonl", events)
    state = tmp_path / "state"
    assert _run(log, state) == 0
    assert _run(log, state) == 0  # a reboot, a rerun: nothing new to referee
    with MatchStore.open(state) as store:
        (match,) = store.matches()
        assert store.events(match.id) == events and store.calls(match.id) == _replayed(events)


def test_a_kill_right_after_match_end_does_not_start_the_log_again(tmp_path: Path) -> None:
    # regression: a kill after match_end's commit but before the input was seen to end left
    # no unfinished match, so the restart refereed the whole log again as a new match
    events = random_match_events("briscola-4", seed=8)
    log = write_jsonl(tmp_path / "m.jsonl", events)
    state = tmp_path / "state"
    assert _run(log, state) == 0
    with sqlite3.connect(state / "matches.sqlite") as conn:  # as the kill would have left it
        conn.execute("UPDATE sources SET finished = NULL")
    assert _run(log, state) == 0
    with MatchStore.open(state) as store:
        assert [(m.events, m.ended is not None) for m in store.matches()] == [(len(events), True)]


def test_lines_added_to_a_finished_log_are_refereed_as_the_next_match(tmp_path: Path) -> None:
    first, second = random_match_events("briscola-4", seed=9), random_match_events("briscola-4", seed=10)
    log = write_jsonl(tmp_path / "m.jsonl", first)
    state = tmp_path / "state"
    assert _run(log, state) == 0
    with log.open("a") as f:
        f.write("".join(json.dumps(e) + "\n" for e in second))
    assert _run(log, state) == 0
    with MatchStore.open(state) as store:
        one, two = store.matches()
        assert store.events(one.id) == first and store.events(two.id) == second
        assert store.calls(two.id) == _replayed(second)


def test_another_log_on_an_unfinished_match_is_refused_unless_a_new_match_is_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: pointing `run` at another log silently skipped that log's first N lines
    events_a = random_match_events("briscola-4", seed=11)
    events_b = random_match_events("briscola-4", seed=12)
    log_a = write_jsonl(tmp_path / "a.jsonl", events_a[:20])  # the match is left unfinished
    log_b = write_jsonl(tmp_path / "b.jsonl", events_b)
    state = tmp_path / "state"
    assert _run(log_a, state) == 0
    capsys.readouterr()
    assert _run(log_b, state) == EXIT_INPUT
    err = capsys.readouterr().err
    assert f"match 1 of briscola-4 is unfinished and was refereed from events:{log_a.resolve()}" in err
    assert f"this run reads events:{log_b.resolve()}" in err and "--new-match" in err
    with MatchStore.open(state) as store:
        assert [m.events for m in store.matches()] == [20]
    assert _run(log_b, state, "--new-match") == 0
    with MatchStore.open(state) as store:
        one, two = store.matches()
        assert one.events == 20 and one.ended is not None  # kept, set aside
        assert store.events(two.id) == events_b  # from b's first line, none skipped
        assert store.previous_match("briscola-4", two.id) is None  # an undo never reopens it


def test_the_same_path_rewritten_with_another_match_is_another_source(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_jsonl(tmp_path / "m.jsonl", random_match_events("briscola-4", seed=13)[:15])
    state = tmp_path / "state"
    assert _run(log, state) == 0
    write_jsonl(log, random_match_events("briscola-4", seed=14))
    capsys.readouterr()
    assert _run(log, state) == EXIT_INPUT
    assert "a different file at the same path" in capsys.readouterr().err


def test_run_without_picamera2_suggests_a_config_key_not_a_flag_it_lacks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: `referee run` suggested `--source 0`, an option only `referee watch` has
    pytest.importorskip("cv2")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("picamera2 is installed here")
    config = tmp_path / "box.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n')
    assert main(["run", "--config", str(config), "--no-hardware"]) == EXIT_INPUT
    assert 'camera.source = "usb:0" in the config of `referee run`' in capsys.readouterr().err


def test_a_record_from_before_sources_were_kept_resumes_where_it_was(tmp_path: Path) -> None:
    events = random_match_events("briscola-4", seed=15)
    log = write_jsonl(tmp_path / "m.jsonl", events)
    state = tmp_path / "state"
    state.mkdir()
    with sqlite3.connect(state / "matches.sqlite") as conn:  # the first release's schema
        conn.executescript(
            "CREATE TABLE matches (id INTEGER PRIMARY KEY, started REAL NOT NULL, game TEXT NOT NULL,"
            " config TEXT NOT NULL, ended REAL);"
            "CREATE TABLE records (match_id INTEGER NOT NULL, seq INTEGER NOT NULL, t REAL NOT NULL,"
            " kind TEXT NOT NULL, body TEXT NOT NULL, source_pos INTEGER, PRIMARY KEY (match_id, seq));"
            "INSERT INTO matches VALUES (1, 0, 'briscola-4', '{}', NULL);")
        for line, event in enumerate(events[:10], start=1):
            conn.execute("INSERT INTO records VALUES (1, ?, 0, 'event', ?, ?)", (line, json.dumps(event), line))
    assert _run(log, state) == 0
    with MatchStore.open(state) as store:
        (match,) = store.matches()
        assert store.events(match.id) == events and match.ended is not None
        assert store.match_source(match.id) is None  # not invented after the fact
