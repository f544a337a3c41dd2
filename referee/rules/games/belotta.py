"""Belotta (``belotta``), the Triora club rules: 32 French cards, two pairs, declarations.

Spec: ``../shared/rules/belotta-triora.txt`` (the numbers below are its sections).  The pure
rules live beside this file: :mod:`.belotta_cards` (tab. 1, 2b-2f), :mod:`.belotta_declarations`
(3a-3h, tab. 2) and :mod:`.belotta_scoring` (2g, 4a-4f); this module wires them to the engine.

Rules -> code:
- 1a trump choice in two rounds from the dealer's right: "mando" on the turned card's suit,
  then "mando a <suit>" on the other three.  The referee cannot hear, so the outcome arrives
  as ``{"event":"contract","seat":"W","trump":"H"}``; the optional ``{"event":"via","seat":..}``
  events let it check the speaking order and the round.  A contract on the turned suit after
  a full round of "via", or on another suit in the first round, is rejected.
- 1b/1e all "via" (after one round when the turned card is a jack): a ``redeal`` call and a
  void ``deal_end``; the next dealer deals.  1d the deal passes to the right (engine
  ``next_dealer``; another dealer is a ``wrong_dealer`` violation).  1f first dealer by
  the highest card drawn (``dealer_draw``).
- 1c the caller gets the turned card (+2): it is known to be in the caller's hand, so another
  seat playing it is a ``duplicate_card`` and it can prove the caller's obligations.
- 2a the player on the dealer's right leads; 2b-2f tricks and obligations (``revoke``,
  ``must_trump``, ``must_overtrump``; never obliged to undertrump: option ``must_undertrump``).
- 2g/4c cappotto; 2h the last trick may be looked at: ``Referee.last_trick``.
- 3a-3h declarations: ``{"event":"declare","seat":"N","cards":[...]}``; shown by the end of the
  second trick (3f), belotta-rebelotta by the trick in which its second card is played (3h).
  Declared cards are then known to be in that hand.  Which count is settled at the deal end.
- 4a-4f scoring: :mod:`.belotta_scoring`; the ``deal_end`` call adds ``outcome``, ``caller``,
  ``declarations``, ``raw`` and the rounded ``score``.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any

from referee.cards import FRENCH_32, Card
from referee.rules.calls import Call, game_call
from referee.rules.errors import EventError, OptionError, PhaseError
from referee.rules.events import ContractEvent, DealEvent, DeclareEvent, Event, GameEvent
from referee.rules.game import Game, Table, parse_deck_card
from referee.rules.games import belotta_cards as bc
from referee.rules.games.belotta_declarations import (
    BELOTTA,
    CARRE_POINTS,
    SEQUENCE_ORDER,
    Declaration,
    DeclarationError,
    check_disjoint,
    classify,
    valid_points,
)
from referee.rules.games.belotta_scoring import (
    FULL_SCORE,
    DealScore,
    MatchScore,
    add_deal,
    round_score,
    score_deal,
)
from referee.rules.obligations import show_cards
from referee.rules.options import GameOptions
from referee.rules.state import (
    DealData,
    DealResult,
    DealState,
    MatchData,
    MatchOutcome,
    MatchState,
    team_name,
)
from referee.rules.tricks import Obligation, Trick

SUITS = ("C", "D", "H", "S")
HAND_SIZE = 8
FIRST_DEAL = 5  # 1a: five cards each (three then two), then one card turned
DECLARATION_TRICKS = 2  # 3f: declarations are shown during the second trick


@dataclass(frozen=True)
class BelottaOptions(GameOptions):
    """Belotta options; every default follows the Triora document."""

    #: 2d: a void player who cannot overtrump an opponent's cut may play any card ("senza
    #: l'obbligo di sottotagliare"); True = the French rule, any trump must be played
    must_undertrump: bool = False
    #: 3a/3b: every run of five or more is a "cento" and equal declarations go to the higher
    #: run; True = a longer run beats a shorter one first (French custom)
    longer_cento_wins: bool = False
    #: 3h/4a: on a "bagno" the caller's side keeps its belotta ("always valid"); False = the
    #: defenders take every declaration, belotta included
    bagno_belotta_stays: bool = True
    #: 4e: written (rounded) points that win the match: "more than 150"
    target: int = 151

    def check(self) -> None:
        if self.target < 1:
            raise OptionError(f"option 'target' must be at least 1, got {self.target}")


@dataclass(slots=True)
class BelottaDeal(DealData):
    """Belotta's own per-deal state."""

    caller: str | None = None  #: who chose the trump (rule 1a)
    vias: int = 0  #: "via"s said so far while the trump is chosen (rule 1a)
    #: every declaration of the deal in order, void ones too (the engine's indices)
    declarations: list[tuple[str, Declaration]] = field(default_factory=list)
    void: list[int] = field(default_factory=list)  #: indices of the void declarations (3f)
    score: DealScore | None = None  #: the deal's score once it ended (None: a redeal)

    def called_by(self) -> str:
        """The caller; known once cards are played."""
        assert self.caller is not None
        return self.caller


