"""``withdrawn``: a violation the table was told of and that no longer stands is withdrawn by a
call of its own; one that stands again (an undo) is called again.  What was announced minus
what was withdrawn is always the deal's ``violations``."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any

import pytest
from test_belotta_game import declare, new_ref, play, send, violations

from referee.cards import Card, parse_card
from referee.rules.errors import EventError, PhaseError
from referee.rules.game import get_game
from referee.rules.games.binocolo import BinocoloDeal
from referee.rules.referee import Referee

Key = tuple[str, str, int]


def withdrawn(calls: list[dict[str, Any]]) -> list[tuple[str, str, int, str]]:
    return [(c["seat"], c["rule"], c["trick"], c["reason"]) for c in calls if c["call"] == "withdrawn"]


def test_a_revoke_proved_only_by_a_false_declaration_is_withdrawn() -> None:
    """Rule 3f: W's declaration (entered wrongly: S holds the spades) proved W's revoke; S's AS
    voids it, and the revoke the table heard is withdrawn."""
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    revoke = play(ref, "N:7S", "W:8C")
    assert violations(revoke) == [("W", "revoke", 1)]
    calls = play(ref, "S:AS")
    assert [c["call"] for c in calls] == ["violation", "withdrawn", "turn"]
    assert violations(calls) == [("W", "false_declaration", 1)]
    assert withdrawn(calls) == [("W", "revoke", 1, "false_declaration")]
    assert "AS KS QS is void" in calls[1]["detail"]
    assert ref.deal is not None and ref.deal.violations == [("W", "false_declaration", 1)]


def test_undo_of_the_voiding_play_calls_the_revoke_again() -> None:
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    revoke = next(c for c in play(ref, "N:7S", "W:8C") if c["call"] == "violation")
    play(ref, "S:AS")
    calls = send(ref, {"event": "undo"})
    assert calls[0] == {"call": "undo", "seat": "S", "card": "AS"}
    assert withdrawn(calls) == [("W", "false_declaration", 1, "undo")]
    assert calls[2] == revoke  # the same call the table heard before, word for word
    assert calls[3] == {"call": "turn", "seat": "S"}
    assert ref.deal is not None and ref.deal.violations == [("W", "revoke", 1)]
    again = play(ref, "S:AS")  # the same card read again: the same calls again
    assert violations(again) == [("W", "false_declaration", 1)]
    assert withdrawn(again) == [("W", "revoke", 1, "false_declaration")]


def test_undo_of_the_declaration_that_proved_a_revoke_withdraws_it() -> None:
    ref = new_ref()
    play(ref, "N:7S", "W:8C")
    assert violations(declare(ref, "W", "AS KS QS")) == [("W", "revoke", 1)]  # shown: proof
    calls = send(ref, {"event": "undo"})
    assert calls[0] == {"call": "undo", "seat": "W", "cards": ["AS", "KS", "QS"]}
    assert withdrawn(calls) == [("W", "revoke", 1, "undo")]
    assert ref.deal is not None and ref.deal.violations == []


def test_a_misread_reported_before_the_voiding_stays_reported() -> None:
    """A rejected play (bad card) is in no event the rebuild replays: it is neither lost from
    the record nor withdrawn."""
    ref = new_ref()
    declare(ref, "W", "AS KS QS")
    play(ref, "N:7S")
    assert violations(play(ref, "W:ZZ")) == [("W", "bad_card", 1)]
    play(ref, "W:8C")
    calls = play(ref, "S:AS")
    assert withdrawn(calls) == [("W", "revoke", 1, "false_declaration")]
    assert ref.deal is not None
    assert Counter(ref.deal.violations) == Counter([("W", "bad_card", 1), ("W", "false_declaration", 1)])


def test_undo_of_an_out_of_turn_card_withdraws_its_violation() -> None:
    ref = new_ref()
    assert violations(play(ref, "S:7S")) == [("S", "out_of_turn", 1)]
    calls = send(ref, {"event": "undo"})
    assert withdrawn(calls) == [("S", "out_of_turn", 1, "undo")]
    assert calls[-1] == {"call": "turn", "seat": "N"}


# ------------------------------------------------------------------------- the invariant
def announced_minus_withdrawn(calls: list[dict[str, Any]]) -> Counter[Key]:
    told: Counter[Key] = Counter()
    for c in calls:
        if c["call"] == "deal":
            told.clear()
        key = (c.get("seat", ""), c.get("rule", ""), c.get("trick", 0))
        if c["call"] == "violation" and c["rule"] != "wrong_dealer":
            told[key] += 1
        elif c["call"] == "withdrawn":
            assert told[key] > 0, f"withdrawn but never announced: {c}"
            told[key] -= 1
    return +told


def noisy_deal(game_name: str, seed: int, seats: tuple[str, ...]) -> list[dict[str, Any]]:
    """A random deal with false declarations, illegal and out-of-turn plays, misreads and
    undos; after every event the table's account of the violations is the deal's."""
    rng = random.Random(seed)
    ref = Referee()
    game = get_game(game_name)()
    table = game.deal_hands(rng, seats, seats[-1])
    calls: list[dict[str, Any]] = []

    def send_(event: dict[str, Any]) -> None:
        with contextlib.suppress(EventError, PhaseError):  # an impossible declaration: refused
            calls.extend(c.to_dict() for c in ref.apply(event))
        deal = ref.deal
        assert deal is not None
        assert announced_minus_withdrawn(calls) == Counter(deal.violations), event

    send_({"event": "deal", "game": game_name, "seats": list(seats), "dealer": seats[-1], **table.deal_fields})
    deal = ref.deal
    assert deal is not None
    lied = False
    while deal.phase != "over":
        for event in game.playout_events(deal, table, rng):
            send_(event)
        deal = ref.deal
        assert deal is not None
        if game.can_play(deal) is not None:
            continue
        if not lied:
            lied = True
            send_(false_declaration(game_name, deal.trump, table.hands, rng))
        seat = deal.turn
        assert seat is not None
        if rng.random() < 0.05:  # a misread: a card seen as often as the deck has it, or none
            held = {c for h in table.hands.values() for c in h}
            gone = [c.code for c in deal.seen if deal.seen[c] >= game.deck.copies and c not in held]
            send_({"event": "play", "seat": seat, "card": rng.choice([*gone, "ZZ"])})
            continue
        trick = deal.trick
        assert trick is not None
        waiting = [s for s in seats if table.hands[s] and all(p != s for p, _ in trick.plays)]
        if waiting and rng.random() < 0.05:  # out of turn
            seat = rng.choice(waiting)
        hand = table.hands[seat]
        legal = ref.legal_plays(seat, hand)
        card = rng.choice(hand if rng.random() < 0.15 else legal)
        hand.remove(card)
        send_({"event": "play", "seat": seat, "card": card.code})
        deal = ref.deal
        assert deal is not None
        if deal.phase != "over" and rng.random() < 0.1:
            before = len(calls)
            send_({"event": "undo"})
            undo = calls[before]
            if undo.get("card"):
                table.hands[undo["seat"]].append(parse_card(undo["card"]))
            deal = ref.deal
            assert deal is not None
    return calls


def false_declaration(
    game_name: str, trump: str | None, hands: dict[str, list[Card]], rng: random.Random
) -> dict[str, Any]:
    """A declaration of cards that are (at least partly) in another seat's hand."""
    assert trump is not None
    seats = list(hands)
    seat = rng.choice(seats)
    if game_name == "belotta":
        cards = [Card(trump, "K"), Card(trump, "Q")]  # belotta
    else:
        cards = [Card("D", "J"), Card("S", "Q")]  # the binocolo meld
    if all(c in hands[seat] for c in cards):
        seat = seats[(seats.index(seat) + 1) % len(seats)]
    return {"event": "declare", "seat": seat, "cards": [c.code for c in cards]}


