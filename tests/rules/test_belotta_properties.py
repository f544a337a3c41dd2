"""Random-playout properties of belotta: cards conserved, point totals, legal games clean,
every injected illegal play reported with its trick."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from injection import Injected
from injection import injected_deal as inject

from referee.cards import FRENCH_32, parse_card
from referee.rules.playout import random_deal_events
from referee.rules.referee import Referee

SEATS = ("N", "W", "S", "E")
OBLIGATIONS = {"revoke", "must_trump", "must_overtrump"}
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def replay(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ref = Referee()
    return [c.to_dict() for e in events for c in ref.apply(e)]


@settings(max_examples=120, deadline=None)
@given(seed=seeds, undertrump=st.booleans())
@example(seed=276207, undertrump=False)  # a tie where the caller's declarations go to the pot
def test_random_legal_deal_conserves_cards_and_points(seed: int, undertrump: bool) -> None:
    options = {"must_undertrump": True} if undertrump else None
    events = random_deal_events("belotta", seed, SEATS, options)  # strict: no violation
    calls = replay(events)
    assert not [c for c in calls if c["call"] in ("violation", "error")]
    played = [parse_card(e["card"]) for e in events if e["event"] == "play"]
    assert Counter(played) == Counter(FRENCH_32.faces)  # every card once
    tricks = [c for c in calls if c["call"] == "trick"]
    assert len(tricks) == 8
    end = next(c for c in calls if c["call"] == "deal_end")
    cards_total = 252 if end["outcome"] == "cappotto" else 162
    assert sum(t["points"] for t in tricks) == sum(end["points"].values()) == cards_total
    declared = sum(d["points"] for d in end["declarations"] if d["valid"])
    # everything in the deal ends written for a team, or in play for the next deal (4b)
    assert end["pot_in"] == 0
    assert sum(end["raw"].values()) + end["pot"] == cards_total + declared
    for team, raw in end["raw"].items():
        assert end["score"][team] == (raw + 5) // 10


def injected_deal(seed: int) -> Injected | None:
    """A random deal where one seat plays one illegal card (if the deal gives a chance)."""
    return inject("belotta", seed, SEATS, "E")


@settings(max_examples=150, deadline=None)
@given(seed=seeds)
def test_every_injected_illegal_play_is_reported(seed: int) -> None:
    got = injected_deal(seed)
    if got is None:
        return
    (seat, trick, card), calls = got
    found = [c.to_dict() for c in calls if c.call == "violation"]
    assert len(found) == 1, found
    v = found[0]
    assert (v["seat"], v["trick"], v["card"]) == (seat, trick, card.code)
    assert v["rule"] in OBLIGATIONS
    assert any(c.call == "deal_end" for c in calls)


def test_injection_actually_happens() -> None:
    assert sum(injected_deal(seed) is not None for seed in range(40)) >= 10
