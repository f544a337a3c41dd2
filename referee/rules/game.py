"""The :class:`Game` interface every game implements, and the registry of games by name.

A game is a small subclass overriding a few hooks; the engine
(:class:`~referee.rules.referee.Referee`) does the rest: turn order, out-of-turn, duplicate and
bad cards, proving obligations, tricks, undo, deal and match bookkeeping.  A game instance holds
the match's parsed options (``self.options``) and no other state: per-deal data lives in
``DealState.data`` (a typed :class:`~referee.rules.state.DealData` of the game's own),
per-match data in ``MatchState.data`` (a :class:`~referee.rules.state.MatchData`).

    game = get_game("briscola-4")({"tie": "replay"})      # options dict -> parsed + checked
    game.deck, game.options.tie                            # -> ITALIAN_40, 'replay'

Registry: :data:`GAME_CLASSES` maps each name to ``"module:Class"``, imported on first use, so
a game module that does not exist yet only fails when that game is asked for.

Hooks for random playouts (tests, benchmark, video simulator; see :mod:`referee.rules.playout`):
:meth:`Game.deal_hands` deals a :class:`Table` (hands and stock the referee never sees),
:meth:`Game.playout_events` produces the contract/declare/discard events a deal needs,
:meth:`Game.refill` draws from the stock after a trick, :meth:`Game.legal_plays` lists the
cards a hand may play (derived from :meth:`Game.obligations` by default).
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from referee.cards import Card, Deck, parse_card
from referee.errors import BadCardError
from referee.rules.calls import Call
from referee.rules.errors import EventError, PhaseError, UnknownGameError
from referee.rules.events import DealEvent, Event, GameEvent
from referee.rules.options import GameOptions, parse_options
from referee.rules.state import DealResult, DealState, MatchOutcome, MatchState, team_name
from referee.rules.tricks import BRISCOLA_STRENGTH, FRENCH_ACE_HIGH, Obligation, Trick, breaks


@dataclass(slots=True)
class Table:
    """What a random playout knows and the referee never sees.

    ``hands[seat]`` are the cards in hand, ``stock`` the undealt cards in draw order (briscola:
    the face-up trump card last; binocolo: the widow), ``deal_fields`` extra keys for the
    ``deal`` event (``trump_card``, ``turned``)."""

    hands: dict[str, list[Card]]
    stock: list[Card] = field(default_factory=list)
    deal_fields: dict[str, Any] = field(default_factory=dict)


class Game(ABC):
    """One game's rules.  Override the abstract hooks; the others have common defaults."""

    name: ClassVar[str]
    seat_counts: ClassVar[tuple[int, ...]]
    deck: ClassVar[Deck]
    options_type: ClassVar[type[GameOptions]] = GameOptions
    #: a match starts with the highest-card draw for the dealer (random playouts send one)
    dealer_draw: ClassVar[bool] = False
    #: the deal always passes to :meth:`next_dealer`; another dealer is a ``wrong_dealer``
    dealer_rotates: ClassVar[bool] = False
    #: declared cards are not marked seen in the declarer's hand (binocolo: two copies of
    #: each face, a meld is checked against the plays), so :meth:`contradicted` is asked about
    #: every play, not only about cards seen or seats with cards shown
    declarations_unseen: ClassVar[bool] = False

    def __init__(self, options: GameOptions | Mapping[str, Any] | None = None) -> None:
        if not isinstance(options, GameOptions):
            options = parse_options(self.options_type, options, game=self.name)
        elif not isinstance(options, self.options_type):
            raise TypeError(f"{self.name} needs {self.options_type.__name__}, got {options!r}")
        self.options = options

    def __repr__(self) -> str:
        return f"get_game({self.name!r})({self.options.to_dict()!r})"

    # ----------------------------------------------------------------- the deal
    def start_deal(self, deal: DealState, event: DealEvent) -> list[Call]:
        """Check the deal event's game-specific keys and set ``deal.trump``/``deal.phase``.

        Raise :class:`EventError` naming a bad key.  Default: no trump, plays may start."""
        deal.phase = "play"
        return []

    def first_leader(self, deal: DealState) -> str:
        """Who leads trick 1: by default the seat after the dealer in play order."""
        return deal.next_seat(deal.dealer)

    def next_dealer(self, deal: DealState) -> str:
        """The next deal's dealer when the deal event names none: the next seat in play order."""
        return deal.next_seat(deal.dealer)

    def teams(self, deal: DealState) -> tuple[tuple[str, ...], ...] | None:
        """The sides of this deal (``None`` while unknown, e.g. chiamata's secret partner).

        Default: every seat plays for itself."""
        return tuple((seat,) for seat in deal.seats)

    def team_of(self, deal: DealState, seat: str) -> str | None:
        """The name of ``seat``'s team, or ``None`` while teams are unknown."""
        teams = self.teams(deal)
        if teams is None:
            return None
        for team in teams:
            if seat in team:
                return team_name(team)
        return None

    def handle_event(self, deal: DealState, event: Event) -> list[Call]:
        """A contract / declare / discard / game-specific event during the deal.

        Validate fully before changing ``deal`` (raise :class:`EventError` for bad content,
        :class:`PhaseError` when it is not allowed now); to mark cards as seen in a seat's
        hand (declared cards) or out of play (discards), end with
        :func:`referee.rules.obligations.show_cards`, which also reports duplicates and proves
        pending obligations."""
        if isinstance(event, GameEvent):
            raise EventError(f"unknown event {event.kind!r} ({self.name} has no such event)")
        raise PhaseError(f"{event.kind!r} events are not part of {self.name}")

    def can_play(self, deal: DealState) -> str | None:
        """``None`` when plays are allowed, else why not (``"contract not yet given"``)."""
        return None if deal.phase == "play" else f"no plays in the {deal.phase} phase"

    def unavailable(self, deal: DealState, seat: str, card: Card) -> str | None:
        """Why ``card`` cannot be in ``seat``'s hand now even though it was not seen before
        (briscola: the face-up trump still under the stock), else ``None``."""
        return None

    def on_play(self, deal: DealState, seat: str, card: Card) -> list[Call]:
        """Called after a play is recorded (before trick completion): e.g. partner reveal."""
        return []

    def contradicted(self, deal: DealState, seat: str, card: Card) -> int | None:
        """``seat`` plays ``card``, not known in its hand, while it is seen out of play or
        ``seat`` has known cards: if that contradicts a declaration (its cards shown in a hand,
        so the card is known elsewhere, or the declarer's hand has no room left for them),
        the index of that declaration among the deal's ``declare`` events, which the engine
        then voids (rebuilding the deal with it marked ``"void"``), else ``None``."""
        return None

    def false_declaration(self, deal: DealState, index: int) -> tuple[str, dict[str, Any]]:
        """The rule a declaration voided by :meth:`contradicted` broke, and fields for its
        ``violation`` call (binocolo: ``false_meld`` and the meld's kind)."""
        return "false_declaration", {}

    # ----------------------------------------------------------------- tricks
    def trick_size(self, deal: DealState) -> int:
        return len(deal.seats)

    def tricks_per_deal(self, deal: DealState) -> int:
        return len(self.deck) // len(deal.seats)

    @abstractmethod
    def trick_winner(self, deal: DealState, trick: Trick) -> int:
        """Index into ``trick.plays`` of the winning play."""

    def obligations(self, deal: DealState, trick: Trick, seat: str, card: Card) -> list[Obligation]:
        """Obligations ``seat`` may have broken by playing ``card`` into ``trick`` (before the
        card is added).  Briscola has none."""
        return []

    @abstractmethod
    def card_points(self, deal: DealState, card: Card) -> int:
        """Points ``card`` is worth to the side that takes it."""

    def trick_points(self, deal: DealState, trick: Trick) -> int:
        """Points of a finished trick; default the sum of its cards (add last-trick bonuses)."""
        return sum(self.card_points(deal, card) for _, card in trick.plays)

    def after_trick(self, deal: DealState, trick: Trick, winner: str) -> list[Call]:
        """Called after a trick is taken and recorded (before the deal end check)."""
        return []

    # ----------------------------------------------------------------- scoring
    @abstractmethod
    def score_deal(self, deal: DealState) -> DealResult:
        """The result of a finished deal (all tricks played)."""

    def penalty(self, deal: DealState, seat: str, rule: str) -> DealResult | None:
        """A violation's cost: a result that ends the deal now, or ``None`` (report only).

        Default: ``out_of_turn`` with option ``out_of_turn="lose_game"`` forfeits the deal for
        ``seat``'s side when sides are known."""
        if rule != "out_of_turn" or self.options.out_of_turn != "lose_game":
            return None
        return self.forfeit(deal, seat, rule)

    def forfeit(self, deal: DealState, seat: str, rule: str) -> DealResult | None:
        """``seat``'s side loses the deal; points so far are kept for the record."""
        teams = self.teams(deal)
        if teams is None:
            return None
        points = {team_name(t): sum(deal.points[s] for s in t) for t in teams}
        others = [team_name(t) for t in teams if seat not in t]
        winner = others[0] if len(others) == 1 else None
        return DealResult(points, winner, {"forfeit": {"seat": seat, "rule": rule}})

    def new_match(self, seats: tuple[str, ...]) -> MatchState:
        """An empty match (score per team at 0)."""
        return MatchState(self.name, seats, self.options)

    @abstractmethod
    def add_deal(
        self, match: MatchState, deal: DealState, result: DealResult
    ) -> MatchOutcome | None:
        """Fold a finished deal into ``match``; return the outcome when the match is over."""

    # ----------------------------------------------------------------- dealer draw
    @classmethod
    def draw_strength(cls, card: Card) -> int:
        """Strength of a card drawn to choose the dealer (highest deals)."""
        return BRISCOLA_STRENGTH[card.rank] if card.italian else FRENCH_ACE_HIGH[card.rank]

    # ----------------------------------------------------------------- playouts
    def deal_hands(self, rng: random.Random, seats: tuple[str, ...], dealer: str) -> Table:
        """Shuffle and deal: hands, stock and the deal event's extra fields."""
        cards = list(self.deck)
        rng.shuffle(cards)
        n = self.tricks_per_deal_for(len(seats))
        hands = {seat: cards[i * n : (i + 1) * n] for i, seat in enumerate(seats)}
        return Table(hands, cards[len(seats) * n :])

    def tricks_per_deal_for(self, players: int) -> int:
        return len(self.deck) // players

    def playout_events(
        self, deal: DealState, table: Table, rng: random.Random
    ) -> list[dict[str, Any]]:
        """Events a random playout sends before the next play: the contract when
        :meth:`can_play` says one is due (mutate ``table`` for widows/discards), declarations
        at the right moment.  Default: none."""
        return []

    def refill(self, deal: DealState, table: Table, winner: str) -> None:
        """After a trick: draw from ``table.stock`` into ``table.hands`` (briscola)."""
        return None

    def legal_plays(self, deal: DealState, seat: str, hand: list[Card]) -> list[Card]:
        """Cards of ``hand`` that ``seat`` may legally play now (from :meth:`obligations`)."""
        trick = deal.trick if deal.trick is not None else Trick(deal.trick_number, seat)
        legal = []
        for i, card in enumerate(hand):
            rest = hand[:i] + hand[i + 1 :]
            if breaks(self.obligations(deal, trick, seat, card), rest) is None:
                legal.append(card)
        return legal or list(hand)


