"""Simulated games: the truth (plays, times, seats, winners) matches what the frames show."""

from __future__ import annotations

import numpy as np
import pytest

from referee.rules.playout import random_deal_events
from referee.vision.simulator.video import SimulatedGame, SimulationError, simulate_game


@pytest.fixture(scope="module")
def briscola2() -> SimulatedGame:
    return simulate_game("briscola-2", seed=3, fps=10, texture="check")


def test_every_play_of_the_log_is_in_the_truth_in_order(briscola2: SimulatedGame) -> None:
    plays = [e for e in briscola2.events if e["event"] == "play"]
    assert [(p.seat, p.card) for p in briscola2.plays] == [(e["seat"], e["card"]) for e in plays]
    times = [p.t for p in briscola2.plays]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert times[0] > 0 and times[-1] < briscola2.duration
    assert [p.trick for p in briscola2.plays][:4] == [1, 1, 2, 2]


def test_a_played_card_lies_still_face_up_in_its_seats_zone(briscola2: SimulatedGame) -> None:
    play = briscola2.plays[5]
    index = int(np.ceil((play.t + 0.3) * briscola2.fps))
    frame = next(briscola2.frames(index, index + 1))
    (card,) = [c for c in frame.cards if c.code == play.card and c.role == "trick"]
    assert card.face_up and not card.moving and card.seat == play.seat
    assert card.occluded_fraction < 0.3
    centre = card.quad.mean(axis=0)
    assert briscola2.layout.zone_of(centre) == "play"
    assert briscola2.layout.seat_of(centre) == play.seat


def test_the_card_is_in_a_moving_hand_before_it_is_played(briscola2: SimulatedGame) -> None:
    play = briscola2.plays[6]
    index = int(np.floor((play.t - 0.25) * briscola2.fps))
    frame = next(briscola2.frames(index, index + 1))
    held = [c for c in frame.cards if c.code == play.card]
    assert held and all(c.role == "held" and c.moving for c in held)


def test_frames_carry_the_play_events_when_they_happen(briscola2: SimulatedGame) -> None:
    first = briscola2.plays[0]
    index = int(np.ceil(first.t * briscola2.fps))
    frames = list(briscola2.frames(index - 2, index + 1))
    assert frames[0].events and frames[0].events[0]["event"] == "deal"  # start frame gets the backlog
    assert frames[1].events == ()
    assert frames[2].events == ({"event": "play", "seat": first.seat, "card": first.card},)
    assert frames[2].t == pytest.approx(index / briscola2.fps)


def test_truth_calls_end_the_deal(briscola2: SimulatedGame) -> None:
    calls = briscola2.truth_calls()
    tricks = [c for c in calls if c["call"] == "trick"]
    assert len(tricks) == 20
    assert calls[-1]["call"] == "deal_end"


def test_stock_and_briscola_shrink_away_by_the_last_trick(briscola2: SimulatedGame) -> None:
    first = next(briscola2.frames(0, 1))
    assert {"stock", "briscola"} <= {c.role for c in first.cards}
    last = next(briscola2.frames(briscola2.frame_count - 1))
    assert not {"stock", "briscola", "trick"} & {c.role for c in last.cards}
    assert {c.role for c in last.cards} == {"pile"}


def test_replay_log_is_acted_out_and_french_game_uses_french_faces() -> None:
    log = random_deal_events("belotta", 2)
    game = simulate_game(events=log, seed=2, deck="french")
    assert game.game == "belotta" and "french" in game.face_set
    assert len(game.plays) == 32
    # The contract rides along as an operator event, in log order.
    kinds = [e["event"] for _, e in sorted(game.timed_events, key=lambda te: te[0])]
    assert kinds[:2] == ["deal", "contract"]


def test_bad_logs_are_refused_with_the_line() -> None:
    with pytest.raises(SimulationError, match="no 'deal' event"):
        simulate_game(events=[{"event": "play", "seat": "N", "card": "coppe_3"}])
    log = random_deal_events("briscola-2", 1)
    log[3] = {"event": "play", "seat": "Q", "card": "coppe_3"}
    with pytest.raises(SimulationError, match="line 4"):
        simulate_game(events=log)
    with pytest.raises(SimulationError, match="italian"):
        simulate_game("briscola-2", deck="french")


def test_a_whole_match_log_is_acted_out_deal_after_deal() -> None:
    from referee.rules.playout import random_match_events

    log = random_match_events("briscola-2", 5)
    game = simulate_game(events=log, seed=5, fps=2)
    deals = sum(1 for e in log if e["event"] == "deal")
    assert deals >= 2
    assert len(game.plays) == 40 * deals
    assert {p.deal for p in game.plays} == set(range(1, deals + 1))
    assert game.truth_calls()[-1]["call"] == "match_end"
    # The dealer draw (before the first deal) rides along as an operator event.
    assert game.timed_events[0][1]["event"] == "draw"
