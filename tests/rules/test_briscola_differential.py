"""Differential test against ``naipes`` (Spanish brisca, an independent engine from PyPI).

Brisca has Briscola's trick rules and card points; only the deck's names differ: oros/copas/
espadas/bastos -> denari/coppe/spade/bastoni, sota/caballo/rey (10/11/12) -> fante/cavallo/re
(8/9/10).  naipes deals, draws from the stock and resolves tricks; we feed the same plays to
our referee and compare every trick winner, every trick's points and the final score.
"""

from __future__ import annotations

import random

from naipes.core.cards import Card as NCard
from naipes.games.brisca import GameState, Player

from referee.rules import Referee
from referee.rules.calls import DealEndCall, TrickCall, ViolationCall

SUITS = {"O": "denari", "C": "coppe", "E": "spade", "B": "bastoni"}
RANKS = {1: "1", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 10: "8", 11: "9", 12: "10"}
SEAT = {Player.HUMAN: "H", Player.AI: "A"}
DEALS = 1500


def code(card: NCard) -> str:
    return f"{SUITS[card.suit]}_{RANKS[card.rank]}"


def test_mapping_covers_the_deck() -> None:
    from naipes.core.cards import build_ordered_deck

    assert len({code(c) for c in build_ordered_deck()}) == 40


def test_trick_winners_and_points_agree_with_naipes() -> None:
    rng = random.Random(2024)
    tricks = 0
    for seed in range(1, DEALS + 1):
        state = GameState.new(seed)
        ref = Referee()
        # naipes: the human leads trick 1, so the AI is the dealer
        ref.apply(
            {
                "event": "deal",
                "game": "briscola-2",
                "seats": ["H", "A"],
                "dealer": "A",
                "trump_card": code(state.trump_card),
            }
        )
        ours: list[TrickCall] = []
        end: DealEndCall | None = None
        while not state.is_finished():
            player = state.leader if state.pending_leader_card is None else state.leader.other()
            hand = state.hand_of(player)
            index = rng.randrange(len(hand))
            card = hand[index]
            record = state.play_card(player, index)
            for call in ref.apply({"event": "play", "seat": SEAT[player], "card": code(card)}):
                assert not isinstance(call, ViolationCall), (seed, call)
                if isinstance(call, TrickCall):
                    ours.append(call)
                if isinstance(call, DealEndCall):
                    end = call
            if record is not None:
                mine = ours[-1]
                assert (mine.number, mine.winner, mine.points) == (
                    record.trick_number,
                    SEAT[record.winner],
                    record.points,
                ), seed
                tricks += 1
        assert end is not None, seed
        assert dict(end.points) == {
            "H": state.score_of(Player.HUMAN),
            "A": state.score_of(Player.AI),
        }
    assert tricks == DEALS * 20
