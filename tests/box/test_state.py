"""The SQLite match record: whole steps only, resume, and clear errors on full/read-only disks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.box.state import MatchStore, StateError

PLAY = {"event": "play", "seat": "N", "card": "coppe_3"}
CALLS = [{"call": "turn", "seat": "W"}]


def test_event_and_calls_are_recorded_in_order_with_source_position(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-4", {"seats": ["N", "W", "S", "E"]})
        store.append(match, {"event": "deal"}, [{"call": "turn", "seat": "N"}], source_pos=1)
        store.append(match, PLAY, CALLS, source_pos=2)
        assert store.events(match) == [{"event": "deal"}, PLAY]
        assert store.calls(match) == [{"call": "turn", "seat": "N"}, *CALLS]
        assert [r.kind for r in store.records(match)] == ["event", "call", "event", "call"]
        assert store.last_source_pos(match) == 2
        assert store.match_config(match) == {"seats": ["N", "W", "S", "E"]}


def test_database_is_in_wal_mode(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_current_match_is_the_newest_unfinished_one(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        first = store.begin_match("briscola-4", {})
        second = store.begin_match("belotta", {})
        assert store.current_match() == second
        assert store.current_match("briscola-4") == first
        store.end_match(second)
        assert store.current_match() == first
        infos = store.matches()
        assert [(m.id, m.game, m.ended is not None) for m in infos] == [
            (first, "briscola-4", False),
            (second, "belotta", True),
        ]


def test_reopening_sees_every_committed_step(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-2", {})
        store.append(match, PLAY, CALLS, source_pos=7)
    # no close() of a second writer needed: a fresh connection reads the WAL
    with MatchStore.open(tmp_path) as again:
        assert again.current_match() == match
        assert again.events(match) == [PLAY]
        assert again.integrity_ok()


def test_full_disk_is_a_clear_error_and_leaves_whole_steps(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-4", {})
        store.append(match, PLAY, CALLS, source_pos=1)
    pages = sqlite3.connect(tmp_path / "matches.sqlite").execute("PRAGMA page_count").fetchone()[0]
    with MatchStore.open(tmp_path, max_pages=pages) as full:
        big_calls = [{"call": "violation", "detail": "x" * 3000}] * 20  # needs new pages
        with pytest.raises(StateError, match=r"matches\.sqlite: cannot write the match record \(disk full\)"):
            full.append(match, PLAY, big_calls, source_pos=2)
    with MatchStore.open(tmp_path) as store:
        assert store.integrity_ok()
        assert store.events(match) == [PLAY]  # the failed step left nothing behind
        assert store.calls(match) == CALLS
        assert store.last_source_pos(match) == 1


def test_read_only_state_is_a_clear_error_and_no_corruption(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-4", {})
        store.append(match, PLAY, CALLS, source_pos=1)
    with MatchStore.open(tmp_path, read_only=True) as ro:
        assert ro.events(match) == [PLAY]
        with pytest.raises(StateError, match=r"state directory is read-only"):
            ro.append(match, PLAY, CALLS, source_pos=2)
    with MatchStore.open(tmp_path) as store:
        assert store.integrity_ok() and store.events(match) == [PLAY]


def test_state_dir_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("not a folder")
    with pytest.raises(StateError, match=r"state/matches\.sqlite: cannot open the match record"):
        MatchStore.open(blocker)


def test_unknown_match_is_an_error(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store, pytest.raises(StateError, match="no match 9"):
        store.match_config(9)


def test_match_end_is_committed_with_its_call(tmp_path: Path) -> None:
    with MatchStore.open(tmp_path) as store:
        match = store.begin_match("briscola-2", {})
        store.append(match, PLAY, [{"call": "match_end", "winner": "N", "score": {}}], ends_match=True)
        assert store.current_match() is None
        assert store.matches()[0].ended is not None


def test_answers_are_kept_apart_from_the_events_and_old_records_have_none(tmp_path: Path) -> None:
    """A record written before answers were kept (no answers table) reads as no answers
    read-only, and gains the table when the box opens it to write."""
    old = tmp_path / "old"
    with MatchStore.open(old) as store:
        match = store.begin_match("briscola-4", {})
        store.append(match, PLAY, CALLS)
        store.conn.execute("DROP TABLE answers")
    with MatchStore.open(old, read_only=True) as store:
        assert store.answers(match) == []
    with MatchStore.open(old) as store:
        store.append_answer(match, {"answer": "no_play", "seat": "W"})
        assert store.answers(match) == [{"answer": "no_play", "seat": "W"}]
        assert store.events(match) == [PLAY]  # what `referee replay` gets is unchanged
