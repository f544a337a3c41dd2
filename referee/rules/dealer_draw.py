"""The highest-card draw for a match's first dealer (``draw`` events before a match).

Each seat draws a card; the highest (by the game's :meth:`~referee.rules.game.Game.draw_strength`)
deals.  Seats that tie draw again, and only they (``redraw`` call); the drawn dealer deals the
match's first deal (a ``deal`` event naming another dealer is a ``wrong_dealer`` violation,
which the engine reports).
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card, parse_card
from referee.errors import BadCardError
from referee.rules.calls import Call, DealerCall, RedrawCall
from referee.rules.errors import EventError
from referee.rules.events import DrawEvent
from referee.rules.game import Game, deck_lookup, get_game


@dataclass(frozen=True, slots=True)
class DrawOutcome:
    """The draw chose ``dealer``, or it tied and ``redraw`` (the tied seats) draw again."""

    dealer: str | None
    redraw: tuple[str, ...] | None

    def call(self) -> Call:
        if self.dealer is not None:
            return DealerCall(self.dealer)
        assert self.redraw is not None
        return RedrawCall(self.redraw)


def dealer_draw(
    ev: DrawEvent, last_game: type[Game] | None, redraw: tuple[str, ...] | None
) -> DrawOutcome:
    """Who the draw ``ev`` chose; ``redraw``: the seats of a tied draw before it, the only
    ones this one is between; ``last_game``: the last match's game, whose card order is used
    when the event names no game (raises :class:`EventError` for a bad draw)."""
    # A draw naming its game is from that game's deck: a foreign card is a misread, and a
    # card the deck holds once cannot be drawn by two seats.  (Without "game" the last
    # match's game is only a guess: the next match may be another game.)
    named = get_game(ev.game) if ev.game else None
    game_cls = named or last_game
    strengths: dict[str, int] = {}
    drawn: dict[Card, str] = {}
    for seat, code in ev.cards.items():
        try:
            card = parse_card(code)
        except BadCardError as exc:
            raise EventError(f"key 'cards', seat {seat!r}: {exc}") from None
        if named is not None and deck_lookup(named.deck).get(code) is None:
            raise EventError(
                f"key 'cards', seat {seat!r}: {code!r} is not a card of the "
                f"{named.deck.name} deck"
            )
        if card in drawn and named is not None and named.deck.copies == 1:
            raise EventError(
                f"key 'cards', seat {seat!r}: {code} was already drawn by {drawn[card]}"
            )
        drawn[card] = seat
        strengths[seat] = (game_cls or Game).draw_strength(card)
    contenders = redraw or tuple(ev.cards)
    missing = [s for s in contenders if s not in strengths]
    if missing:
        raise EventError(f"key 'cards': the redraw needs a card from {missing}")
    top = max(strengths[s] for s in contenders)
    best = tuple(s for s in contenders if strengths[s] == top)
    if len(best) > 1:
        return DrawOutcome(None, best)
    return DrawOutcome(best[0], None)
