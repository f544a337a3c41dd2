"""What the play tracker asks the rules core, and its answers from a live referee."""

from __future__ import annotations

from typing import Protocol

from referee.rules.possible import could_still_be_played
from referee.rules.referee import Referee


class RulesView(Protocol):
    """What the tracker asks the rules core (see :class:`RefereeView`)."""

    def plausible(self, card: str) -> bool: ...
    def trick_number(self) -> int: ...
    def has_played(self, seat: str) -> bool: ...
    def turn(self) -> str | None: ...


class RefereeView:
    """:class:`RulesView` over a live :class:`referee.rules.Referee` (read only)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    def plausible(self, card: str) -> bool:
        game, deal = self.referee.game, self.referee.deal
        if game is None or deal is None:
            return True
        return could_still_be_played(game, deal, card)

    def trick_number(self) -> int:
        deal = self.referee.deal
        return int(deal.trick_number) if deal is not None else 0

    def turn(self) -> str | None:
        turn = self.referee.turn
        return str(turn) if turn is not None else None

    def has_played(self, seat: str) -> bool:
        """Whether ``seat`` already has a card in the trick in progress."""
        deal = self.referee.deal
        if deal is None or deal.trick is None:
            return False
        return any(s == seat for s, _ in deal.trick.plays)
