"""Whether a card could still be laid in a deal: the rules core's answer to a camera that
reads a card and must weigh it against what the rules allow (``referee.vision.tracker``)."""

from __future__ import annotations

from referee.rules.game import Game, deck_lookup
from referee.rules.state import DealState


def could_still_be_played(game: Game, deal: DealState, code: str) -> bool:
    """Whether some seat could lay ``code`` now without the engine refusing it as a
    ``bad_card`` or ``duplicate_card``: a card of the game's deck that is shown in a hand
    (its holder's to play), or seen fewer times than the deck has it and not kept from every
    seat by the game (briscola's face-up card under the stock until the last draw)."""
    card = deck_lookup(game.deck).get(code)
    if card is None:
        return False
    if any(card in cards for cards in deal.known.values()):
        return True
    if deal.seen[card] >= game.deck.copies:
        return False
    return not all(game.unavailable(deal, seat, card) for seat in deal.seats)
