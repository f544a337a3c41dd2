"""``referee replay``: golden games (events -> exact calls) and bad input handling.

Regenerate the expected calls after a deliberate rules change with
``REFEREE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/rules/test_replay.py`` and review the diff.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from golden import GoldenSet

from referee.cli import main
from referee.cli.replay import EXIT_BROKEN_PIPE
from referee.replay import replay_lines

GOLDEN = GoldenSet("briscola")
CASES = GOLDEN.cases


def replay(lines: list[bytes] | list[str]) -> tuple[list[dict[str, Any]], int]:
    out: list[dict[str, Any]] = []
    rejected = replay_lines(lines, out.append)
    return out, rejected


@pytest.mark.parametrize("case", CASES)
def test_golden_game(case: str) -> None:
    GOLDEN.check(case)


def test_golden_cases_exist() -> None:
    assert {"irregular-4", "match-4", "tie-last-trick", "heads-up-tie-replay"} <= set(CASES)


def test_golden_match_ends_with_match_end_and_120_per_deal() -> None:
    events = (GOLDEN.dir / "match-4.events.jsonl").read_text().splitlines()
    calls, rejected = replay(events)
    ends = [c for c in calls if c["call"] == "deal_end"]
    assert rejected == 0 and calls[-1]["call"] == "match_end"
    assert all(sum(e["points"].values()) == 120 for e in ends)
    assert max(calls[-1]["score"].values()) == 2


def test_error_lines_name_the_line_and_processing_continues() -> None:
    lines = [
        '{"event":"deal","game":"briscola-2","seats":["N","S"],"dealer":"S","trump_card":"coppe_1"}',
        "{not json",
        '{"event":"play","seat":"N","card":"spade_1"}',
        "",
        '{"event":"play","seat":"Z","card":"spade_2"}',
        '{"event":"play","seat":"S","card":"spade_3"}',
    ]
    calls, rejected = replay(lines)
    assert rejected == 2
    errors = [c for c in calls if c["call"] == "error"]
    assert [e["line"] for e in errors] == [2, 5]
    assert "malformed JSON" in errors[0]["detail"] and "'Z'" in errors[1]["detail"]
    assert calls[-2] == {
        "call": "trick",
        "number": 1,
        "winner": "N",
        "cards": [["N", "spade_1"], ["S", "spade_3"]],
        "points": 21,
    }


def test_invalid_utf8_line_is_an_error_line() -> None:
    calls, rejected = replay([b"\xff\xfe\n", b'{"event":"undo"}\n'])
    assert rejected == 2 and calls[0] == {"call": "error", "line": 1, "detail": calls[0]["detail"]}
    assert "no deal" in calls[1]["detail"]


def test_cli_exit_status_and_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    clean = GOLDEN.dir / "tie-last-trick.events.jsonl"
    assert main(["replay", str(clean)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out[-1]["call"] == "deal_end" and out[-1]["winner"] == "W+E"
    assert main(["replay", str(GOLDEN.dir / "irregular-4.events.jsonl")]) == 2
    captured = capsys.readouterr()
    assert '"call": "error", "line": 3' in captured.out and "7 line(s)" in captured.err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_cli_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (GOLDEN.dir / "tie-last-trick.events.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["replay", "-"]) == 0
    assert capsys.readouterr().out.count('"call": "trick"') == 10


def test_cli_stops_quietly_when_the_reader_closes_stdout(tmp_path: Path) -> None:
    # regression: `referee replay FILE | head` printed "cannot read FILE: Broken pipe"
    log = tmp_path / "long.jsonl"
    one = (GOLDEN.dir / "match-4.events.jsonl").read_text()
    log.write_text(one * 40)  # ~1 MB of calls: far more than a pipe buffer
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "replay", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["call"] in {"dealer", "redraw", "turn"}
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == EXIT_BROKEN_PIPE
    assert err == b""


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted() -> None:
    # regression: a log saved with a UTF-8 BOM lost its first line (the deal) as malformed JSON
    deal = (
        '{"event":"deal","game":"briscola-2","seats":["N","S"],"dealer":"S",'
        '"trump_card":"coppe_1"}'
    )
    play = '{"event":"play","seat":"N","card":"spade_1"}'
    calls, rejected = replay(["\ufeff" + deal + "\r\n", play + "\r\n"])
    assert rejected == 0 and calls == [
        {"call": "turn", "seat": "N"},
        {"call": "turn", "seat": "S"},
    ]
    calls, rejected = replay([("\ufeff" + deal + "\r\n").encode()])
    assert rejected == 0 and calls == [{"call": "turn", "seat": "N"}]


def test_non_json_constants_and_deep_nesting_are_error_lines() -> None:
    # regression: NaN slipped into options (move_timer_s NaN passed the "positive" check) and
    # a deeply nested line crashed the replay with RecursionError
    deal = (
        '{"event":"deal","game":"briscola-2","seats":["N","S"],"dealer":"S",'
        '"trump_card":"coppe_1","options":{"move_timer_s":NaN}}'
    )
    calls, rejected = replay([deal, "[" * 30_000 + "]" * 30_000, '{"event":"undo"}'])
    assert rejected == 3 and [c["line"] for c in calls] == [1, 2, 3]
    assert "NaN is not valid JSON" in calls[0]["detail"]
    assert calls[1]["detail"] == "malformed JSON: nested too deeply"