#: game name -> "module:Class"; imported on first use (no registration by import side effect)
GAME_CLASSES: dict[str, str] = {
    "briscola-2": "referee.rules.games.briscola:Briscola2",
    "briscola-4": "referee.rules.games.briscola:Briscola4",
    "briscola-chiamata": "referee.rules.games.chiamata:Chiamata",
    "belotta": "referee.rules.games.belotta:Belotta",
    "binocolo": "referee.rules.games.binocolo:Binocolo",
}


def get_game(name: str) -> type[Game]:
    """The :class:`Game` class registered as ``name``; :class:`UnknownGameError` names it."""
    target = GAME_CLASSES.get(name)
    if target is None:
        raise UnknownGameError(f"unknown game {name!r}; known games: {sorted(GAME_CLASSES)}")
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UnknownGameError(f"game {name!r} is not implemented yet ({module_name})") from exc
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise UnknownGameError(f"game {name!r} is not implemented yet ({target})")
    return cls


def available_games() -> list[str]:
    """Names of the registered games whose modules can be imported now."""
    names = []
    for name in GAME_CLASSES:
        try:
            get_game(name)
        except UnknownGameError:
            continue
        names.append(name)
    return names


_DECK_LOOKUP: dict[str, dict[str, Card]] = {}


def deck_lookup(deck: Deck) -> dict[str, Card]:
    """``code -> Card`` for the faces of ``deck``, built once per deck name.

    The referee checks every played code against the deck; a dict lookup keeps that check
    cheap (``card in deck`` hashes the whole face tuple on each call)."""
    table = _DECK_LOOKUP.get(deck.name)
    if table is None:
        table = _DECK_LOOKUP[deck.name] = {card.code: card for card in deck.faces}
    return table


def parse_deck_card(game: Game, code: str, key: str = "card") -> Card:
    """Parse ``code`` as a card of ``game``'s deck, raising :class:`EventError` naming ``key``."""
    try:
        card = parse_card(code)
    except BadCardError as exc:
        raise EventError(f"key {key!r}: {exc}") from None
    if deck_lookup(game.deck).get(code) != card:
        raise EventError(f"key {key!r}: {code!r} is not a card of the {game.deck.name} deck")
    return card


__all__ = [
    "GAME_CLASSES",
    "Game",
    "Table",
    "available_games",
    "deck_lookup",
    "get_game",
    "parse_deck_card",
]
