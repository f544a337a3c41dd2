"""Briscola chiamata (``briscola-chiamata``): five players, the called card's holder is the partner.

Spec: ``../shared/rules/briscola-chiamata-5-giocatori.txt``.  The document is not numbered;
the rule ids used by the tests and ``docs/rules-tests.md`` are:

- 1a  five players, eight cards each, the 40-card Italian deck (no stock, no face-up card).
- 2a  the calling side wins with at least 61 points, or the contract's points if higher.
- 3a  teams: the caller and the holder of the called card (2) against the other three.
- 3b  the auction (on a card or on points) is heard, not seen: its outcome arrives as one
      ``contract`` event; no card may be played before it.
- 3c  auction on the card: a point target above 61 is only bid once the 2 is called
      (option ``auction="card"`` enforces it; default ``"any"`` accepts both auctions).
- 3d  auction on points: any card, a target of 61..120.
- 3e  the called card's suit is the briscola; its holder is the secret partner, revealed
      (a ``partner`` call) when the card is played; teams are unknown until then.
- 4a-4c  trick rules of classic briscola (trump beats plain suits, else the led suit's
      highest card by briscola power).
- 4d  the seat after the dealer leads the first trick; all five play one card each.
- 4e  the trick winner leads the next trick.
- 4f  eight tricks exhaust the hands; then points are counted.
- 5a  credits: the caller plays for 2, partner and the three others for 1, won (+) or lost (-).
- 5b  the credits of a deal sum to zero.
- 6a  card points A 11, 3 10, K 4, C 3, J 2 (120 in the deck); 6b card power A 3 K C J 7..4 2.
- 7a  forfait: a player holding zero points may void the deal before the contract.
- 7b  doppia (2 called with 71..80) and tripla (2 called with more than 80) when won.
- 7c  cappotto (a side takes all 120 points) doubles the credits again.
- 7d  chiamata in mano: the caller calls a card he holds and plays alone against four;
      his credits (won or lost) count double.
- 8a  "nobody may speak": not observable by the referee, so not enforced.

Ambiguities are options (see :class:`ChiamataOptions`), their defaults follow the document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from referee.cards import ITALIAN_40, Card
from referee.errors import RefereeError

SEAT_COUNT = 5
HAND_SIZE = 8
TOTAL_POINTS = 120
BASE_TARGET = 61
CALLER_UNITS = 2  # rule 5a: the caller plays for two credits
OTHER_UNITS = 1  # rule 5a: partner and the others play for one
DOPPIA, TRIPLA = 2, 3

AuctionKind = Literal["any", "card", "points"]


class ContractError(RefereeError, ValueError):
    """A contract or forfait that the document does not allow (the message names the key)."""


@dataclass(frozen=True, slots=True)
class ChiamataRules:
    """The document's readings that are options; each default follows the document.

    - ``deals``: match length in (non-void) deals; default 5, one deal per dealer seat
      (the document scores single deals only).
    - ``auction``: ``"any"`` accepts a contract from either auction; ``"card"`` rejects a
      target above 61 unless the called card is a 2 (rule 3c); ``"points"`` is the same
      as ``"any"`` but named for the log.
    - ``multiplier_needs_two``: doppia/tripla only when the called card is a 2 (the document:
      "nel caso un giocatore chiami il due"); ``False`` applies them to any called card.
    - ``multiplier_on_loss``: the document doubles "e vinca" (when the callers win); ``True``
      also doubles the callers' loss.
    - ``doppia_from`` / ``tripla_from``: target thresholds, 71 (inclusive) and 81.
    """

    deals: int = 5
    auction: AuctionKind = "any"
    multiplier_needs_two: bool = True
    multiplier_on_loss: bool = False
    doppia_from: int = 71
    tripla_from: int = 81


@dataclass(frozen=True, slots=True)
class Contract:
    """The auction's outcome: who called, which card (hence the trump suit) and the target."""

    caller: str
    called: Card
    points: int = BASE_TARGET
    in_mano: bool = False

    @property
    def trump(self) -> str:
        """Rule 3e: the called card's suit is the briscola."""
        return self.called.suit

    @property
    def target(self) -> int:
        """Rule 2a: at least 61, or the contract's points if higher."""
        return max(BASE_TARGET, self.points)


