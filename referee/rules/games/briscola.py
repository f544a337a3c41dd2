"""Briscola heads-up (``briscola-2``) and in pairs (``briscola-4``).

Sources: ``briscola-torneo-4-giocatori.txt`` (tournament rules, the default for briscola-4) and
``briscola-2-e-4-giocatori.txt`` (heads-up and pairs).  The referee sees only the cards laid
face up, so the stock draws (winner first, the last draw takes the face-up briscola) are not
checked, except that the face-up briscola cannot be played while it still lies under the stock.

Rules -> code (numbers of the tournament document, "2/4" = the other document):
- 1 dealer by highest card, repeated on ties: the engine's ``draw`` event (:meth:`draw_strength`).
- 3 deal of 3, then the face-up briscola (``trump_card``) sets the trump suit: :meth:`start_deal`.
- 4 the first player after the dealer leads, the trick winner leads next: engine + hooks
  (option ``first_leader``: torneo 3-4 deal and draw to the right but play "in senso orario";
  ``"before_dealer"`` reads that literally, the dealer's right leading with the dealer second).
- 5 card order 2 < 4 < 5 < 6 < 7 < fante < cavallo < re < 3 < asso; highest trump wins, else
  the highest card of the led suit: :func:`~referee.rules.tricks.winner_index`.
- 7 the last draw takes the face-up briscola: :meth:`unavailable` (it cannot be played earlier,
  nor by another seat than the last to draw).
- 8 points 11/10/4/3/2 (120 in all), 61 wins, 60-60 -> the last trick's side (option ``tie``;
  2/4 says replay the round: briscola-2's default).
- 2/4 "the round ends when a side reaches 61": option ``end_at_61`` (default: played out).
- 9 best of 3 (option ``rounds_to_win``, 2/4: "the number of rounds set for the match").
- 10 out-of-turn play loses the game (option ``out_of_turn``; briscola-2: report only).
- 2/4 pairs sit alternately (A-C vs B-D): seats 1+3 vs 2+4 in play order; 20-second move timer
  (option ``move_timer_s``, enforced by the box, not by the rules core).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import ClassVar, Literal

from referee.cards import ITALIAN_40, Card, Deck
from referee.rules.calls import Call
from referee.rules.errors import EventError, OptionError
from referee.rules.events import DealEvent
from referee.rules.game import Game, Table, parse_deck_card
from referee.rules.options import GameOptions, OutOfTurn
from referee.rules.state import DealResult, DealState, MatchOutcome, MatchState, team_name
from referee.rules.tricks import BRISCOLA_POINTS, BRISCOLA_STRENGTH, Trick, winner_index

HAND_SIZE = 3
WINNING_POINTS = 61


@dataclass(frozen=True)
class BriscolaOptions(GameOptions):
    """Options of both Briscola games (defaults: the tournament document, for briscola-4)."""

    #: 60-60: "last_trick" = the side that took the last trick wins (tournament rule 8);
    #: "replay" = no round is awarded and another deal is played (the 2/4 document)
    tie: Literal["last_trick", "replay"] = "last_trick"
    #: rounds (deals) a side must win to take the match: 2 = best of 3 (tournament rule 9)
    rounds_to_win: int = 2
    #: seconds per move before the box plays a random card (2/4 document); None = no timer
    move_timer_s: float | None = None
    #: tournament rule 10: an out-of-turn play loses the game (deal) for the pair
    out_of_turn: OutOfTurn = "lose_game"
    #: who leads the first trick, in the play order of the seats: "after_dealer" = the seat
    #: dealt the first card plays first and play goes on the way the cards were dealt (torneo
    #: 3-4 deal and draw "to the right", 2/4 deals "antiorario"); "before_dealer" = torneo 4
    #: read with play "in senso orario" against a deal from the dealer's right, so the dealer
    #: plays second, and the stock is drawn the other way round from play (to the right)
    first_leader: Literal["after_dealer", "before_dealer"] = "after_dealer"
    #: 2/4 "una smazzata finisce al raggiungimento di 61 punti": True = the deal ends with the
    #: trick that brings a side to 61 (the table stops there); False = the cards are played
    #: out and all 120 points counted (torneo 8), the winner being the same
    end_at_61: bool = False

    def check(self) -> None:
        if self.rounds_to_win < 1:
            raise OptionError(
                f"option 'rounds_to_win' must be at least 1, got {self.rounds_to_win}"
            )
        if self.move_timer_s is not None and not 0 < self.move_timer_s < math.inf:  # NaN too
            raise OptionError(f"option 'move_timer_s' must be positive, got {self.move_timer_s}")


@dataclass(frozen=True)
class Briscola2Options(BriscolaOptions):
    """Heads-up defaults from the 2/4 document: 60-60 replays, 20 s timer, no out-of-turn cost."""

    tie: Literal["last_trick", "replay"] = "replay"
    move_timer_s: float | None = 20.0
    out_of_turn: OutOfTurn = "report"


class Briscola(Game):
    """Shared Briscola rules; :class:`Briscola2` and :class:`Briscola4` fix the table size."""

    deck: ClassVar[Deck] = ITALIAN_40
    options_type = BriscolaOptions
    options: BriscolaOptions
    dealer_draw = True

    def start_deal(self, deal: DealState, event: DealEvent) -> list[Call]:
        if event.trump_card is None:
            raise EventError(
                f"{self.name} 'deal' event needs key 'trump_card' (the face-up briscola)"
            )
        card = parse_deck_card(self, event.trump_card, "trump_card")
        deal.trump_card = card
        deal.trump = card.suit
        deal.phase = "play"
        return []

    def first_leader(self, deal: DealState) -> str:
        step = -1 if self.options.first_leader == "before_dealer" else 1
        return deal.next_seat(deal.dealer, step)

    def teams(self, deal: DealState) -> tuple[tuple[str, ...], ...]:
        seats = deal.seats
        if len(seats) == 4:  # partners sit opposite: 1st+3rd vs 2nd+4th in play order
            return ((seats[0], seats[2]), (seats[1], seats[3]))
        return tuple((seat,) for seat in seats)

    def unavailable(self, deal: DealState, seat: str, card: Card) -> str | None:
        if card != deal.trump_card:
            return None
        free_after = self._stock_tricks(len(deal.seats))
        if len(deal.tricks) >= free_after:
            holder = self._last_drawer(deal, free_after)
            if holder is None or holder == seat:
                return None
            return f"{card.code} is the face-up briscola, taken by {holder} with the last draw"
        return (
            f"{card.code} is the face-up briscola, still under the stock until trick "
            f"{free_after + 1}"
        )

    def _draw_step(self) -> int:
        """Torneo 4: the trick winner draws first, then the next seats in play order, or in
        the other direction when play goes against the deal (``first_leader="before_dealer"``)."""
        return -1 if self.options.first_leader == "before_dealer" else 1

    def _last_drawer(self, deal: DealState, free_after: int) -> str | None:
        """Torneo 7: who took the face-up briscola: the seat that drew last after the last
        trick before the stock ran out (its winner leads the next trick)."""
        if len(deal.tricks) > free_after:
            winner = deal.tricks[free_after].leader
        elif deal.trick is not None:
            winner = deal.trick.leader
        else:
            return None
        return deal.next_seat(winner, -self._draw_step())

    def _stock_tricks(self, players: int) -> int:
        """Tricks after which the stock (face-up briscola included) is all drawn."""
        return (len(self.deck) - HAND_SIZE * players) // players

    def trick_winner(self, deal: DealState, trick: Trick) -> int:
        return winner_index(trick.cards, deal.trump, BRISCOLA_STRENGTH)

    def card_points(self, deal: DealState, card: Card) -> int:
        return BRISCOLA_POINTS.get(card.rank, 0)

    def after_trick(self, deal: DealState, trick: Trick, winner: str) -> list[Call]:
        if self.options.end_at_61 and len(deal.tricks) < self.tricks_per_deal(deal):
            side = next(team for team in self.teams(deal) if winner in team)
            if sum(deal.points[s] for s in side) >= WINNING_POINTS:
                deal.result = self.score_deal(deal)  # the engine ends the deal
                deal.phase = "over"
        return []

    def score_deal(self, deal: DealState) -> DealResult:
        teams = self.teams(deal)
        points = {team_name(t): sum(deal.points[s] for s in t) for t in teams}
        top = max(points.values())
        leaders = [name for name, p in points.items() if p == top]
        if top >= WINNING_POINTS or len(leaders) == 1:
            return DealResult(points, leaders[0])
        last = self.team_of(deal, deal.last_winner or "")
        if self.options.tie == "last_trick":
            return DealResult(points, last, {"tie": "last_trick"})
        return DealResult(points, None, {"tie": "replay"})

    def new_match(self, seats: tuple[str, ...]) -> MatchState:
        match = MatchState(self.name, seats, self.options)
        if len(seats) == 4:
            names = [team_name((seats[0], seats[2])), team_name((seats[1], seats[3]))]
        else:
            names = list(seats)
        match.score = dict.fromkeys(names, 0)
        return match

    def add_deal(
        self, match: MatchState, deal: DealState, result: DealResult
    ) -> MatchOutcome | None:
        if result.winner is None:
            return None  # 60-60 replayed: no round awarded
        match.score[result.winner] += 1
        if match.score[result.winner] >= self.options.rounds_to_win:
            return MatchOutcome(result.winner, dict(match.score), {"deals": match.deals})
        return None

    # ---------------------------------------------------------------- playouts
    def deal_hands(self, rng: random.Random, seats: tuple[str, ...], dealer: str) -> Table:
        cards = list(self.deck)
        rng.shuffle(cards)
        n = len(seats)
        hands = {seat: cards[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i, seat in enumerate(seats)}
        trump_card = cards[HAND_SIZE * n]
        stock = [*cards[HAND_SIZE * n + 1 :], trump_card]  # the face-up card is drawn last
        return Table(hands, stock, {"trump_card": trump_card.code})

    def refill(self, deal: DealState, table: Table, winner: str) -> None:
        if not table.stock:
            return
        for k in range(len(deal.seats)):  # the winner draws first
            table.hands[deal.next_seat(winner, k * self._draw_step())].append(table.stock.pop(0))


class Briscola2(Briscola):
    """Heads-up Briscola (2/4 document)."""

    name = "briscola-2"
    seat_counts = (2,)
    options_type = Briscola2Options


class Briscola4(Briscola):
    """Briscola in pairs, tournament rules by default."""

    name = "briscola-4"
    seat_counts = (4,)
    options_type = BriscolaOptions
