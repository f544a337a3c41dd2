"""Random LEGAL games of any registered game, as event dicts (tests, benchmark, simulator).

    random_deal_events("briscola-4", seed=1)          # one deal: deal event, plays (+contracts)
    random_match_events("briscola-4", seed=1)         # draw for dealer + deals to match_end

The playout drives a real :class:`~referee.rules.referee.Referee`, keeping the hands the referee
never sees in a :class:`~referee.rules.game.Table`; each game supplies the hooks
(:meth:`~referee.rules.game.Game.deal_hands`, ``playout_events``, ``refill``, ``legal_plays``).
With ``strict=True`` (default) any violation or error call raises :class:`PlayoutError`, so
a playout doubles as a check that the game's legal moves and its referee agree.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from referee.cards import Card
from referee.errors import RefereeError
from referee.rules.calls import Call, DealerCall, ViolationCall
from referee.rules.game import Game, get_game
from referee.rules.referee import Referee
from referee.rules.state import DealState

#: default seats per table size, in play order
DEFAULT_SEATS: dict[int, tuple[str, ...]] = {
    2: ("N", "S"),
    3: ("N", "W", "E"),
    4: ("N", "W", "S", "E"),
    5: ("A", "B", "C", "D", "E"),
}


class PlayoutError(RefereeError, RuntimeError):
    """A random legal playout was refereed as illegal (or got stuck): a bug in a game."""


def default_seats(game: type[Game], players: int | None = None) -> tuple[str, ...]:
    """Seat names for ``players`` (default: the game's largest table)."""
    return DEFAULT_SEATS[players or max(game.seat_counts)]


def _check(calls: list[Call], event: Mapping[str, Any], strict: bool) -> None:
    if strict:
        bad = [c for c in calls if isinstance(c, ViolationCall)]
        if bad:
            raise PlayoutError(f"legal playout got {bad[0].to_dict()} after {dict(event)}")


def _send(
    ref: Referee, event: dict[str, Any], events: list[dict[str, Any]], strict: bool
) -> list[Call]:
    try:
        calls = ref.apply(event)
    except RefereeError as exc:
        raise PlayoutError(f"legal playout event {event} rejected: {exc}") from exc
    _check(calls, event, strict)
    events.append(event)
    return calls


def play_deal(
    ref: Referee,
    game_name: str,
    rng: random.Random,
    seats: Sequence[str],
    *,
    options: Mapping[str, Any] | None = None,
    dealer: str | None = None,
    strict: bool = True,
) -> list[dict[str, Any]]:
    """Play one random legal deal on ``ref``; return the events sent."""
    cls = get_game(game_name)
    hooks = ref.game if ref.game is not None and ref.outcome is None else cls(options)
    seats = tuple(seats)
    dealer = dealer or ref.next_dealer or rng.choice(seats)
    table = hooks.deal_hands(rng, seats, dealer)
    deal_event: dict[str, Any] = {
        "event": "deal",
        "game": game_name,
        "seats": list(seats),
        "dealer": dealer,
        **table.deal_fields,
    }
    if options:
        deal_event["options"] = dict(options)
    events: list[dict[str, Any]] = []
    _send(ref, deal_event, events, strict)
    game, deal = ref.game, ref.deal
    assert game is not None and deal is not None
    while not _over(deal):
        extra = game.playout_events(deal, table, rng)
        for event in extra:
            _send(ref, event, events, strict)
        why = game.can_play(deal)
        if why is not None:
            if not extra:
                raise PlayoutError(f"{game_name} playout stuck before play: {why}")
            continue
        if _over(deal):
            break
        seat = deal.turn
        assert seat is not None
        card = _choose(game.legal_plays(deal, seat, table.hands[seat]), rng, seat, game_name)
        table.hands[seat].remove(card)
        tricks = len(deal.tricks)
        _send(ref, {"event": "play", "seat": seat, "card": card.code}, events, strict)
        if len(deal.tricks) > tricks and not _over(deal):
            game.refill(
                deal, table, deal.tricks[-1].plays[game.trick_winner(deal, deal.tricks[-1])][0]
            )
    return events


def _over(deal: DealState) -> bool:
    return deal.phase == "over"


def _choose(legal: list[Card], rng: random.Random, seat: str, game_name: str) -> Card:
    if not legal:
        raise PlayoutError(f"{game_name} playout: {seat} has no card to play")
    return legal[rng.randrange(len(legal))]


def random_deal_events(
    game_name: str,
    seed: int,
    seats: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    strict: bool = True,
) -> list[dict[str, Any]]:
    """One whole random legal deal of ``game_name`` as event dicts."""
    rng = random.Random(seed)
    seats = tuple(seats or default_seats(get_game(game_name)))
    return play_deal(Referee(), game_name, rng, seats, options=options, strict=strict)


def draw_dealer_events(
    ref: Referee, seats: Sequence[str], rng: random.Random, deck: Sequence[Card]
) -> list[dict[str, Any]]:
    """Highest-card draws (repeated on ties) until the referee names a dealer."""
    events: list[dict[str, Any]] = []
    contenders = list(seats)
    for _ in range(100):
        cards = rng.sample(list(dict.fromkeys(deck)), len(contenders))
        event = {
            "event": "draw",
            "cards": {s: c.code for s, c in zip(contenders, cards, strict=True)},
        }
        calls = ref.apply(event)
        events.append(event)
        if any(isinstance(c, DealerCall) for c in calls):
            return events
        contenders = list(calls[0].to_dict()["seats"])
    raise PlayoutError("no dealer after 100 draws")


def random_match_events(
    game_name: str,
    seed: int,
    seats: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    max_deals: int = 100,
    strict: bool = True,
) -> list[dict[str, Any]]:
    """A random legal match (dealer draw where the game has one) up to ``match_end``."""
    rng = random.Random(seed)
    cls = get_game(game_name)
    seats = tuple(seats or default_seats(cls))
    ref = Referee()
    events: list[dict[str, Any]] = []
    if cls.dealer_draw:
        events += draw_dealer_events(ref, seats, rng, list(cls.deck))
    for number in range(max_deals):
        events += play_deal(
            ref, game_name, rng, seats, options=options if number == 0 else None, strict=strict
        )
        if ref.outcome is not None:
            break
    return events
