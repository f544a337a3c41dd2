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

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from referee.cards import ITALIAN_40, Card, Deck
from referee.rules.calls import Call, game_call
from referee.rules.errors import EventError, OptionError, PhaseError
from referee.rules.events import ContractEvent, DealEvent, Event, GameEvent
from referee.rules.game import Game, Table, parse_deck_card
from referee.rules.options import GameOptions
from referee.rules.state import (
    DealData,
    DealResult,
    DealState,
    MatchData,
    MatchOutcome,
    MatchState,
)
from referee.rules.tricks import BRISCOLA_POINTS, BRISCOLA_STRENGTH, Trick, winner_index
from referee.rules.violations import violation

SEAT_COUNT = 5
HAND_SIZE = 8
TOTAL_POINTS = 120
BASE_TARGET = 61
CALLER_UNITS = 2  # rule 5a: the caller plays for two credits
OTHER_UNITS = 1  # rule 5a: partner and the others play for one
DOPPIA, TRIPLA = 2, 3

AuctionKind = Literal["any", "card", "points"]


class ContractError(EventError):
    """A contract or forfait that the document does not allow (the message names the key)."""


@dataclass(frozen=True)
class ChiamataOptions(GameOptions):
    """Briscola chiamata options; each default follows the document (or says it is silent)."""

    #: match length in played deals (void deals do not count).  The document scores single
    #: deals only; default 5 = each seat deals once
    deals: int = 5
    #: "any" accepts a contract from either auction; "card" rejects a target above 61 unless
    #: the called card is a 2 (rule 3c); "points" behaves as "any" (rule 3d: any card)
    auction: AuctionKind = "any"
    #: rule 7b: doppia/tripla only when the called card is a 2 ("nel caso un giocatore chiami
    #: il due"); False applies the thresholds whatever card is called
    multiplier_needs_two: bool = True
    #: rule 7b: the deal is doppia/tripla when the callers win ("e vinca"); True also doubles
    #: or triples their loss
    multiplier_on_loss: bool = False
    #: rule 7b: doppia from this target (71, inclusive), tripla from ``tripla_from`` (81: "maggiore
    #: di 80")
    doppia_from: int = 71
    tripla_from: int = 81
    #: rule 7a: after a forfait the cards are redealt by the next dealer ("next"), or by the
    #: same dealer ("same"); the document does not say
    forfait_dealer: Literal["next", "same"] = "next"

    def check(self) -> None:
        if self.deals < 1:
            raise OptionError(f"option 'deals' must be at least 1, got {self.deals}")
        if not BASE_TARGET < self.doppia_from <= self.tripla_from:
            raise OptionError(
                f"options 'doppia_from' ({self.doppia_from}) and 'tripla_from' "
                f"({self.tripla_from}) must satisfy {BASE_TARGET} < doppia_from <= tripla_from"
            )


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


def check_contract(contract: Contract, seats: Sequence[str], rules: ChiamataOptions) -> None:
    """Raise :class:`ContractError` naming the key when the contract cannot be right."""
    if contract.caller not in seats:
        raise ContractError(f"key 'seat': {contract.caller!r} is not one of {list(seats)}")
    if contract.called not in ITALIAN_40:
        raise ContractError(
            f"key 'called': {contract.called.code!r} is not a card of the italian-40 deck"
        )
    if not BASE_TARGET <= contract.points <= TOTAL_POINTS:
        raise ContractError(
            f"key 'points': {contract.points} is outside {BASE_TARGET}..{TOTAL_POINTS} (rule 2a)"
        )
    if rules.auction == "card" and contract.points > BASE_TARGET and contract.called.rank != "2":
        raise ContractError(
            f"key 'points': {contract.points} above {BASE_TARGET} with {contract.called.code}"
            " called: in the auction on the card the target rises only once the 2 is called"
            " (rule 3c, option auction='card')"
        )


def contract_multiplier(contract: Contract, rules: ChiamataOptions) -> int:
    """Rule 7b: 1, doppia (2) or tripla (3) from the target, before the win/loss condition."""
    if rules.multiplier_needs_two and contract.called.rank != "2":
        return 1
    if contract.points >= rules.tripla_from:
        return TRIPLA
    if contract.points >= rules.doppia_from:
        return DOPPIA
    return 1


