"""A random deal in which one seat plays one illegal card: the shared driver of the
"every injected illegal play is reported" property tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.cards import Card
from referee.rules import Referee
from referee.rules.calls import Call
from referee.rules.game import get_game

Injected = tuple[tuple[str, int, Card], list[Call]]


def injected_deal(game_name: str, seed: int, seats: Sequence[str], dealer: str) -> Injected | None:
    """Play a random deal where one seat once plays a card outside its legal plays.

    Returns ``((seat, trick, card), calls)`` for the injected card, or ``None`` when the deal
    never offered an illegal choice.
    """
    rng = random.Random(seed)
    ref = Referee()
    table = get_game(game_name)().deal_hands(rng, tuple(seats), dealer)
    ref.apply({"event": "deal", "game": game_name, "seats": list(seats), "dealer": dealer,
               **table.deal_fields})
    game, deal = ref.game, ref.deal
    assert game is not None and deal is not None
    injected: tuple[str, int, Card] | None = None
    calls: list[Call] = []
    while deal.phase != "over":
        for event in game.playout_events(deal, table, rng):
            calls += ref.apply(event)
        if game.can_play(deal) is not None:
            continue
        seat = deal.turn
        assert seat is not None
        hand = table.hands[seat]
        legal = ref.legal_plays(seat, hand)
        illegal = [c for c in hand if c not in legal]
        if injected is None and illegal and rng.random() < 0.3:
            card = rng.choice(illegal)
            injected = (seat, deal.trick_number, card)
        else:
            card = rng.choice(legal)
        hand.remove(card)
        calls += ref.apply({"event": "play", "seat": seat, "card": card.code})
    return None if injected is None else (injected, calls)