@dataclass(slots=True)
class BelottaMatch(MatchData):
    """Belotta's own per-match state."""

    score: MatchScore = field(default_factory=MatchScore)  #: tens, raw points, pot (4b, 4e)


class Belotta(Game):
    """Belotta for four players in two pairs (partners opposite: seats 1+3 against 2+4)."""

    name = "belotta"
    seat_counts = (4,)
    deck = FRENCH_32
    options_type = BelottaOptions
    options: BelottaOptions
    dealer_draw = True  # 1f
    dealer_rotates = True  # 1b, 1d: the deal always passes to the right

    # ---------------------------------------------------------------- trump choice
    def start_deal(self, deal: DealState, event: DealEvent) -> list[Call]:
        if event.turned is None:
            raise EventError(
                "belotta 'deal' event needs key 'turned' (the card turned up, rule 1a)"
            )
        deal.turned = parse_deck_card(self, event.turned, "turned")
        deal.phase = "contract"
        deal.data = BelottaDeal()
        return []

    def can_play(self, deal: DealState) -> str | None:
        if deal.phase == "contract":
            return "the trump is not chosen yet (mando/via, rule 1a)"
        return super().can_play(deal)

    def handle_event(self, deal: DealState, event: Event) -> list[Call]:
        if isinstance(event, ContractEvent):
            return self._contract(deal, event)
        if isinstance(event, DeclareEvent):
            return self._declare(deal, event)
        if isinstance(event, GameEvent) and event.name == "via":
            return self._via(deal, event)
        raise PhaseError(f"{event.kind!r} events are not part of belotta")

    def _speaker(self, deal: DealState, said: int) -> str:
        """Who speaks after ``said`` words: rounds go round from the dealer's right (1a)."""
        return deal.next_seat(deal.dealer, 1 + said % len(deal.seats))

    def _check_speaker(self, deal: DealState, seat: str, *, first: bool = False) -> None:
        """Once a "via" is recorded the words go round in order; ``first``: also the opening
        word (a "via" always has its place; a contract with no "via" recorded may come from
        anyone, since the box need not record the "via"s before it)."""
        vias = deal.data_as(BelottaDeal).vias
        if (vias or first) and seat != self._speaker(deal, vias):
            raise PhaseError(
                f"it is {self._speaker(deal, vias)}'s turn to say mando or via, "
                f"not {seat}'s (rule 1a)"
            )

    def _via(self, deal: DealState, event: GameEvent) -> list[Call]:
        if deal.phase != "contract":
            raise PhaseError("'via' is said while the trump is chosen, not after (rule 1a)")
        if event.seat is None:
            raise EventError("'via' event needs key 'seat'")
        self._check_speaker(deal, event.seat, first=True)
        state = deal.data_as(BelottaDeal)
        state.vias += 1
        vias, turned = state.vias, deal.turned
        assert turned is not None
        rounds = 1 if turned.rank == "J" else 2
        if vias < rounds * len(deal.seats):
            return []
        rule = "1e" if rounds == 1 else "1b"
        deal.result = DealResult({}, None, {"redeal": rule})  # the engine ends the deal
        return [game_call("redeal", rule=rule, dealer=self.next_dealer(deal))]

    def _contract(self, deal: DealState, event: ContractEvent) -> list[Call]:
        if deal.phase != "contract":
            raise PhaseError("the trump is already chosen for this deal (rule 1a)")
        trump = event.raw.get("trump")
        if trump not in SUITS:
            raise EventError(f"key 'trump' must be one of {', '.join(SUITS)}, got {trump!r}")
        turned = deal.turned
        assert turned is not None
        self._check_speaker(deal, event.seat)
        vias = deal.data_as(BelottaDeal).vias
        if trump == turned.suit:
            if vias >= len(deal.seats):
                raise EventError(
                    f"key 'trump': the second round is on the other three suits, not {trump} "
                    "(rule 1a)"
                )
            round_ = 1
        else:
            if turned.rank == "J":
                raise EventError(
                    f"key 'trump': with a turned jack ({turned.code}) there is no second round, "
                    f"only {turned.suit} can be chosen (rule 1e)"
                )
            if 0 < vias < len(deal.seats):
                raise EventError(
                    f"key 'trump': the first round is on the turned suit {turned.suit} only (rule 1a)"
                )
            round_ = 2
        deal.trump = trump
        deal.data_as(BelottaDeal).caller = event.seat
        deal.phase = "play"
        calls: list[Call] = [
            game_call("contract", seat=event.seat, trump=trump, round=round_, turned=turned.code)
        ]
        return calls + show_cards(self, deal, event.seat, [turned])  # 1c

    # ---------------------------------------------------------------- declarations
    def _declare(self, deal: DealState, event: DeclareEvent) -> list[Call]:
        if deal.phase != "play" or deal.trump is None:
            raise PhaseError("declarations come after the trump is chosen (rule 3a)")
        seat = event.seat
        cards = [parse_deck_card(self, code, "cards") for code in event.cards]
        state = deal.data_as(BelottaDeal)
        void = state.void
        try:
            decl = classify(cards, deal.trump)
            mine = [d for i, (s, d) in enumerate(state.declarations)
                    if s == seat and i not in void]
            check_disjoint(mine, decl)
        except DeclarationError as exc:
            raise EventError(f"key 'cards': {exc}") from None
        if event.raw.get("void") is True:  # the engine's mark: later plays contradicted it
            void.append(len(state.declarations))
            state.declarations.append((seat, decl))
            return []  # its cards are in no hand and prove nothing
        self._check_timing(deal, seat, decl)
        self._check_ownership(deal, seat, cards)
        state.declarations.append((seat, decl))
        calls: list[Call] = [game_call("declaration", seat=seat, **decl.to_dict())]
        unplayed = [c for c in cards if c not in deal.played[seat]]
        return calls + show_cards(self, deal, seat, unplayed)

    def contradicted(self, deal: DealState, seat: str, card: Card) -> int | None:
        """3f: an accuso is valid only with its cards shown; one its cards turn out not to be
        in the declarer's hand was never really shown: the engine voids it (not counted, its
        cards free, the obligations they proved unproven)."""
        state = deal.data_as(BelottaDeal)
        void = state.void
        live = [(i, s, d) for i, (s, d) in enumerate(state.declarations) if i not in void]
        caller = state.caller
        for i, s, d in live:  # another seat lays a card only a declaration put in s's hand
            certain = card == deal.turned and s == caller  # 1c: the caller took it, seen by all
            if s != seat and card in d.cards and card in deal.known[s] and not certain:
                return i
        if len(deal.played[seat]) + len(deal.known[seat]) < HAND_SIZE:
            return None
        for i, s, d in reversed(live):  # the declarer's own hand has no room for them left
            if s == seat and any(c in deal.known[seat] for c in d.cards):
                return i
        return None

    def _check_timing(self, deal: DealState, seat: str, decl: Declaration) -> None:
        if decl.kind != BELOTTA:
            if len(deal.tricks) >= DECLARATION_TRICKS:
                raise PhaseError(
                    "declarations must be shown by the end of the second trick (rule 3f)"
                )
            return
        # the K and the Q go in two tricks: late once both of those tricks are gathered
        done = [t for t in deal.tricks if any(c in decl.cards for s, c in t.plays if s == seat)]
        if len(done) == 2:
            raise PhaseError("belotta is said by the end of the trick of its second card (rule 3h)")

    def _check_ownership(self, deal: DealState, seat: str, cards: list[Card]) -> None:
        for other in deal.seats:
            if other == seat:
                continue
            for card in cards:
                if card in deal.played[other]:
                    raise EventError(f"key 'cards': {card.code} was played by {other}")
                if card in deal.known[other]:
                    raise EventError(f"key 'cards': {card.code} is known to be in {other}'s hand")
        held = set(deal.played[seat]) | set(deal.known[seat]) | set(cards)
        if len(held) > HAND_SIZE:
            raise EventError(
                f"key 'cards': {seat} cannot hold {len(held)} cards (played, shown and declared)"
            )

    # ---------------------------------------------------------------- tricks
    def teams(self, deal: DealState) -> tuple[tuple[str, ...], ...]:
        s = deal.seats
        return ((s[0], s[2]), (s[1], s[3]))

    def tricks_per_deal(self, deal: DealState) -> int:
        return HAND_SIZE

    def trick_winner(self, deal: DealState, trick: Trick) -> int:
        assert deal.trump is not None
        return bc.trick_winner(trick.cards, deal.trump)

    def card_points(self, deal: DealState, card: Card) -> int:
        assert deal.trump is not None
        return bc.card_points(card, deal.trump)

    def trick_points(self, deal: DealState, trick: Trick) -> int:
        """Card points, plus 10 for the last trick (100 when it completes a cappotto, 2g)."""
        points = super().trick_points(deal, trick)
        if trick.number < HAND_SIZE:
            return points
        caller_team = self._team_index(deal, deal.data_as(BelottaDeal).called_by())
        winners = {self._team_index(deal, self._winner(deal, t)) for t in [*deal.tricks, trick]}
        cappotto = winners == {caller_team}
        return points + (bc.CAPPOTTO_LAST_TRICK_BONUS if cappotto else bc.LAST_TRICK_BONUS)

    def obligations(self, deal: DealState, trick: Trick, seat: str, card: Card) -> list[Obligation]:
        trump = deal.trump
        if trump is None or not trick.plays:
            return []
        holder = trick.plays[bc.trick_winner(trick.cards, trump)][0]
        raw = bc.obligations(
            trick.cards,
            card,
            trump,
            must_undertrump=self.options.must_undertrump,
            partner_winning=holder == deal.next_seat(seat, 2),
        )
        return [Obligation(rule, cards, _detail(rule, trick, trump)) for rule, cards in raw]

    def _winner(self, deal: DealState, trick: Trick) -> str:
        return trick.plays[self.trick_winner(deal, trick)][0]

    def _team_index(self, deal: DealState, seat: str) -> int:
        return 0 if seat in self.teams(deal)[0] else 1

    # ---------------------------------------------------------------- scoring
    def score_deal(self, deal: DealState) -> DealResult:
        pot_in = _pot(deal)
        score, declared, valid = self._score(deal, pot_in)
        state = deal.data_as(BelottaDeal)
        state.score = score
        names = [team_name(t) for t in self.teams(deal)]
        return DealResult(
            {names[i]: score.card_points[i] for i in (0, 1)},
            None if score.winner is None else names[score.winner],
            {
                "caller": state.caller,
                "trump": deal.trump,
                "outcome": score.outcome,
                "declarations": [
                    {"seat": seat, **d.to_dict(), "valid": ok}
                    for (seat, d), ok in zip(declared, valid, strict=True)
                ],
                "declaration_points": {names[i]: score.declarations[i] for i in (0, 1)},
                "raw": {names[i]: score.raw[i] for i in (0, 1)},
                "score": {names[i]: score.rounded[i] for i in (0, 1)},
                "pot_in": pot_in,  # 4b: won by this deal's winner (kept in play on a tie)
                "pot": score.pot_out,
            },
        )

    def _score(
        self, deal: DealState, pot_in: int
    ) -> tuple[DealScore, list[tuple[str, Declaration]], list[bool]]:
        assert deal.trump is not None
        trump = deal.trump
        trick_teams = [self._team_index(deal, self._winner(deal, t)) for t in deal.tricks]
        trick_points = [bc.trick_points(t.cards, trump) for t in deal.tricks]
        first = self.first_leader(deal)
        order = [deal.next_seat(first, k) for k in range(len(deal.seats))]
        state = deal.data_as(BelottaDeal)
        declared = state.declarations
        # A declaration whose cards the declarer did not all play (belotta: K and Q) is void.
        void = state.void
        genuine = [
            i not in void and set(d.cards) <= set(deal.played[s])
            for i, (s, d) in enumerate(declared)
        ]
        contest = [(order.index(s), d) for (s, d), ok in zip(declared, genuine, strict=True) if ok]
        team_of = [self._team_index(deal, s) for s in order]
        ok_contest, points = valid_points(
            contest, team_of, trump, longer_cento_wins=self.options.longer_cento_wins
        )
        verdicts = iter(ok_contest)
        valid = [next(verdicts) if g else False for g in genuine]
        belotta = [0, 0]
        for (seat, d), ok in zip(declared, valid, strict=True):
            if ok and d.kind == BELOTTA:
                belotta[self._team_index(deal, seat)] += d.points
        score = score_deal(
            trick_teams,
            trick_points,
            self._team_index(deal, state.called_by()),
            (points.get(0, 0), points.get(1, 0)),
            belotta,
            pot_in,
            bagno_belotta_stays=self.options.bagno_belotta_stays,
        )
        return score, declared, valid

    def forfeit(self, deal: DealState, seat: str, rule: str) -> DealResult | None:
        """A lost deal (option ``out_of_turn="lose_game"``): the other side scores 162 (4a)."""
        result = super().forfeit(deal, seat, rule)
        if result is None or result.winner is None:
            return result
        names = [team_name(t) for t in self.teams(deal)]
        winner = names.index(result.winner)
        raw = (FULL_SCORE, 0) if winner == 0 else (0, FULL_SCORE)
        rounded = (round_score(raw[0]), round_score(raw[1]))
        state = deal.data_as(BelottaDeal)
        state.score = DealScore("forfeit", winner, (0, 0), raw, (0, 0), raw, rounded, 0)
        extra = {
            **result.extra,
            "caller": state.caller,
            "outcome": "forfeit",
            "raw": dict(zip(names, raw, strict=True)),
            "score": dict(zip(names, rounded, strict=True)),
        }
        return DealResult(result.points, result.winner, extra)

    def new_match(self, seats: tuple[str, ...]) -> MatchState:
        match = MatchState(self.name, seats, self.options)
        match.score = {team_name((seats[0], seats[2])): 0, team_name((seats[1], seats[3])): 0}
        match.data = BelottaMatch()
        return match

    def add_deal(
        self, match: MatchState, deal: DealState, result: DealResult
    ) -> MatchOutcome | None:
        ms = match.data_as(BelottaMatch).score
        score = deal.data_as(BelottaDeal).score
        if score is None:  # a redeal (1b, 1e): nothing scored, the pot stays
            return None
        if score.outcome == "forfeit":  # nobody won the pot on the cards: it stays in play
            score = dataclasses.replace(score, pot_out=ms.pot)
        names = list(match.score)
        winner = add_deal(ms, score, self.options.target)
        match.score = {names[i]: ms.rounded[i] for i in (0, 1)}
        if winner is None:
            return None
        return MatchOutcome(
            names[winner],
            dict(match.score),
            {"raw": {names[i]: ms.raw[i] for i in (0, 1)}, "deals": ms.deals},
        )

    # ---------------------------------------------------------------- playouts
    def deal_hands(self, rng: random.Random, seats: tuple[str, ...], dealer: str) -> Table:
        """1a: five cards each from the dealer's right, one turned; the rest wait for 1c."""
        cards = list(self.deck)
        rng.shuffle(cards)
        order = _from_right(seats, dealer)
        hands = {seat: cards[i * FIRST_DEAL : (i + 1) * FIRST_DEAL] for i, seat in enumerate(order)}
        turned = cards[FIRST_DEAL * len(seats)]
        stock = cards[FIRST_DEAL * len(seats) + 1 :]
        return Table(hands, stock, {"turned": turned.code})

    def playout_events(
        self, deal: DealState, table: Table, rng: random.Random
    ) -> list[dict[str, Any]]:
        if deal.phase == "contract":
            return self._playout_contract(deal, table, rng)
        seat = deal.turn
        if deal.phase != "play" or seat is None or deal.tricks or deal.played[seat]:
            return []
        assert deal.trump is not None
        mine = [d.cards for s, d in deal.data_as(BelottaDeal).declarations if s == seat]
        return [
            {"event": "declare", "seat": seat, "cards": [c.code for c in cards]}
            for cards in find_declarations(table.hands[seat], deal.trump)
            if cards not in mine and rng.random() < 0.8
        ]

    def _playout_contract(
        self, deal: DealState, table: Table, rng: random.Random
    ) -> list[dict[str, Any]]:
        turned = deal.turned
        assert turned is not None
        second = turned.rank != "J" and rng.random() < 0.4
        k = rng.randrange(len(deal.seats))
        caller = self._speaker(deal, k)
        trump = rng.choice([s for s in SUITS if s != turned.suit]) if second else turned.suit
        said = k + (len(deal.seats) if second else 0)
        events: list[dict[str, Any]] = []
        if rng.random() < 0.5:  # sometimes the box also records the "via"s
            events = [{"event": "via", "seat": self._speaker(deal, i)} for i in range(said)]
        events.append({"event": "contract", "seat": caller, "trump": trump})
        for seat in _from_right(deal.seats, deal.dealer):  # 1c: three each, two and the turned
            if seat == caller:
                table.hands[seat] += [turned, table.stock.pop(0), table.stock.pop(0)]
            else:
                table.hands[seat] += [table.stock.pop(0) for _ in range(3)]
        return events


