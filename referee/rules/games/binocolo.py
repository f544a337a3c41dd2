"""Binocolo (``binocolo``): 48 cards (9 to Ace twice), 3 or 4 players, one against all.

Spec: ``../shared/rules/binocolo-48-carte.txt`` (numbers below are its paragraphs).  The pure
rules live beside this file: :mod:`.binocolo_rules` (card order and points, tricks,
obligations, scoring, the race to 100) and :mod:`.binocolo_melds` (the accusi); this module
wires them to the engine.

Rules -> code:
- 1 the 48-card deck ``BINOCOLO_48``: a third copy of a face is ``duplicate_card`` (engine).
- 2 three or four players (``seat_counts``); everyone scores for himself.
- 3 K, 10 and A are worth 1 point (24) + 1 for the last trick = 25 a deal (:meth:`trick_points`).
- 3.1-3.8 melds arrive as ``{"event":"declare","seat":"N","cards":[...]}``; the referee works
  out the kind and value (a ``declaration`` call) and rejects cards that are no meld, or that
  the known cards make impossible (an error).  A meld whose cards its seat never plays is
  false: a ``false_meld`` violation as soon as other seats' plays prove it (:meth:`contradicted`:
  the engine voids it, and withdraws what it alone proved), and it does not count.
- 4.1 11 cards each and a widow of 4 (15 and 3 with three players): :meth:`tricks_per_deal`.
- 4.2 / 4.4 the auction is heard, not seen: its outcome arrives as
  ``{"event":"contract","seat":"N","bid":20,"trump":"S"}`` (at least 15 with four players,
  25 with three).  The declarer takes the widow and discards as many cards face down
  (``{"event":"discard","seat":"N","cards":[...]}``; they count for him at the end), then the
  melds are shown, then the declarer leads; later the last trick's winner leads.
- 4.4 play: follow suit (``revoke``); void, play a trump (``must_trump``); on trumps led, play
  a higher trump if able (``must_overtrump``); two identical cards: the first played wins.
- 4.2 a declarer short of the bid is in "bestia" and loses the bid; 4.3 first to 100 wins.

The document leaves open, as options (:class:`BinocoloOptions`, docs/games.md): the
card order, whether a void player must beat a trump already played, how much "bestia" costs,
what a successful declarer adds, whether a scala must be in trumps, whether one card may serve
two melds, and the minimum bid.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from referee.cards import BINOCOLO_48, FRENCH_SUITS, Card, Deck
from referee.rules.calls import Call, game_call
from referee.rules.errors import EventError, OptionError, PhaseError
from referee.rules.events import ContractEvent, DealEvent, DeclareEvent, DiscardEvent, Event
from referee.rules.game import Game, Table, parse_deck_card
from referee.rules.games import binocolo_rules as br
from referee.rules.games.binocolo_melds import (
    COPIES,
    MeldBook,
    classify,
    find_melds,
)
from referee.rules.obligations import prove, show_cards
from referee.rules.options import GameOptions
from referee.rules.state import (
    DealData,
    DealResult,
    DealState,
    MatchOutcome,
    MatchState,
    team_name,
)
from referee.rules.tricks import Obligation, Trick

FALSE_MELD = "false_meld"


@dataclass(frozen=True)
class BinocoloOptions(GameOptions):
    """Binocolo options; each default is the document's reading (or, where it says nothing,
    the Pinochle family's habit, said so in the field's comment)."""

    #: card order, strongest first; not in the document: "A10KQJ9" (Pinochle) or "AKQJ109"
    card_order: Literal["A10KQJ9", "AKQJ109"] = "A10KQJ9"
    #: "if trump is played everyone must answer with a higher trump": "trump_led" = when
    #: trumps are led; "any_trump" = also a void player must beat a trump already on the table
    overtrump: Literal["trump_led", "any_trump"] = "trump_led"
    #: 4.2 "bestia": lose the whole bid ("bid") or only the points missing ("shortfall")
    bestia: Literal["bid", "shortfall"] = "bid"
    #: 4.4 a declarer who makes the bid adds the points made ("made") or the bid ("bid")
    declarer_scores: Literal["made", "bid"] = "made"
    #: 3.8 a scala in any suit (the document) or only in trumps (Pinochle)
    scala: Literal["any_suit", "trump"] = "any_suit"
    #: one card may serve melds of different kinds (Pinochle), or only one meld ("never")
    meld_reuse: Literal["across_kinds", "never"] = "across_kinds"
    #: 4.4 lowest bid; None = the document's 15 with four players, 25 with three
    min_bid: int | None = None
    #: 4.3 points that win the game
    target: int = 100

    def check(self) -> None:
        if self.target < 1:
            raise OptionError(f"option 'target' must be at least 1, got {self.target}")
        if self.min_bid is not None and self.min_bid < 1:
            raise OptionError(f"option 'min_bid' must be at least 1, got {self.min_bid}")


@dataclass(slots=True)
class BinocoloDeal(DealData):
    """Binocolo's own per-deal state."""

    melds: MeldBook  #: the melds shown this deal, void ones too (rule 3)
    declarer: str | None = None  #: who took the contract (rule 4.4)
    bid: int | None = None
    discard: tuple[Card, ...] | None = None  #: the declarer's discard, once made (rule 4.4)

    def contract(self) -> tuple[str, int, tuple[Card, ...]]:
        """(declarer, bid, discard): all given once the deal is played out."""
        assert self.declarer is not None and self.bid is not None and self.discard is not None
        return self.declarer, self.bid, self.discard


