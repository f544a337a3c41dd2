"""Belotta golden games: ``tests/data/rules/belotta/<case>.events.jsonl`` -> exact calls.

Regenerate after a deliberate rules change with
``REFEREE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/rules/test_belotta_golden.py`` and review the diff.
Cases: ``irregular`` (hand-made hands: via order and round errors, declarations of every kind
and one invalid, a misread undone, the turned card played by another seat, a revoke proven by
a declared card, the deal scored with declarations); ``redeal-turned-jack`` (rule 1e, then a
random legal deal by the next dealer); ``match-to-41`` (dealer draw, random legal deals to
``match_end`` with option ``target``); ``false-declaration`` (rule 3f: a revoke proven only by a
declaration that S's play voids is withdrawn, the undo of that play calls it again).
"""

from __future__ import annotations

import pytest
from golden import GoldenSet

GOLDEN = GoldenSet("belotta")
CASES = GOLDEN.cases
replay = GOLDEN.replay


@pytest.mark.parametrize("case", CASES)
def test_golden_game(case: str) -> None:
    GOLDEN.check(case)


def test_golden_cases_exist() -> None:
    assert {"irregular", "redeal-turned-jack", "match-to-41", "false-declaration"} <= set(CASES)


def test_false_declaration_withdraws_the_revoke_it_proved() -> None:
    calls, rejected = replay("false-declaration")
    assert rejected == 0
    told = [(c["call"], c.get("rule")) for c in calls if c["call"] in ("violation", "withdrawn", "undo")]
    assert told == [
        ("violation", "revoke"),
        ("violation", "false_declaration"), ("withdrawn", "revoke"),
        ("undo", None), ("withdrawn", "false_declaration"), ("violation", "revoke"),
        ("violation", "false_declaration"), ("withdrawn", "revoke"),
    ]


def test_irregular_game_reports_what_was_wrong() -> None:
    calls, rejected = replay("irregular")
    assert rejected == 4
    rules = [(c["seat"], c["rule"], c["trick"]) for c in calls if c["call"] == "violation"]
    assert rules == [("S", "revoke", 1), ("E", "duplicate_card", 1), ("W", "revoke", 5)]
    end = calls[-1]
    assert end["call"] == "deal_end" and end["outcome"] == "made"
    assert end["raw"] == {"N+S": 152 + 20, "W+E": 10 + 150}


def test_match_golden_ends_at_the_target() -> None:
    calls, rejected = replay("match-to-41")
    assert rejected == 0 and calls[-1]["call"] == "match_end"
    assert max(calls[-1]["score"].values()) >= 41