def check_contract(contract: Contract, seats: Sequence[str], rules: ChiamataRules) -> None:
    """Raise :class:`ContractError` naming the key when the contract cannot be right."""
    if contract.caller not in seats:
        raise ContractError(f"contract: seat {contract.caller!r} is not one of {list(seats)}")
    if contract.called not in ITALIAN_40:
        raise ContractError(f"contract: called card {contract.called.code!r} is not Italian")
    if not BASE_TARGET <= contract.points <= TOTAL_POINTS:
        raise ContractError(
            f"contract: points {contract.points} outside {BASE_TARGET}..{TOTAL_POINTS}"
        )
    if rules.auction == "card" and contract.points > BASE_TARGET and contract.called.rank != "2":
        raise ContractError(
            f"contract: points {contract.points} above {BASE_TARGET} on {contract.called.code}:"
            " in the auction on the card the target rises only once the 2 is called (rule 3c)"
        )


def contract_multiplier(contract: Contract, rules: ChiamataRules) -> int:
    """Rule 7b: 1, doppia (2) or tripla (3) from the target, before the win/loss condition."""
    if rules.multiplier_needs_two and contract.called.rank != "2":
        return 1
    if contract.points >= rules.tripla_from:
        return TRIPLA
    if contract.points >= rules.doppia_from:
        return DOPPIA
    return 1


@dataclass(frozen=True, slots=True)
class DealScore:
    """A scored deal: the two sides, their points, who won, and the credits per seat."""

    callers: tuple[str, ...]
    defenders: tuple[str, ...]
    caller_points: int
    callers_win: bool
    multiplier: int
    cappotto: bool
    credits: dict[str, int]

    @property
    def caller_team(self) -> str:
        return "+".join(self.callers)

    @property
    def defender_team(self) -> str:
        return "+".join(self.defenders)

    @property
    def winner(self) -> str:
        return self.caller_team if self.callers_win else self.defender_team

    @property
    def points(self) -> dict[str, int]:
        return {
            self.caller_team: self.caller_points,
            self.defender_team: TOTAL_POINTS - self.caller_points,
        }


def sides(
    seats: Sequence[str], caller: str, partner: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Rule 3a/7d: (callers, defenders) in seat order; alone when the partner is the caller."""
    callers = {caller} if partner is None else {caller, partner}
    return (
        tuple(s for s in seats if s in callers),
        tuple(s for s in seats if s not in callers),
    )


def score_deal(
    seats: Sequence[str],
    contract: Contract,
    partner: str | None,
    caller_points: int,
    rules: ChiamataRules,
) -> DealScore:
    """Rules 2a, 5a, 5b, 7b-7d: who won and the zero-sum credits of one played deal.

    ``partner`` is the seat that played the called card (``None`` or the caller himself
    means the caller played alone: chiamata in mano).
    """
    if not 0 <= caller_points <= TOTAL_POINTS:
        raise ValueError(f"caller_points {caller_points} outside 0..{TOTAL_POINTS}")
    alone = contract.in_mano or partner is None or partner == contract.caller
    callers, defenders = sides(seats, contract.caller, None if alone else partner)
    win = caller_points >= contract.target
    unit = contract_multiplier(contract, rules) if (win or rules.multiplier_on_loss) else 1
    cappotto = caller_points in (0, TOTAL_POINTS)  # rule 7c: either side takes all 120
    if cappotto:
        unit *= 2
    sign = 1 if win else -1
    credits = {s: -sign * OTHER_UNITS * unit for s in seats}
    if alone:
        # Rule 7d: the caller's credits count double; the four others still pay one each,
        # which keeps the deal zero-sum (2*2 = 4 = four defenders).
        credits[contract.caller] = sign * 2 * CALLER_UNITS * unit
    else:
        assert partner is not None  # not alone: the partner is another seat
        credits[contract.caller] = sign * CALLER_UNITS * unit
        credits[partner] = sign * OTHER_UNITS * unit
    return DealScore(callers, defenders, caller_points, win, unit, cappotto, credits)


def forfait_allowed(hand: Sequence[Card], points: Mapping[str, int]) -> bool:
    """Rule 7a: a hand worth zero points may void the deal (``points``: rank -> points)."""
    return sum(points.get(card.rank, 0) for card in hand) == 0


@dataclass(slots=True)
class MatchCredits:
    """Cumulative credits per seat over a match of ``rules.deals`` played deals."""

    totals: dict[str, int]
    deals_played: int = 0

    def add(self, credits: Mapping[str, int]) -> None:
        for seat, n in credits.items():
            self.totals[seat] = self.totals.get(seat, 0) + n
        self.deals_played += 1

    def leaders(self) -> tuple[str, ...]:
        """The seat(s) with the most credits (more than one on a tie)."""
        if not self.totals:
            return ()
        best = max(self.totals.values())
        return tuple(s for s, n in self.totals.items() if n == best)
