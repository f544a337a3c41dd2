"""The :class:`Referee`: events in, calls out, for whole matches of any registered game.

    ref = Referee()
    ref.apply({"event": "deal", "game": "briscola-2", "seats": ["A", "B"],
               "dealer": "B", "trump_card": "coppe_1"})   # -> [TurnCall(seat='A')]
    ref.apply({"event": "play", "seat": "A", "card": "spade_3"})   # -> [TurnCall(seat='B')]
    ref.turn, ref.deal.trick, ref.outcome                          # plain data

``apply`` raises :class:`~referee.rules.errors.EventError` (malformed) or
:class:`~referee.rules.errors.PhaseError` (not allowed now) and then leaves the state exactly as
it was.  Rule breaking is not an exception: it is a :class:`ViolationCall` in the result.

What the engine does for every game (games only answer the hooks of
:class:`~referee.rules.game.Game`):
- turn order; an out-of-turn card stays as that seat's play and is reported (its cost is the
  game's :meth:`~referee.rules.game.Game.penalty`);
- ``bad_card`` (not in the deck) and ``duplicate_card`` (more copies than the deck has): reported
  and NOT recorded, since they are almost always misreads the operator will correct
  (:mod:`~referee.rules.violations`);
- deferred obligations: a play's :class:`~referee.rules.tricks.Obligation` sets wait until the
  seat plays or shows a card in them, which proves the earlier play illegal; one violation per
  play at most (:mod:`~referee.rules.obligations`);
- tricks, deal end, match scoring across deals, the highest-card dealer draw
  (:mod:`~referee.rules.dealer_draw`);
- ``undo`` and rebuilds (:mod:`~referee.rules.undo`): the last play (or declaration) is
  retracted by replaying the events without it from the match as it was when that deal began,
  across deal boundaries; after a rebuild (undo, a declaration voided by a later play) the
  table is told which violations no longer stand (``withdrawn``) and which stand again.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.cards import Card
from referee.errors import RefereeError
from referee.rules.calls import Call, TrickCall, TurnCall, ViolationCall
from referee.rules.dealer_draw import dealer_draw
from referee.rules.errors import EventError, PhaseError
from referee.rules.events import (
    EVENT_TYPES,
    DealEvent,
    DeclareEvent,
    DrawEvent,
    Event,
    PlayEvent,
    UndoEvent,
    parse_event,
)
from referee.rules.game import Game, deck_lookup, get_game
from referee.rules.obligations import check_play
from referee.rules.options import parse_options
from referee.rules.possible import why_unavailable
from referee.rules.state import DealResult, DealState, MatchOutcome, MatchState
from referee.rules.tricks import Trick
from referee.rules.undo import (
    UNDO_DEALS,
    DealLog,
    Snapshot,
    copy_match,
    restated,
    retraction,
    undo_call,
)
from referee.rules.violations import rejected, violation


class Referee:
    """Referees consecutive deals and matches from a stream of events (see module docs)."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.match: MatchState | None = None
        self.deal: DealState | None = None
        #: accepted events of the current deal, starting with its deal event (for undo)
        self._deal_events: list[Event] = []
        #: (match, next dealer) as they were when the current deal began
        self._snapshot: Snapshot = (None, None)
        #: logs of the deals before the current one, newest last (undo crosses into them)
        self._history: list[DealLog] = []
        #: dealer for the next deal when its event names none (draw winner or rotation)
        self._next_dealer: str | None = None
        self._drawn_dealer: str | None = None
        self._redraw: tuple[str, ...] | None = None

    def __repr__(self) -> str:
        if self.deal is None:
            return "Referee()"
        return (
            f"<Referee {self.deal.game} deal={self.deal.number} trick={self.deal.trick_number} "
            f"turn={self.deal.turn!r} phase={self.deal.phase!r}>"
        )

    @classmethod
    def from_events(cls, events: Iterable[Mapping[str, Any] | Event]) -> Referee:
        """A referee that has applied ``events`` (errors propagate)."""
        ref = cls()
        for event in events:
            ref.apply(event)
        return ref

    # ------------------------------------------------------------- queries
    @property
    def turn(self) -> str | None:
        """Whose turn it is, or ``None`` (no deal, contract phase, deal over)."""
        return None if self.deal is None else self.deal.turn

    @property
    def deal_events(self) -> tuple[Event, ...]:
        """The current deal's accepted events, its deal event first (read-only): replaying
        them with :meth:`from_events` rebuilds the deal, e.g. to try a play on a copy."""
        return tuple(self._deal_events)

    @property
    def result(self) -> DealResult | None:
        """The current deal's result once it is over."""
        return None if self.deal is None else self.deal.result

    @property
    def outcome(self) -> MatchOutcome | None:
        """The match outcome once the match is over."""
        return None if self.match is None else self.match.outcome

    @property
    def next_dealer(self) -> str | None:
        """Who deals next when the next deal event names no dealer (draw winner or rotation)."""
        return self._next_dealer

    @property
    def last_trick(self) -> Trick | None:
        """The last completed trick of the current deal (belotta rule 2h: it may be shown)."""
        if self.deal is None or not self.deal.tricks:
            return None
        return self.deal.tricks[-1]

    def legal_plays(self, seat: str, hand: Sequence[Card]) -> list[Card]:
        """Which cards of ``hand`` ``seat`` may play now (for simulators and tests)."""
        if self.game is None or self.deal is None:
            raise PhaseError("no deal in progress")
        return self.game.legal_plays(self.deal, seat, list(hand))

    # ------------------------------------------------------------- events
    def apply(self, event: Mapping[str, Any] | Event) -> list[Call]:
        """Apply one event; return the calls it causes (see module docs)."""
        ev = (
            parse_event(event)
            if type(event) is dict or not isinstance(event, EVENT_TYPES)
            else event
        )
        if isinstance(ev, PlayEvent):
            return self._play(ev)
        if isinstance(ev, DealEvent):
            return self._start_deal(ev)
        if isinstance(ev, UndoEvent):
            return self._undo()
        if isinstance(ev, DrawEvent):
            return self._draw(ev)
        return self._game_event(ev)

    def _live(self) -> tuple[Game, DealState]:
        if self.game is None or self.deal is None:
            raise PhaseError("no deal in progress: send a 'deal' event first")
        if self.deal.phase == "over":
            raise PhaseError(f"deal {self.deal.number} is over: send the next 'deal' event")
        return self.game, self.deal

    def _seat(self, deal: DealState, seat: str | None) -> str:
        if seat is None or seat not in deal.seats:
            raise EventError(f"key 'seat': {seat!r} is not one of the seats {list(deal.seats)!r}")
        return seat

    def _game_event(self, ev: Event) -> list[Call]:
        game, deal = self._live()
        seat = getattr(ev, "seat", None)
        if seat is not None:
            self._seat(deal, seat)
        try:
            calls = game.handle_event(deal, ev)
        except RefereeError:
            self._rebuild(self._deal_events, self.deal)  # the game may have half-changed it
            raise
        self._deal_events.append(ev)
        if self._settle(game, deal, calls):
            return calls
        calls.extend(self._maybe_start_play(game, deal))
        return calls

    def _settle(self, game: Game, deal: DealState, calls: list[Call]) -> bool:
        """A hook ended the deal itself (``deal.result`` set: void deal, forfeit): finish it
        once as any deal ends (match score, next dealer, ``deal_end``).  True if over."""
        assert self.match is not None
        if deal.result is not None and self.match.deals < deal.number:
            calls.extend(self._end_deal(game, deal, deal.result))
        return deal.phase == "over" or deal.result is not None

    # ------------------------------------------------------------- deal start
    def _start_deal(self, ev: DealEvent) -> list[Call]:
        if self.deal is not None and self.deal.phase != "over":
            raise PhaseError(
                f"deal {self.deal.number} is not finished (trick {self.deal.trick_number})"
            )
        calls: list[Call] = []
        if self.match is None or self.match.outcome is not None:
            game = get_game(ev.game)(ev.options)
            if len(ev.seats) not in game.seat_counts:
                raise EventError(
                    f"key 'seats': {ev.game} is played by {' or '.join(map(str, game.seat_counts))}"
                    f" players, got {len(ev.seats)}"
                )
            match = game.new_match(ev.seats)
            number = 1
        else:
            game, match = self._continuing(ev)
            number = match.deals + 1
        dealer = ev.dealer or self._next_dealer
        if self._drawn_dealer is not None and number == 1 and dealer != self._drawn_dealer:
            calls.append(
                ViolationCall(
                    seat=dealer or ev.seats[-1],
                    rule="wrong_dealer",
                    trick=0,
                    detail=f"the draw chose {self._drawn_dealer} to deal",
                    expected=self._drawn_dealer,
                )
            )
        if (
            game.dealer_rotates
            and number > 1
            and ev.dealer is not None
            and self._next_dealer is not None
            and ev.dealer != self._next_dealer
        ):
            calls.append(
                ViolationCall(
                    seat=ev.dealer,
                    rule="wrong_dealer",
                    trick=0,
                    detail=f"the deal passes to {self._next_dealer}",
                    expected=self._next_dealer,
                )
            )
        if dealer not in ev.seats:
            dealer = ev.seats[-1]
        deal = DealState(ev.game, number, ev.seats, dealer, game.options)
        deal.carry = copy.deepcopy(match.data)
        calls.extend(game.start_deal(deal, ev))  # raises before anything is committed
        snapshot = (copy_match(match), self._next_dealer)
        if self.deal is not None and self.game is not None:
            self._history.append(DealLog(self.game, self._snapshot, self._deal_events, self.deal))
            del self._history[:-UNDO_DEALS]
        self.game, self.match, self.deal = game, match, deal
        self._snapshot = snapshot
        self._deal_events = [ev]
        self._drawn_dealer = self._redraw = None
        calls.extend(self._maybe_start_play(game, deal))
        return calls

    def _continuing(self, ev: DealEvent) -> tuple[Game, MatchState]:
        game, match = self.game, self.match
        assert game is not None and match is not None
        if ev.game != match.game or ev.seats != match.seats:
            raise PhaseError(
                f"a {match.game} match with seats {list(match.seats)} is in progress "
                f"(after deal {match.deals}); its next deal must use the same game and seats"
            )
        if ev.options and parse_options(game.options_type, ev.options, game=ev.game) != (
            game.options
        ):
            raise PhaseError("options cannot change during a match (leave them out or repeat them)")
        return game, match

    def _maybe_start_play(self, game: Game, deal: DealState) -> list[Call]:
        if deal.trick is not None or deal.phase != "play" or game.can_play(deal) is not None:
            return []
        leader = game.first_leader(deal)
        deal.trick = Trick(deal.trick_number, leader)
        deal.turn = leader
        return [TurnCall(leader)]

    # ------------------------------------------------------------- the dealer draw
    def _draw(self, ev: DrawEvent) -> list[Call]:
        if self.match is not None and self.match.outcome is None:
            raise PhaseError("the dealer is drawn before a match's first deal")
        outcome = dealer_draw(ev, type(self.game) if self.game else None, self._redraw)
        self._redraw = outcome.redraw
        if outcome.dealer is not None:
            self._drawn_dealer = self._next_dealer = outcome.dealer
        return [outcome.call()]

    # ------------------------------------------------------------- plays
    def _play(self, ev: PlayEvent) -> list[Call]:
        game, deal = self._live()
        seat = self._seat(deal, ev.seat)
        why = game.can_play(deal)
        if why is not None:
            raise PhaseError(f"no plays yet: {why}")
        trick = deal.trick
        assert trick is not None
        card = _deck_card(game, ev.card)
        if card is None:
            return rejected(
                deal,
                seat,
                "bad_card",
                f"{ev.card!r} is not a card of the {game.deck.name} deck",
                card=ev.card,
            )
        if _has_played(trick, seat):
            return rejected(
                deal,
                seat,
                "out_of_turn",
                f"{seat} already played to trick {trick.number}; {card.code} ignored",
                card=card.code,
                expected=deal.turn,
            )
        in_known = card in deal.known[seat]
        if not in_known and (
            deal.known[seat] or deal.seen[card] >= game.deck.copies or game.declarations_unseen
        ):
            void = game.contradicted(deal, seat, card)
            if void is not None:
                return self._void_declaration(void, ev, card)
        why_not = why_unavailable(game, deal, seat, card)
        if why_not is not None:
            return rejected(deal, seat, "duplicate_card", why_not, card=card.code)
        self._deal_events.append(ev)
        return self._record(game, deal, trick, seat, card, in_known)

    def _void_declaration(self, index: int, ev: PlayEvent, card: Card) -> list[Call]:
        """The play ``ev`` contradicts the ``index``-th declaration of the deal: rebuild the
        deal with that declaration void (its cards not in any hand, nothing they proved), report
        it as a ``false_declaration``, withdraw the violations only it proved, then take the
        play as if the declaration never was."""
        at = [i for i, e in enumerate(self._deal_events) if isinstance(e, DeclareEvent)][index]
        old = self._deal_events[at]
        assert isinstance(old, DeclareEvent)
        events = list(self._deal_events)
        events[at] = DeclareEvent(old.seat, old.cards, {**old.raw, "void": True})
        cards = " ".join(old.cards)
        assert self.game is not None and self.deal is not None
        rule, fields = self.game.false_declaration(self.deal, index)
        told = self._rebuild(
            events, self.deal, rule, f"{old.seat}'s declaration of {cards} is void"
        )
        assert self.deal is not None
        why = (
            f"{ev.seat} played {card.code}"
            if ev.seat != old.seat
            else f"{ev.seat} played {card.code}, and its hand has no room left for them"
        )
        call = violation(
            self.deal,
            old.seat,
            rule,
            f"{old.seat} declared {cards} but {why}: the declaration is void",
            card=cards,
            proof=card.code,
            extra={**fields, "cards": list(old.cards)},
        )
        return [call, *told, *self._play(ev)]

    def _record(
        self, game: Game, deal: DealState, trick: Trick, seat: str, card: Card, in_known: bool
    ) -> list[Call]:
        calls: list[Call] = []
        expected = deal.turn
        if seat != expected:
            calls.append(
                violation(
                    deal,
                    seat,
                    "out_of_turn",
                    f"{seat} played {card.code} but it was {expected}'s turn",
                    card=card.code,
                    expected=expected,
                )
            )
        calls.extend(check_play(game, deal, trick, seat, card, in_known))
        trick.plays.append((seat, card))
        deal.played[seat].append(card)
        if in_known:
            deal.known[seat].remove(card)
        else:
            deal.seen[card] += 1
        calls.extend(game.on_play(deal, seat, card))
        if self._settle(game, deal, calls):
            return calls
        if seat != expected:
            result = game.penalty(deal, seat, "out_of_turn")
            if result is not None:
                return calls + self._end_deal(game, deal, result)
        if len(trick.plays) >= game.trick_size(deal):
            return calls + self._take_trick(game, deal, trick)
        turn = _next_to_play(deal.seats, trick)
        if turn != deal.turn:
            deal.turn = turn
            calls.append(TurnCall(turn))
        return calls

    def _take_trick(self, game: Game, deal: DealState, trick: Trick) -> list[Call]:
        winner = trick.plays[game.trick_winner(deal, trick)][0]
        deal.tricks.append(trick)
        points = game.trick_points(deal, trick)
        deal.won[winner].extend(trick.cards)
        deal.points[winner] += points
        deal.last_winner = winner
        deal.trick = None
        calls: list[Call] = [TrickCall(trick.number, winner, trick.codes(), points)]
        calls.extend(game.after_trick(deal, trick, winner))
        if self._settle(game, deal, calls):  # the game ended the deal itself
            return calls
        if len(deal.tricks) >= game.tricks_per_deal(deal):
            return calls + self._end_deal(game, deal, game.score_deal(deal))
        deal.trick = Trick(deal.trick_number, winner)
        deal.turn = winner
        calls.append(TurnCall(winner))
        return calls

    def _end_deal(self, game: Game, deal: DealState, result: DealResult) -> list[Call]:
        assert self.match is not None
        deal.result = result
        deal.phase = "over"
        deal.turn = None
        calls: list[Call] = [result.call()]
        match = self.match
        match.deals += 1
        self._next_dealer = game.next_dealer(deal)
        outcome = game.add_deal(match, deal, result)
        if outcome is not None:
            match.outcome = outcome
            calls.append(outcome.call())
        return calls

    # ------------------------------------------------------------- undo
    def _undo(self) -> list[Call]:
        if self.deal is None or self.game is None:
            raise PhaseError("nothing to undo: no deal in progress")
        current = DealLog(self.game, self._snapshot, self._deal_events, self.deal)
        back = retraction([*self._history, current])
        if back is None:
            raise PhaseError(f"nothing to undo: no card played yet in deal {self.deal.number}")
        self._history = self._history[: back.index]
        self.game, self._snapshot = back.log.game, back.log.snapshot
        undo = undo_call(back.undone)
        what = f"{undo.seat}'s " + (f"play of {undo.card}" if undo.card else "declaration")
        told = self._rebuild(back.replay, back.log.deal, "undo", f"{what} was taken back")
        calls: list[Call] = [undo, *told]
        if self.turn is not None:
            calls.append(TurnCall(self.turn))
        return calls

    def _rebuild(
        self, events: list[Event], before: DealState | None, reason: str = "", why: str = ""
    ) -> list[Call]:
        """Replay ``events`` (a deal's, perhaps followed by later deals') from the match as it
        was when their first deal began (``self._snapshot``).  ``before``: that deal as it was;
        returns what the table must be told of its violations that changed (``reason`` and
        ``why`` say what changed them)."""
        match, next_dealer = self._snapshot
        self.match = None if match is None else copy_match(match)
        self._next_dealer = next_dealer
        self.deal = None
        calls: list[Call] = []
        for ev in events:
            try:
                calls += self.apply(ev)
            except RefereeError:
                continue  # an event the retracted play made valid is dropped with it
        after = self.deal
        if before is None or after is None or after.number != before.number:
            return []
        after.violations += before.rejected  # misreads were reported; no event replays them
        after.rejected += before.rejected
        return restated(before, after, calls, reason, why)


def _deck_card(game: Game, code: str) -> Card | None:
    return deck_lookup(game.deck).get(code)


def _has_played(trick: Trick, seat: str) -> bool:
    return any(s == seat for s, _ in trick.plays)


def _next_to_play(seats: tuple[str, ...], trick: Trick) -> str:
    """The first seat from the trick's leader, in play order, that has not played to it."""
    played = {s for s, _ in trick.plays}
    n = len(seats)
    i = seats.index(trick.leader)
    for k in range(n):
        seat = seats[(i + k) % n]
        if seat not in played:
            return seat
    return trick.leader
