"""Whether a card could still be laid in a deal: the rule the engine applies to a play
(``duplicate_card``) and the question a camera asks when it weighs a card it reads against what
the rules allow (``referee.vision.tracker``), written once."""

from __future__ import annotations

from referee.cards import Card
from referee.rules.game import Game, deck_lookup
from referee.rules.state import DealState


def why_unavailable(game: Game, deal: DealState, seat: str, card: Card) -> str | None:
    """Why ``seat`` cannot lay ``card`` now (``None``: it can): a card shown in its hand is its
    to play; otherwise one seen as often as the deck holds it, or one the game keeps from the
    seat (briscola's face-up card under the stock until the last draw), is not."""
    if card in deal.known[seat]:
        return None
    if deal.seen[card] >= game.deck.copies:
        return f"{card.code} was already seen this deal"
    return game.unavailable(deal, seat, card)


def could_still_be_played(game: Game, deal: DealState, code: str) -> bool:
    """Whether some seat could lay ``code`` now without the engine refusing it as a
    ``bad_card`` or ``duplicate_card``."""
    card = deck_lookup(game.deck).get(code)
    return card is not None and any(why_unavailable(game, deal, seat, card) is None for seat in deal.seats)
