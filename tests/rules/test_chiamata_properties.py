"""Briscola chiamata random playouts: cards conserved, 120 points, zero-sum credits, the partner
revealed once, and every injected irregular play reported without changing the result."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import ITALIAN_40
from referee.rules import Referee
from referee.rules.playout import random_deal_events, random_match_events

GAME = "briscola-chiamata"
SEATS = ("A", "B", "C", "D", "E")

options_st = st.fixed_dictionaries(
    {},
    optional={
        "auction": st.sampled_from(["any", "card", "points"]),
        "multiplier_needs_two": st.booleans(),
        "multiplier_on_loss": st.booleans(),
        "forfait_dealer": st.sampled_from(["next", "same"]),
    },
)


def run(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ref = Referee()
    return [c.to_dict() for e in events for c in ref.apply(e)]


def of(kind: str, dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in dicts if d["call"] == kind]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), options=options_st)
def test_random_deal_conserves_cards_points_and_credits(seed: int, options: dict[str, Any]) -> None:
    events = random_deal_events(GAME, seed, SEATS, options or None)
    calls = run(events)
    end = calls[-1]
    assert end["call"] == "deal_end"
    assert sum(end["credits"].values()) == 0
    assert set(end["credits"]) == set(SEATS)
    if end.get("void"):
        assert not [e for e in events if e["event"] == "play"]
        return
    played = [e["card"] for e in events if e["event"] == "play"]
    assert sorted(played) == sorted(ITALIAN_40.codes)  # every card exactly once
    assert sum(end["points"].values()) == 120
    assert sum(t["points"] for t in of("trick", calls)) == 120
    (contract,) = [e for e in events if e["event"] == "contract"]
    (partner,) = of("partner", calls)
    holder = next(
        e["seat"] for e in events if e["event"] == "play" and e["card"] == contract["called"]
    )
    assert partner["seat"] == holder == end["partner"]
    callers = "+".join(s for s in SEATS if s in (contract["seat"], holder))
    assert (end["winner"] == callers) == (end["points"][callers] >= end["target"])
    assert (end["credits"][contract["seat"]] > 0) == (end["winner"] == callers)
    assert end["cappotto"] == (end["points"][callers] in (0, 120))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), deals=st.integers(1, 6))
def test_random_match_keeps_zero_sum_credits_and_ends_after_the_set_deals(
    seed: int, deals: int
) -> None:
    events = random_match_events(GAME, seed, SEATS, {"deals": deals})
    calls = run(events)
    ends = of("deal_end", calls)
    played = [e for e in ends if not e.get("void")]
    assert len(played) == deals
    final = calls[-1]
    assert final["call"] == "match_end" and final["deals"] == deals
    assert sum(final["score"].values()) == 0
    totals = dict.fromkeys(SEATS, 0)
    for e in played:
        for seat, n in e["credits"].items():
            totals[seat] += n
    assert final["score"] == totals


def _legal(seed: int) -> list[dict[str, Any]]:
    events = random_deal_events(GAME, seed, SEATS)
    while not [e for e in events if e["event"] == "play"]:  # a forfait: take the next seed
        seed += 1
        events = random_deal_events(GAME, seed, SEATS)
    return events


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), where=st.integers(0, 10**6))
def test_swapped_plays_are_reported_out_of_turn_and_change_nothing(seed: int, where: int) -> None:
    events = _legal(seed)
    legal_calls = run(events)
    first = next(i for i, e in enumerate(events) if e["event"] == "play")
    # Swap two plays inside one trick, never the lead (it sets the led suit).
    trick, pos = divmod(where % (8 * 4), 4)
    i = first + trick * 5 + 1 + pos
    j = i + 1 if pos < 3 else i - 1
    i, j = min(i, j), max(i, j)
    swapped = [*events[:i], events[j], events[i], *events[j + 1 :]]
    calls = run(swapped)
    violations = of("violation", calls)
    assert [(v["seat"], v["rule"], v["trick"], v["expected"]) for v in violations] == [
        (events[j]["seat"], "out_of_turn", trick + 1, events[i]["seat"])
    ]
    assert calls[-1] == legal_calls[-1]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), at=st.integers(0, 10**6), kind=st.sampled_from(["dup", "bad"]))
def test_injected_duplicate_or_bad_card_is_reported_and_not_recorded(
    seed: int, at: int, kind: str
) -> None:
    events = _legal(seed)
    legal_calls = run(events)
    plays = [i for i, e in enumerate(events) if e["event"] == "play"]
    k = 1 + at % (len(plays) - 1)
    i = plays[k]
    seat = events[i]["seat"]  # the seat whose turn it is: only the card is wrong
    card = events[plays[random.Random(at).randrange(k)]]["card"] if kind == "dup" else "AS"
    injected = [*events[:i], {"event": "play", "seat": seat, "card": card}, *events[i:]]
    calls = run(injected)
    violations = of("violation", calls)
    rule = "duplicate_card" if kind == "dup" else "bad_card"
    assert [(v["seat"], v["rule"], v["card"]) for v in violations] == [(seat, rule, card)]
    assert calls[-1] == legal_calls[-1]
