"""Random-playout properties of binocolo: cards conserved, 25 points a deal, scores add up,
legal games clean, every injected illegal play and false meld reported."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from injection import Injected
from injection import injected_deal as inject

from referee.cards import BINOCOLO_48, parse_card
from referee.rules.games.binocolo_rules import card_points
from referee.rules.playout import random_deal_events, random_match_events
from referee.rules.referee import Referee

SEATS = {3: ("N", "W", "E"), 4: ("N", "W", "S", "E")}
OBLIGATIONS = {"revoke", "must_trump", "must_overtrump"}
seeds = st.integers(min_value=0, max_value=2**32 - 1)
options = st.fixed_dictionaries(
    {},
    optional={
        "card_order": st.sampled_from(["A10KQJ9", "AKQJ109"]),
        "overtrump": st.sampled_from(["trump_led", "any_trump"]),
        "bestia": st.sampled_from(["bid", "shortfall"]),
        "declarer_scores": st.sampled_from(["made", "bid"]),
        "scala": st.sampled_from(["any_suit", "trump"]),
        "meld_reuse": st.sampled_from(["across_kinds", "never"]),
    },
)


def replay(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ref = Referee()
    return [c.to_dict() for e in events for c in ref.apply(e)]


@settings(max_examples=80, deadline=None)
@given(seed=seeds, players=st.sampled_from([3, 4]), opts=options)
def test_random_legal_deal_conserves_cards_and_25_points(
    seed: int, players: int, opts: dict[str, Any]
) -> None:
    events = random_deal_events("binocolo", seed, SEATS[players], opts or None)  # strict
    calls = replay(events)
    assert not [c for c in calls if c["call"] in ("violation", "error")]
    played = [parse_card(e["card"]) for e in events if e["event"] == "play"]
    [discard] = [[parse_card(c) for c in e["cards"]] for e in events if e["event"] == "discard"]
    assert Counter(played + discard) == Counter(BINOCOLO_48)  # every card twice
    tricks = [c for c in calls if c["call"] == "trick"]
    assert len(tricks) == {3: 15, 4: 11}[players]
    end = calls[-1]
    assert end["call"] == "deal_end"
    assert sum(t["points"] for t in tricks) + sum(map(card_points, discard)) == 25
    assert sum(end["card_points"].values()) == 25
    counted: Counter[str] = Counter()
    for m in end["melds"]:
        if m["counted"]:
            counted[m["seat"]] += m["points"]
    declarer = end["declarer"]
    for seat in SEATS[players]:
        assert end["meld_points"][seat] == counted[seat]
        assert end["points"][seat] == end["card_points"][seat] + end["meld_points"][seat]
        if seat != declarer:
            assert end["delta"][seat] == end["points"][seat]
            if end["tricks"][seat] == 0:
                assert end["meld_points"][seat] == 0
    assert end["made"] == end["points"][declarer]
    assert end["bestia"] == (end["made"] < end["bid"])
    if end["bestia"]:
        lost = end["bid"] if opts.get("bestia", "bid") == "bid" else end["bid"] - end["made"]
        assert end["delta"][declarer] == -lost
    else:
        won = end["made"] if opts.get("declarer_scores", "made") == "made" else end["bid"]
        assert end["delta"][declarer] == won


@settings(max_examples=10, deadline=None)
@given(seed=seeds, players=st.sampled_from([3, 4]))
def test_match_score_is_the_sum_of_the_deals(seed: int, players: int) -> None:
    calls = replay(random_match_events("binocolo", seed, SEATS[players]))
    totals: Counter[str] = Counter()
    for c in calls:
        if c["call"] == "deal_end":
            totals.update(c["delta"])
    end = calls[-1]
    assert end["call"] == "match_end"
    assert {s: totals[s] for s in SEATS[players]} == end["score"]
    assert end["score"][end["winner"]] >= 100


def injected_deal(seed: int, players: int) -> Injected | None:
    """A random deal where one seat plays one illegal card (if the deal gives a chance)."""
    return inject("binocolo", seed, SEATS[players], SEATS[players][-1])


@settings(max_examples=120, deadline=None)
@given(seed=seeds, players=st.sampled_from([3, 4]))
def test_every_injected_illegal_play_is_reported(seed: int, players: int) -> None:
    got = injected_deal(seed, players)
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
    assert sum(injected_deal(seed, 4) is not None for seed in range(40)) >= 10


def false_meld_deal(seed: int, pick: int) -> tuple[str, list[dict[str, Any]]] | None:
    """A random deal without melds, plus a nine of trumps melded by a seat that never plays one."""
    events = [e for e in random_deal_events("binocolo", seed) if e["event"] != "declare"]
    discard_at = next(i for i, e in enumerate(events) if e["event"] == "discard")
    trump = next(e for e in events if e["event"] == "contract")["trump"]
    nine = f"9{trump}"
    if events[discard_at]["cards"].count(nine) == 2:
        return None  # both nines discarded: the meld book would refuse the lie outright
    liars = [s for s in SEATS[4] if {"event": "play", "seat": s, "card": nine} not in events]
    if not liars:
        return None
    liar = liars[pick % len(liars)]
    lie = {"event": "declare", "seat": liar, "cards": [nine]}
    return liar, [*events[: discard_at + 1], lie, *events[discard_at + 1 :]]


@settings(max_examples=40, deadline=None)
@given(seed=seeds, pick=st.integers(0, 10**6))
def test_an_injected_false_meld_is_reported_and_not_counted(seed: int, pick: int) -> None:
    got = false_meld_deal(seed, pick)
    if got is None:
        return
    liar, events = got
    calls = replay(events)
    found = [c for c in calls if c["call"] == "violation"]
    nine = f"9{calls[-1]['trump']}"
    assert [(v["seat"], v["kind"]) for v in found if v["rule"] == "false_meld"] == [(liar, "nove")]
    # The lie also "proves" plays the nine would have made illegal (the seat claimed it) until
    # the meld is shown false: then they are withdrawn (the deal is otherwise legal).
    others = [v for v in found if v["rule"] != "false_meld"]
    assert all(v["seat"] == liar and v["proof"] == nine for v in others)
    taken_back = [(c["seat"], c["rule"], c["trick"]) for c in calls if c["call"] == "withdrawn"]
    assert sorted(taken_back) == sorted((v["seat"], v["rule"], v["trick"]) for v in others)
    end = calls[-1]
    assert end["melds"] == [{"seat": liar, "kind": "nove", "points": 1, "cards": [nine], "counted": False}]
    assert end["meld_points"][liar] == 0


def test_false_meld_injection_actually_happens() -> None:
    assert sum(false_meld_deal(seed, seed) is not None for seed in range(20)) >= 10