class Binocolo(Game):
    """Binocolo for three or four players, each for himself; the declarer plays against all."""

    name = "binocolo"
    seat_counts = (3, 4)
    deck: ClassVar[Deck] = BINOCOLO_48
    options_type = BinocoloOptions
    options: BinocoloOptions
    declarations_unseen = True  # melds are checked against the plays (on_play, contradicted)

    # ---------------------------------------------------------------- the contract
    def start_deal(self, deal: DealState, event: DealEvent) -> list[Call]:
        deal.phase = "contract"
        deal.data = BinocoloDeal(MeldBook(reuse_across_kinds=self._reuse))
        return []

    @property
    def _reuse(self) -> bool:
        return self.options.meld_reuse == "across_kinds"

    def can_play(self, deal: DealState) -> str | None:
        state = deal.data_as(BinocoloDeal)
        if state.declarer is None:
            return "the contract (bid and trump) is not given yet (rule 4.4)"
        if state.discard is None:
            return f"the declarer {state.declarer} has not discarded yet (rule 4.4)"
        return super().can_play(deal)

    def handle_event(self, deal: DealState, event: Event) -> list[Call]:
        if isinstance(event, ContractEvent):
            return self._contract(deal, event)
        if isinstance(event, DiscardEvent):
            return self._discard(deal, event)
        if isinstance(event, DeclareEvent):
            return self._declare(deal, event)
        return super().handle_event(deal, event)

    def min_bid(self, players: int) -> int:
        return br.min_bid(players, self.options.min_bid)

    def widow_size(self, players: int) -> int:
        return br.WIDOW_SIZE[players]

    def _contract(self, deal: DealState, event: ContractEvent) -> list[Call]:
        state = deal.data_as(BinocoloDeal)
        if state.declarer is not None:
            raise PhaseError(f"the contract is already given to {state.declarer}")
        bid, trump = event.raw.get("bid"), event.raw.get("trump")
        lowest = self.min_bid(len(deal.seats))
        if not isinstance(bid, int) or isinstance(bid, bool) or bid < lowest:
            raise EventError(
                f"key 'bid' must be a whole number of at least {lowest} with "
                f"{len(deal.seats)} players (rule 4.4), got {bid!r}"
            )
        if trump not in FRENCH_SUITS:
            raise EventError(f"key 'trump' must be one of {', '.join(FRENCH_SUITS)}, got {trump!r}")
        state.declarer, state.bid = event.seat, bid
        deal.trump = trump
        return [game_call("contract", seat=event.seat, bid=bid, trump=trump)]

    def _discard(self, deal: DealState, event: DiscardEvent) -> list[Call]:
        state = deal.data_as(BinocoloDeal)
        declarer = state.declarer
        if declarer is None:
            raise PhaseError("the discard comes after the contract (rule 4.4)")
        if state.discard is not None:
            raise PhaseError(f"{declarer} has already discarded")
        if event.seat != declarer:
            raise EventError(f"key 'seat': only the declarer {declarer} discards, not {event.seat}")
        size = self.widow_size(len(deal.seats))
        if len(event.cards) != size:
            raise EventError(
                f"key 'cards': the declarer discards as many cards as the widow holds ({size}), "
                f"got {len(event.cards)}"
            )
        cards = [parse_deck_card(self, code, "cards") for code in event.cards]
        state.discard = tuple(cards)
        deal.phase = "play"
        return show_cards(self, deal, declarer, cards, keep=False)

    def _declare(self, deal: DealState, event: DeclareEvent) -> list[Call]:
        state = deal.data_as(BinocoloDeal)
        if state.discard is None or deal.trump is None:
            raise PhaseError("melds are shown after the contract and the declarer's discard (rule 4.4)")
        if deal.tricks or (deal.trick is not None and deal.trick.plays):
            raise PhaseError("melds are shown before the first card is played (rule 4.4)")
        cards = [parse_deck_card(self, code, "cards") for code in event.cards]
        meld = classify(event.seat, cards, deal.trump, scala_any_suit=self.options.scala == "any_suit")
        book = state.melds
        if event.raw.get("void") is True:  # the engine's mark: later plays proved it false
            book.add_void(meld)
            return []
        book.add(meld, Counter(state.discard), self.tricks_per_deal(deal))
        # Melded cards are not marked as seen in the seat's hand (the engine's show_cards):
        # with two copies of each face, a false meld would then turn another seat's genuine
        # play into a duplicate.  A meld is checked against the plays instead (on_play).
        return [game_call("declaration", **meld.to_dict())]

    def first_leader(self, deal: DealState) -> str:
        declarer = deal.data_as(BinocoloDeal).declarer
        assert declarer is not None  # plays start once the contract is given
        return declarer

    # ---------------------------------------------------------------- tricks
    def tricks_per_deal(self, deal: DealState) -> int:
        return self.tricks_per_deal_for(len(deal.seats))

    def tricks_per_deal_for(self, players: int) -> int:
        return (len(self.deck) - self.widow_size(players)) // players

    def trick_winner(self, deal: DealState, trick: Trick) -> int:
        assert deal.trump is not None
        return br.trick_winner(trick.cards, deal.trump, self.options.card_order)

    def card_points(self, deal: DealState, card: Card) -> int:
        return br.card_points(card)

    def trick_points(self, deal: DealState, trick: Trick) -> int:
        """Card points, +1 for the last trick (rule 4.4: "24 from the cards + 1")."""
        last = trick.number >= self.tricks_per_deal(deal)
        return super().trick_points(deal, trick) + (br.LAST_TRICK_POINTS if last else 0)

    def obligations(self, deal: DealState, trick: Trick, seat: str, card: Card) -> list[Obligation]:
        trump = deal.trump
        if trump is None or not trick.plays:
            return []
        found = br.obligations(trick.cards, card, trump, self.options.card_order, self.options.overtrump)
        return [Obligation(rule, cards, _detail(rule, trick, trump)) for rule, cards in found]

    def contradicted(self, deal: DealState, seat: str, card: Card) -> int | None:
        """Rule 3: a meld is false once the copies seen outside its seat leave too few for it.
        Only plays by other seats lower what a seat can hold, and every card is seen by the
        deal end, so every false meld is found by then: the index of the first one this play
        proves false (the engine voids it: it counts and proves nothing), else ``None``."""
        if deal.seen[card] >= COPIES:
            return None  # a third copy: a misread, reported as a duplicate; it proves nothing
        book = deal.data_as(BinocoloDeal).melds
        for holder, need in book.needs.items():
            if holder == seat or card not in need:
                continue
            played = deal.played[holder]
            if need[card] <= COPIES - deal.seen[card] - 1 + played.count(card):
                continue  # this card's copies, the only ones this play changes, still cover it
            # copies the holder can still have: those not seen played by others or discarded
            capacity = Counter({c: COPIES - deal.seen[c] + played.count(c) for c in need})
            capacity[card] -= 1
            false = book.first_false(holder, capacity)
            if false is not None:
                return false
        return None

    def false_declaration(self, deal: DealState, index: int) -> tuple[str, dict[str, Any]]:
        book = deal.data_as(BinocoloDeal).melds
        return FALSE_MELD, {"kind": book.melds[index].kind}

    def on_play(self, deal: DealState, seat: str, card: Card) -> list[Call]:
        """Cards ``seat`` melded and has not played yet are in its hand: they prove an illegal
        play at once (the engine does this for cards shown with ``show_cards``)."""
        book = deal.data_as(BinocoloDeal).melds
        need = book.needs.get(seat)
        if not need or not deal.pending[seat]:
            return []
        played = deal.played[seat]
        calls: list[Call] = []
        for held in sorted(c for c, n in need.items() if n > played.count(c)):
            calls += prove(deal, seat, held)
        return calls

    # ---------------------------------------------------------------- scoring
    def _score(self, deal: DealState) -> br.DealScore:
        records = [
            br.TrickRecord(t.plays[self.trick_winner(deal, t)][0], tuple(t.plays)) for t in deal.tricks
        ]
        state = deal.data_as(BinocoloDeal)
        declarer, bid, discard = state.contract()
        return br.score_deal(
            deal.seats,
            declarer,
            bid,
            records,
            discard,
            state.melds.live(),
            bestia=self.options.bestia,
            declarer_scores=self.options.declarer_scores,
            reuse_across_kinds=self._reuse,
        )

    def score_deal(self, deal: DealState) -> DealResult:
        score = self._score(deal)
        declarer = score.declarer
        defenders = team_name([s for s in deal.seats if s != declarer])
        counted = set(map(id, score.counted_melds))
        book = deal.data_as(BinocoloDeal).melds
        return DealResult(
            {s: v.total for s, v in score.seats.items()},
            declarer if score.made else defenders,
            {
                "declarer": declarer,
                "bid": score.bid,
                "trump": deal.trump,
                "made": score.seats[declarer].total,
                "bestia": not score.made,
                "card_points": {s: v.cards for s, v in score.seats.items()},
                "meld_points": {s: v.melds for s, v in score.seats.items()},
                "tricks": {s: v.tricks for s, v in score.seats.items()},
                "melds": [{**m.to_dict(), "counted": id(m) in counted} for m in book.melds],
                "delta": {s: v.delta for s, v in score.seats.items()},
            },
        )

    def forfeit(self, deal: DealState, seat: str, rule: str) -> DealResult | None:
        """Option ``out_of_turn="lose_game"`` (the document names no penalty): the offender's
        side loses the deal at once: a declarer goes in bestia, a defender gives the declarer
        the bid; nobody else scores."""
        state = deal.data_as(BinocoloDeal)
        declarer, bid = state.declarer, state.bid
        if declarer is None or bid is None:
            return None
        delta = dict.fromkeys(deal.seats, 0)
        delta[declarer] = -bid if seat == declarer else bid
        defenders = team_name([s for s in deal.seats if s != declarer])
        return DealResult(
            dict(deal.points),
            defenders if seat == declarer else declarer,
            {"forfeit": {"seat": seat, "rule": rule}, "declarer": declarer, "bid": bid, "delta": delta},
        )

    def new_match(self, seats: tuple[str, ...]) -> MatchState:
        match = MatchState(self.name, seats, self.options)
        match.score = dict.fromkeys(seats, 0)
        return match

    def add_deal(self, match: MatchState, deal: DealState, result: DealResult) -> MatchOutcome | None:
        """4.2: each deal's points are added (subtracted in bestia); 4.3: first to 100."""
        delta: dict[str, int] = dict(result.extra.get("delta", {}))
        for seat, points in delta.items():
            match.score[seat] += points
        winner = br.match_winner(match.score, self.options.target)
        if winner is None:
            return None
        return MatchOutcome(winner, dict(match.score), {"deals": match.deals})

    # ---------------------------------------------------------------- playouts
    def deal_hands(self, rng: random.Random, seats: tuple[str, ...], dealer: str) -> Table:
        """4.1: the hands and the widow (``stock``), which goes to the declarer."""
        cards = list(self.deck)
        rng.shuffle(cards)
        n = self.tricks_per_deal_for(len(seats))
        hands = {seat: cards[i * n : (i + 1) * n] for i, seat in enumerate(seats)}
        return Table(hands, cards[len(seats) * n :])

    def playout_events(self, deal: DealState, table: Table, rng: random.Random) -> list[dict[str, Any]]:
        """A random contract, the widow taken and as many cards discarded, then every seat
        shows most of the melds its hand holds."""
        if deal.data_as(BinocoloDeal).declarer is not None:
            return []
        declarer = rng.choice(deal.seats)
        hand = table.hands[declarer]
        hand += table.stock
        table.stock.clear()
        trump = Counter(c.suit for c in hand).most_common(1)[0][0] if rng.random() < 0.7 else rng.choice(FRENCH_SUITS)
        bid = self.min_bid(len(deal.seats)) + rng.randrange(8)
        discard = rng.sample(hand, self.widow_size(len(deal.seats)))
        for card in discard:
            hand.remove(card)
        events: list[dict[str, Any]] = [
            {"event": "contract", "seat": declarer, "bid": bid, "trump": trump},
            {"event": "discard", "seat": declarer, "cards": [c.code for c in discard]},
        ]
        for seat in deal.seats:
            for cards in find_melds(
                table.hands[seat],
                trump,
                scala_any_suit=self.options.scala == "any_suit",
                reuse_across_kinds=self._reuse,
            ):
                if rng.random() < 0.9:
                    events.append({"event": "declare", "seat": seat, "cards": [c.code for c in cards]})
        return events


def _detail(rule: str, trick: Trick, trump: str) -> str:
    led = trick.led_suit
    if rule == br.REVOKE:
        return f"held {led} to follow the suit led (rule 4.4)"
    if rule == br.MUST_TRUMP:
        return f"void in {led}, held a trump {trump} (rule 4.4)"
    return f"held a trump {trump} higher than the one on the table (rule 4.4)"
