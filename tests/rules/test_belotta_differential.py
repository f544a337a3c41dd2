"""Differential test: our belotta trick rules against belote-cli's engine (PyPI ``belote-cli``).

belote-cli (``belote.game._calculate_legal_cards_impl``, ``belote.deck.card_points``, trick
winner ``_trick_winner_seat_impl``) plays French belote, which forces a void player to
undertrump when they cannot overtrump an opponent's cut; the Triora document (rule 2d) does
not.  So: with our ``must_undertrump`` variant the legal sets must be identical; with the
document's rules they must differ exactly in that situation, where ours also allows any card.
Trick winners and card points must always agree.
"""

from __future__ import annotations

import random

import pytest

belote_game = pytest.importorskip("belote.game")
belote_deck = pytest.importorskip("belote.deck")

from referee.cards import FRENCH_32, Card, parse_card  # noqa: E402
from referee.rules.games.belotta_cards import (  # noqa: E402
    card_points,
    legal_plays,
    trick_winner,
)

DEALS = 1500
SUITS = {
    "C": belote_deck.Suit.CLUBS,
    "D": belote_deck.Suit.DIAMONDS,
    "H": belote_deck.Suit.HEARTS,
    "S": belote_deck.Suit.SPADES,
}
RANKS = {r.value: r for r in belote_deck.Rank}


def to_theirs(card: Card) -> object:
    return belote_deck.Card(SUITS[card.suit], RANKS[card.rank])


def their_id(card: Card) -> int:
    return int(belote_game._CARD_TO_ID[to_theirs(card)])


def their_legal(hand: list[Card], trick: list[tuple[int, Card]], seat: int, trump: str) -> set[Card]:
    by_id = {their_id(c): c for c in hand}
    ids = belote_game._calculate_legal_cards_impl(
        tuple(by_id), SUITS[trump], tuple((s, their_id(c)) for s, c in trick), seat
    )
    return {by_id[i] for i in ids}


def their_winner(trick: list[tuple[int, Card]], trump: str) -> int:
    seat = belote_game._trick_winner_seat_impl(
        tuple((s, their_id(c)) for s, c in trick), SUITS[trump]
    )
    return int(seat.value)


def forced_undertrump_case(hand: list[Card], trick: list[Card], trump: str) -> bool:
    """The one place the documents differ: void in a plain suit led, an opponent holds the
    trick, a trump is already down, and the hand has trumps but none higher."""
    if not trick or trick[0].suit == trump or any(c.suit == trick[0].suit for c in hand):
        return False
    if len(trick) >= 2 and trick_winner(trick, trump) == len(trick) - 2:
        return False
    down = [c for c in trick if c.suit == trump]
    mine = [c for c in hand if c.suit == trump]
    if not down or not mine:
        return False
    order = ("7", "8", "Q", "K", "10", "A", "9", "J")
    top = max(order.index(c.rank) for c in down)
    return all(order.index(c.rank) < top for c in mine)


def play_random_deal(rng: random.Random, stats: dict[str, int]) -> None:
    deck = list(FRENCH_32.faces)
    rng.shuffle(deck)
    hands = [deck[i * 8 : (i + 1) * 8] for i in range(4)]
    trump = rng.choice("CDHS")
    leader = rng.randrange(4)
    for _ in range(8):
        trick: list[tuple[int, Card]] = []
        for k in range(4):
            seat = (leader + k) % 4
            hand, on_table = hands[seat], [c for _, c in trick]
            ours = set(legal_plays(hand, on_table, trump))
            theirs = their_legal(hand, trick, seat, trump)
            assert set(legal_plays(hand, on_table, trump, must_undertrump=True)) == theirs
            if forced_undertrump_case(hand, on_table, trump):
                stats["undertrump"] += 1
                assert ours == set(hand) and theirs == {c for c in hand if c.suit == trump}
            else:
                assert ours == theirs, (hand, on_table, trump)
            card = rng.choice(sorted(ours))  # our legal set: explores states theirs never reach
            hand.remove(card)
            trick.append((seat, card))
            stats["plays"] += 1
        winner = trick[trick_winner([c for _, c in trick], trump)][0]
        assert winner == their_winner(trick, trump)
        for _, c in trick:
            assert card_points(c, trump) == belote_deck.card_points(to_theirs(c), SUITS[trump])
        leader = winner


@pytest.mark.slow
def test_legal_plays_winners_and_points_agree_with_belote_cli() -> None:
    rng = random.Random(20261121)
    stats = {"plays": 0, "undertrump": 0}
    for _ in range(DEALS):
        play_random_deal(rng, stats)
    assert stats["plays"] == DEALS * 32
    # the known difference must actually have been exercised, many times
    assert stats["undertrump"] > DEALS // 10


def test_the_referee_agrees_with_belote_cli_through_the_engine() -> None:
    """The same comparison through the Referee's hooks (seats, partners by seat, trick calls)."""
    from referee.rules.games.belotta import Belotta
    from referee.rules.referee import Referee

    seats = ("N", "W", "S", "E")
    for seed in range(150):
        rng = random.Random(seed)
        for undertrump in (False, True):
            ref = Referee()
            table = Belotta().deal_hands(rng, seats, "E")
            ref.apply({"event": "deal", "game": "belotta", "seats": list(seats), "dealer": "E",
                       "options": {"must_undertrump": undertrump}, **table.deal_fields})
            game, deal = ref.game, ref.deal
            assert game is not None and deal is not None
            while deal.phase != "over":
                for event in game.playout_events(deal, table, rng):
                    ref.apply(event)
                if game.can_play(deal) is not None:
                    continue
                seat, trick = deal.turn, deal.trick
                assert seat is not None and trick is not None and deal.trump is not None
                hand = table.hands[seat]
                on_table = [(seats.index(s), c) for s, c in trick.plays]
                theirs = their_legal(hand, on_table, seats.index(seat), deal.trump)
                ours = set(ref.legal_plays(seat, hand))
                if undertrump or not forced_undertrump_case(hand, trick.cards, deal.trump):
                    assert ours == theirs
                card = rng.choice(sorted(ours))
                hand.remove(card)
                calls = [c.to_dict() for c in
                         ref.apply({"event": "play", "seat": seat, "card": card.code})]
                done = [c for c in calls if c["call"] == "trick"]
                if done:
                    played = [(seats.index(s), parse_card(c)) for s, c in done[0]["cards"]]
                    assert seats.index(done[0]["winner"]) == their_winner(played, deal.trump)
