"""Binocolo golden games: events -> exact calls through ``referee replay``'s line reader.

Regenerate the expected calls after a deliberate rules change with
``REFEREE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/rules/test_binocolo_golden.py`` and review
the diff.  Besides the exact comparison, each game's key facts are asserted here, so a
regenerated golden that breaks a rule still fails.
"""

from __future__ import annotations

from collections import Counter

import pytest
from golden import GoldenSet

GOLDEN = GoldenSet("binocolo")
CASES = GOLDEN.cases
replay = GOLDEN.replay


@pytest.mark.parametrize("case", CASES)
def test_golden_game(case: str) -> None:
    GOLDEN.check(case)


def test_golden_cases_exist() -> None:
    assert set(CASES) == {"deal-4", "match-3-to-40", "irregular", "false-meld"}


def test_golden_false_meld_withdraws_the_revoke_it_proved() -> None:
    """W's coppia KH QH "proves" W's revoke at once; E's KH (both kings elsewhere) shows the
    meld false: the revoke is withdrawn; the undo of E's KH calls it again, and the same KH
    read again withdraws it again."""
    calls, rejected = replay("false-meld")
    assert rejected == 0
    told = [(c["call"], c.get("rule"), c.get("reason")) for c in calls if c["call"] in ("violation", "withdrawn", "undo")]
    assert told == [
        ("violation", "revoke", None),
        ("violation", "false_meld", None), ("withdrawn", "revoke", "false_meld"),
        ("undo", None, None), ("withdrawn", "false_meld", "undo"), ("violation", "revoke", None),
        ("violation", "false_meld", None), ("withdrawn", "revoke", "false_meld"),
    ]


def test_golden_deal_4_idle_defender_melds_do_not_count() -> None:
    calls, rejected = replay("deal-4")
    end = calls[-1]
    assert rejected == 0 and end["call"] == "deal_end" and not end["bestia"]
    assert sum(end["card_points"].values()) == 25
    idle = [s for s, n in end["tricks"].items() if n == 0]
    assert idle and all(not m["counted"] for m in end["melds"] if m["seat"] in idle)
    assert all(m["counted"] for m in end["melds"] if m["seat"] not in idle)


def test_golden_match_3_reaches_the_target_with_individual_scores() -> None:
    calls, rejected = replay("match-3-to-40")
    assert rejected == 0
    ends = [c for c in calls if c["call"] == "deal_end"]
    assert len([c for c in calls if c["call"] == "trick"]) == 15 * len(ends)
    totals: Counter[str] = Counter()
    for end in ends:
        totals.update(end["delta"])
    match = calls[-1]
    assert match["call"] == "match_end" and dict(totals) == match["score"]
    assert match["score"][match["winner"]] >= 40
    assert any(end["bestia"] for end in ends)


def test_golden_irregular_reports_each_fault() -> None:
    calls, rejected = replay("irregular")
    errors = [c["line"] for c in calls if c["call"] == "error"]
    assert errors == [2, 3, 4, 5, 7, 9, 10, 64] and rejected == len(errors)
    rules = [(c["rule"], c["trick"]) for c in calls if c["call"] == "violation"]
    assert rules == [("bad_card", 1), ("revoke", 2), ("duplicate_card", 3)]
    assert [c["call"] for c in calls].count("undo") == 1
    assert [c["call"] for c in calls].count("deal_end") == 1