@dataclass(slots=True)
class ChiamataDeal(DealData):
    """Chiamata's own per-deal state."""

    #: the contract once given (rule 3b); ``in_mano`` cleared when another seat plays the card
    contract: Contract | None = None
    partner: str | None = None  #: the called card's holder, once it is played (rule 3e)
    void: bool = False  #: a forfait voided the deal (rule 7a)


@dataclass(slots=True)
class ChiamataMatch(MatchData):
    """Chiamata's own per-match state."""

    played: int = 0  #: deals played and scored (a forfait's void deal does not count, 7a)


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


def deal_score(
    seats: Sequence[str],
    contract: Contract,
    partner: str | None,
    caller_points: int,
    rules: ChiamataOptions,
    *,
    callers_win: bool | None = None,
) -> DealScore:
    """Rules 2a, 5a, 5b, 7b-7d: who won and the zero-sum credits of one played deal.

    ``partner`` is the seat that played the called card (``None`` or the caller himself
    means the caller played alone: chiamata in mano).  ``callers_win`` overrides the points
    (a deal lost on a penalty); cappotto then does not apply.
    """
    if not 0 <= caller_points <= TOTAL_POINTS:
        raise ValueError(f"caller_points {caller_points} outside 0..{TOTAL_POINTS}")
    alone = contract.in_mano or partner is None or partner == contract.caller
    callers, defenders = sides(seats, contract.caller, None if alone else partner)
    win = caller_points >= contract.target if callers_win is None else callers_win
    unit = contract_multiplier(contract, rules) if (win or rules.multiplier_on_loss) else 1
    # Rule 7c: either side takes all 120 ("una squadra realizzi 120 punti").
    cappotto = callers_win is None and caller_points in (0, TOTAL_POINTS)
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


def hand_points(hand: Sequence[Card]) -> int:
    """Rule 6a: the briscola points of ``hand``."""
    return sum(BRISCOLA_POINTS.get(card.rank, 0) for card in hand)


def leaders(credits: Mapping[str, int]) -> tuple[str, ...]:
    """The seat(s) with the most credits (more than one on a tie)."""
    best = max(credits.values(), default=0)
    return tuple(s for s, n in credits.items() if n == best)