def _pot(deal: DealState) -> int:
    """4b: raw points left in play by earlier tied deals (the match as this deal began)."""
    carry = deal.carry
    return carry.score.pot if isinstance(carry, BelottaMatch) else 0


def _from_right(seats: tuple[str, ...], dealer: str) -> list[str]:
    i = seats.index(dealer) + 1
    return list(seats[i:] + seats[:i])


def _detail(rule: str, trick: Trick, trump: str) -> str:
    led = trick.led_suit
    if rule == bc.REVOKE:
        return f"held {led} to follow the suit led (rule {'2f' if led == trump else '2c'})"
    if rule == bc.MUST_TRUMP:
        return f"void in {led}, held a trump {trump} (rule 2c)"
    return f"held a trump that beats the one on the table (rule {'2f' if led == trump else '2d'})"


def find_declarations(hand: list[Card], trump: str) -> list[tuple[Card, ...]]:
    """The declarations a hand can make (carrés first, then the longest runs of the rest, then
    belotta), each as the sorted card tuple :func:`classify` produces; for random playouts."""
    found: list[tuple[Card, ...]] = []
    used: set[Card] = set()
    for rank in CARRE_POINTS:
        four = [c for c in hand if c.rank == rank]
        if len(four) == 4:
            found.append(classify(four, trump).cards)
            used |= set(four)
    for suit in SUITS:
        idx = sorted(SEQUENCE_ORDER.index(c.rank) for c in hand if c.suit == suit and c not in used)
        run: list[int] = []
        for i in [*idx, 99]:
            if run and i == run[-1] + 1:
                run.append(i)
                continue
            if len(run) >= 3:
                found.append(classify([Card(suit, SEQUENCE_ORDER[j]) for j in run], trump).cards)
            run = [i]
    if Card(trump, "K") in hand and Card(trump, "Q") in hand:
        found.append(classify([Card(trump, "K"), Card(trump, "Q")], trump).cards)
    return found