@pytest.mark.parametrize("seed", range(40))
def test_belotta_announced_minus_withdrawn_is_the_deals_violations(seed: int) -> None:
    noisy_deal("belotta", seed, ("N", "W", "S", "E"))


@pytest.mark.parametrize("seed", range(30))
def test_binocolo_announced_minus_withdrawn_is_the_deals_violations(seed: int) -> None:
    noisy_deal("binocolo", seed, ("N", "W", "S", "E")[: 3 + seed % 2])


@pytest.mark.parametrize(("game", "false"), [("belotta", "false_declaration"), ("binocolo", "false_meld")])
def test_the_noisy_deals_do_withdraw_for_both_reasons(game: str, false: str) -> None:
    reasons = Counter(
        c["reason"] for seed in range(30) for c in noisy_deal(game, seed, ("N", "W", "S", "E"))
        if c["call"] == "withdrawn"
    )
    assert reasons["undo"] >= 5 and reasons[false] >= 1, reasons


def test_undo_across_the_deal_end_withdraws_the_forfeiting_out_of_turn() -> None:
    """Torneo 10: S's out-of-turn card loses the deal; the next deal is already entered when
    the card turns out to be a misread: the undo reopens the deal and withdraws the call."""
    ref = Referee()
    deal = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
            "trump_card": "bastoni_2"}
    out = [c.to_dict() for e in (deal, {"event": "play", "seat": "N", "card": "coppe_1"},
                                 {"event": "play", "seat": "S", "card": "coppe_3"}) for c in ref.apply(e)]
    assert violations(out) == [("S", "out_of_turn", 1)] and out[-1]["call"] == "deal_end"
    send(ref, {**deal, "dealer": "N", "trump_card": "spade_2"})
    assert ref.deal is not None and ref.deal.number == 2
    calls = send(ref, {"event": "undo"})
    assert calls[0] == {"call": "undo", "seat": "S", "card": "coppe_3"}
    assert withdrawn(calls) == [("S", "out_of_turn", 1, "undo")]
    assert ref.deal is not None and ref.deal.number == 1 and ref.deal.violations == []


def test_a_misread_third_copy_does_not_void_an_honest_meld() -> None:
    """Binocolo: W melds KH QH and plays a KH, N plays the other; S's "KH" is a third copy
    (a misread): a duplicate, not a proof that W's meld was false."""
    ref = Referee()
    for event in (
        {"event": "deal", "game": "binocolo", "seats": ["N", "W", "S", "E"], "dealer": "E"},
        {"event": "contract", "seat": "N", "bid": 15, "trump": "S"},
        {"event": "discard", "seat": "N", "cards": ["9C", "9C", "9D", "9D"]},
        {"event": "declare", "seat": "W", "cards": ["KH", "QH"]},
    ):
        ref.apply(event)
    out = [c.to_dict() for p in ("N:KH", "W:KH", "S:KH") for c in ref.apply(
        {"event": "play", "seat": p.split(":")[0], "card": p.split(":")[1]})]
    assert violations(out) == [("S", "duplicate_card", 1)]
    assert ref.deal is not None and ref.deal.data_as(BinocoloDeal).melds.void == []