class Chiamata(Game):
    """Briscola chiamata for five: contract event, secret partner, credits (module docs).

    ::

        ref = Referee()
        ref.apply({"event": "deal", "game": "briscola-chiamata", "seats": list("ABCDE"),
                   "dealer": "E"})                              # -> [] (contract phase)
        ref.apply({"event": "contract", "seat": "C", "called": "coppe_1"})  # contract, turn A
    """

    name = "briscola-chiamata"
    seat_counts = (SEAT_COUNT,)
    deck: ClassVar[Deck] = ITALIAN_40
    options_type = ChiamataOptions
    options: ChiamataOptions

    # ---------------------------------------------------------------- contract phase
    def start_deal(self, deal: DealState, event: DealEvent) -> list[Call]:
        for key in ("trump_card", "turned"):
            if event.raw.get(key) is not None:
                raise EventError(
                    f"key {key!r}: briscola-chiamata has no face-up card, the called card's "
                    "suit is the briscola (rule 3e)"
                )
        deal.phase = "contract"
        deal.data = ChiamataDeal()
        return []

    def can_play(self, deal: DealState) -> str | None:
        if deal.phase == "contract":
            return "the contract is not given yet (rule 3b: send a 'contract' event)"
        return super().can_play(deal)

    def handle_event(self, deal: DealState, event: Event) -> list[Call]:
        if isinstance(event, ContractEvent):
            return self._contract(deal, event)
        if isinstance(event, GameEvent) and event.name == "forfait":
            return self._forfait(deal, event)
        return super().handle_event(deal, event)

    def _contract(self, deal: DealState, event: ContractEvent) -> list[Call]:
        if deal.phase != "contract":
            raise PhaseError(f"the contract of deal {deal.number} is already given (rule 3b)")
        contract = parse_contract(self, event)
        check_contract(contract, deal.seats, self.options)
        deal.data_as(ChiamataDeal).contract = contract
        deal.trump = contract.trump
        deal.phase = "play"
        return [
            game_call(
                "contract",
                seat=contract.caller,
                called=contract.called.code,
                points=contract.points,
                trump=contract.trump,
                in_mano=contract.in_mano,
                multiplier=contract_multiplier(contract, self.options),
            )
        ]

    def _forfait(self, deal: DealState, event: GameEvent) -> list[Call]:
        if deal.phase != "contract":
            raise PhaseError("a forfait is declared before the contract (rule 7a)")
        if event.seat is None:
            raise EventError("'forfait' event needs key 'seat'")
        if "cards" in event.raw:
            check_forfait_hand(self, event.raw["cards"])
        deal.data_as(ChiamataDeal).void = True
        deal.phase = "over"
        deal.turn = None
        deal.result = DealResult(
            {},
            None,
            {"void": "forfait", "seat": event.seat, "credits": dict.fromkeys(deal.seats, 0)},
        )
        return [game_call("forfait", seat=event.seat, dealer=self.next_dealer(deal))]

    def next_dealer(self, deal: DealState) -> str:
        if deal.data_as(ChiamataDeal).void and self.options.forfait_dealer == "same":
            return deal.dealer
        return super().next_dealer(deal)

    # ---------------------------------------------------------------- play
    def on_play(self, deal: DealState, seat: str, card: Card) -> list[Call]:
        """Rule 3e: the called card reveals its holder as the partner (the caller: alone)."""
        state = deal.data_as(ChiamataDeal)
        contract = state.contract
        if contract is None or card != contract.called or state.partner is not None:
            return []
        state.partner = seat
        calls: list[Call] = [
            game_call(
                "partner",
                seat=seat,
                card=card.code,
                caller=contract.caller,
                alone=seat == contract.caller,
            )
        ]
        if contract.in_mano and seat != contract.caller:
            # The caller said he held the card; the table shows otherwise.  The cards decide
            # the sides (the holder is the partner) and the operator is told.
            state.contract = replace(contract, in_mano=False)
            calls.append(
                violation(
                    deal,
                    contract.caller,
                    "in_mano_card_elsewhere",
                    f"{contract.caller} called {card.code} in mano but {seat} played it; "
                    f"{seat} is the partner",
                    card=card.code,
                )
            )
        return calls

    def teams(self, deal: DealState) -> tuple[tuple[str, ...], ...] | None:
        """Callers and defenders, once known (rule 3e: at the called card, or in mano)."""
        state = deal.data_as(ChiamataDeal)
        contract = state.contract
        if contract is None:
            return None
        partner = state.partner
        if contract.in_mano:
            partner = contract.caller
        elif partner is None:
            return None
        return sides(deal.seats, contract.caller, None if partner == contract.caller else partner)

    def trick_winner(self, deal: DealState, trick: Trick) -> int:
        return winner_index(trick.cards, deal.trump, BRISCOLA_STRENGTH)  # rules 4a-4c, 6b

    def card_points(self, deal: DealState, card: Card) -> int:
        return BRISCOLA_POINTS.get(card.rank, 0)  # rule 6a

    # ---------------------------------------------------------------- scoring
    def score_deal(self, deal: DealState) -> DealResult:
        state = deal.data_as(ChiamataDeal)
        contract, partner = state.contract, state.partner
        assert contract is not None  # a deal is scored after its contract was played out
        callers, _ = sides(deal.seats, contract.caller, partner)
        made = sum(deal.points[s] for s in callers)
        return _result(
            contract, partner, deal_score(deal.seats, contract, partner, made, self.options)
        )

    def forfeit(self, deal: DealState, seat: str, rule: str) -> DealResult | None:
        """A penalty (option ``out_of_turn="lose_game"``) loses the deal for ``seat``'s side,
        once the sides are known; credits as for a lost (or won) contract, no cappotto."""
        state = deal.data_as(ChiamataDeal)
        contract = state.contract
        teams = self.teams(deal)
        if contract is None or teams is None:
            return None
        partner = state.partner
        made = sum(deal.points[s] for s in teams[0])
        score = deal_score(
            deal.seats, contract, partner, made, self.options, callers_win=seat not in teams[0]
        )
        result = _result(contract, partner, score)
        return DealResult(
            result.points, result.winner, {**result.extra, "forfeit": {"seat": seat, "rule": rule}}
        )

    def new_match(self, seats: tuple[str, ...]) -> MatchState:
        match = MatchState(self.name, seats, self.options)
        match.score = dict.fromkeys(seats, 0)  # cumulative credits per seat
        match.data = ChiamataMatch()
        return match

    def add_deal(
        self, match: MatchState, deal: DealState, result: DealResult
    ) -> MatchOutcome | None:
        if result.extra.get("void"):
            return None  # rule 7a: a forfait voids the deal; it does not count
        for seat, n in result.extra["credits"].items():
            match.score[seat] = match.score.get(seat, 0) + n
        state = match.data_as(ChiamataMatch)
        state.played = played = state.played + 1
        if played < self.options.deals:
            return None
        top = leaders(match.score)
        return MatchOutcome(
            top[0] if len(top) == 1 else None,
            dict(match.score),
            {"deals": played, "leaders": list(top)},
        )

    # ---------------------------------------------------------------- playouts
    def playout_events(
        self, deal: DealState, table: Table, rng: random.Random
    ) -> list[dict[str, Any]]:
        """The auction's outcome (or, for a pointless hand, sometimes a forfait)."""
        if deal.phase != "contract":
            return []
        blank = [s for s in deal.seats if hand_points(table.hands[s]) == 0]
        if blank and rng.random() < 0.5:
            seat = rng.choice(blank)
            event: dict[str, Any] = {"event": "forfait", "seat": seat}
            if rng.random() < 0.5:
                event["cards"] = [c.code for c in table.hands[seat]]
            return [event]
        caller = rng.choice(deal.seats)
        hand = table.hands[caller]
        in_mano = rng.random() < 0.1
        called = rng.choice(hand if in_mano else [c for c in self.deck if c not in hand])
        points = BASE_TARGET
        if (called.rank == "2" or self.options.auction != "card") and rng.random() < 0.4:
            points = rng.randint(BASE_TARGET, 90 if rng.random() < 0.9 else TOTAL_POINTS)
        event = {"event": "contract", "seat": caller, "called": called.code, "points": points}
        if in_mano:
            event["in_mano"] = True
        return [event]


