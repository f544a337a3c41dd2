"""Briscola chiamata golden games: ``tests/data/rules/chiamata/<case>.events.jsonl`` -> exact calls.

Regenerate after a deliberate rules change with
``REFEREE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/rules/test_chiamata_golden.py`` and review the
diff.  Cases: ``irregular`` (a play before the contract, a bad contract, malformed JSON, a
forfait after the contract, out of turn, duplicate, bad card, a misread undone, the partner
revealed, an 8-trick cappotto); ``forfait-then-in-mano`` (a forfait refused for a hand worth
points, a valid one, then a chiamata in mano by the next dealer ending a one-deal match);
``match-5`` (random legal deals to ``match_end`` with the default five deals).
"""

from __future__ import annotations

import pytest
from golden import GoldenSet

GOLDEN = GoldenSet("chiamata")
CASES = GOLDEN.cases
replay = GOLDEN.replay


@pytest.mark.parametrize("case", CASES)
def test_golden_game(case: str) -> None:
    GOLDEN.check(case)


def test_golden_cases_exist() -> None:
    assert {"irregular", "forfait-then-in-mano", "match-5"} <= set(CASES)


def test_irregular_game_reports_what_was_wrong() -> None:
    calls, rejected = replay("irregular")
    assert rejected == 4
    assert [c["line"] for c in calls if c["call"] == "error"] == [2, 3, 4, 6]
    violations = [(c["seat"], c["rule"], c["trick"]) for c in calls if c["call"] == "violation"]
    assert violations == [("C", "out_of_turn", 1), ("B", "duplicate_card", 1), ("B", "bad_card", 1)]
    assert [c["seat"] for c in calls if c["call"] == "partner"] == ["B"]
    end = calls[-1]
    assert end["call"] == "deal_end" and end["points"] == {"A+B": 120, "C+D+E": 0}
    assert end["credits"] == {"A": 4, "B": 2, "C": -2, "D": -2, "E": -2}


def test_forfait_then_in_mano_ends_a_one_deal_match() -> None:
    calls, rejected = replay("forfait-then-in-mano")
    assert rejected == 1
    kinds = [c["call"] for c in calls if c["call"] not in ("turn", "trick")]
    assert kinds == ["error", "forfait", "deal_end", "contract", "partner", "deal_end", "match_end"]
    assert calls[-1]["score"] == {"A": -2, "B": 8, "C": -2, "D": -2, "E": -2}
    assert calls[-1]["winner"] == "B"


def test_match_golden_has_five_scored_deals_and_zero_sum_score() -> None:
    calls, rejected = replay("match-5")
    assert rejected == 0 and calls[-1]["call"] == "match_end"
    assert calls[-1]["deals"] == 5 and sum(calls[-1]["score"].values()) == 0
