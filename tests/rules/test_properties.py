"""Random-playout properties for every registered game that is implemented.

Each game's own property tests check its point totals; here the engine-wide ones: a legal random
deal reaches ``deal_end`` with no violation, the cards played are each deck card at most as
often as the deck holds it, undo-then-replay changes nothing, and random matches end.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.cards import parse_card
from referee.rules import Referee, available_games, get_game
from referee.rules.playout import default_seats, random_deal_events, random_match_events

GAMES = available_games()


def run(ref: Referee, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c.to_dict() for e in events for c in ref.apply(e)]


def table_sizes(game: str) -> list[int]:
    return list(get_game(game).seat_counts)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(0, 4))
def test_legal_random_deal_ends_without_violation(game: str, seed: int, size: int) -> None:
    sizes = table_sizes(game)
    seats = default_seats(get_game(game), sizes[size % len(sizes)])
    events = random_deal_events(game, seed, seats)  # strict: raises on any violation
    calls = run(Referee(), events)
    assert [c["call"] for c in calls].count("deal_end") == 1
    assert not [c for c in calls if c["call"] in ("violation", "error")]
    deck = get_game(game).deck
    played = Counter(parse_card(e["card"]) for e in events if e["event"] == "play")
    assert all(card in deck and n <= deck.copies for card, n in played.items())
    tricks = [c for c in calls if c["call"] == "trick"]
    assert sum(len(t["cards"]) for t in tricks) == sum(played.values())


@pytest.mark.parametrize("game", ["briscola-2", "briscola-4"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_briscola_cards_conserved_and_points_total_120(game: str, seed: int) -> None:
    events = random_deal_events(game, seed)
    calls = run(Referee(), events)
    played = [e["card"] for e in events if e["event"] == "play"]
    assert sorted(played) == sorted(get_game(game).deck.codes)  # every card once
    end = calls[-1]
    assert end["call"] == "deal_end" and sum(end["points"].values()) == 120
    assert end["winner"] is None or end["points"][end["winner"]] >= 60


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), where=st.floats(0, 1))
def test_undo_then_replaying_the_same_card_changes_nothing(
    game: str, seed: int, where: float
) -> None:
    events = random_deal_events(game, seed)
    plays = [i for i, e in enumerate(events) if e["event"] == "play"]
    assume(plays)  # a deal can end before any play (chiamata's forfait)
    cut = plays[int(where * (len(plays) - 1))]
    straight = Referee()
    run(straight, events[: cut + 1])
    after_straight = run(straight, events[cut + 1 :])
    ref = Referee()
    run(ref, events[: cut + 1])
    undo = run(ref, [{"event": "undo"}])
    assert undo[0] == {"call": "undo", "seat": events[cut]["seat"], "card": events[cut]["card"]}
    run(ref, [events[cut]])
    assert run(ref, events[cut + 1 :]) == after_straight
    assert ref.result == straight.result


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_match_reaches_match_end(game: str, seed: int) -> None:
    events = random_match_events(game, seed)
    calls = run(Referee(), events)
    assert calls[-1]["call"] == "match_end"
    assert [c["call"] for c in calls].count("match_end") == 1