def parse_contract(game: Game, event: ContractEvent) -> Contract:
    """The contract event's keys: ``called`` (card), ``points`` (61), ``in_mano`` (false)."""
    raw = event.raw
    code = raw.get("called")
    if not isinstance(code, str):
        raise ContractError(
            f"'contract' event needs key 'called' (the called card's code), got {code!r}"
        )
    called = parse_deck_card(game, code, "called")
    points = raw.get("points", BASE_TARGET)
    if not isinstance(points, int) or isinstance(points, bool):
        raise ContractError(f"key 'points' must be an integer, got {points!r}")
    in_mano = raw.get("in_mano", False)
    if not isinstance(in_mano, bool):
        raise ContractError(f"key 'in_mano' must be true or false, got {in_mano!r}")
    return Contract(event.seat, called, points, in_mano)


def check_forfait_hand(game: Game, codes: Any) -> None:
    """Rule 7a with the hand shown: eight distinct cards worth zero points."""
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise ContractError(f"key 'cards' must be a list of card codes, got {codes!r}")
    cards = [parse_deck_card(game, code, "cards") for code in codes]
    if len(set(cards)) != HAND_SIZE or len(cards) != HAND_SIZE:
        raise ContractError(
            f"key 'cards': a forfait hand is {HAND_SIZE} distinct cards, got {len(cards)} "
            f"({len(set(cards))} distinct)"
        )
    points = hand_points(cards)
    if points:
        worth = [c.code for c in cards if BRISCOLA_POINTS.get(c.rank, 0)]
        raise ContractError(
            f"key 'cards': a forfait needs a hand worth zero points, this one is worth {points} "
            f"({', '.join(worth)}) (rule 7a)"
        )


def _result(contract: Contract, partner: str | None, score: DealScore) -> DealResult:
    return DealResult(
        score.points,
        score.winner,
        {
            "credits": score.credits,
            "caller": contract.caller,
            "partner": partner if partner is not None else contract.caller,
            "called": contract.called.code,
            "target": contract.target,
            "in_mano": len(score.callers) == 1,
            "multiplier": score.multiplier,
            "cappotto": score.cappotto,
        },
    )
