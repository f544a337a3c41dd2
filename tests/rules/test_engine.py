"""The Referee engine, game-independent: turn order, bad/duplicate cards, deferred obligation
proofs, undo, phases, errors that leave the state untouched, matches across deals.

A small French-deck toy game with follow/trump/overtrump obligations and a contract phase
exercises what briscola does not have.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import FRENCH_32, Card, Deck
from referee.rules import (
    EventError,
    OptionError,
    PhaseError,
    Referee,
    UnknownGameError,
    get_game,
    parse_event,
)
from referee.rules import game as game_module
from referee.rules.calls import TrickCall, TurnCall, ViolationCall
from referee.rules.events import ContractEvent, DeclareEvent, Event, GameEvent, PlayEvent
from referee.rules.game import Game, Table
from referee.rules.obligations import show_cards
from referee.rules.playout import PlayoutError, random_deal_events
from referee.rules.state import (
    DealResult,
    DealState,
    MatchData,
    MatchOutcome,
    MatchState,
    team_name,
)
from referee.rules.tricks import (
    Obligation,
    Trick,
    follow_suit,
    overtrump,
    trump_when_void,
    winner_index,
)

ORDER = {r: i for i, r in enumerate(("7", "8", "9", "J", "Q", "K", "10", "A"))}
SEATS = ["N", "W", "S", "E"]


@dataclass(slots=True)
class ToyMatch(MatchData):
    seen_deals: int = 0


class Toy(Game):
    """4 seats, 8 cards each; a contract names trump; follow, else trump, overtrump."""

    name = "toy"
    dealer_rotates = True
    seat_counts = (4,)
    deck: ClassVar[Deck] = FRENCH_32

    def start_deal(self, deal: DealState, event: Any) -> list[Any]:
        deal.phase = "contract"
        return []

    def handle_event(self, deal: DealState, event: Event) -> list[Any]:
        if isinstance(event, ContractEvent):
            if deal.phase != "contract":
                raise PhaseError("contract already given")
            trump = event.raw.get("trump")
            if trump not in ("C", "D", "H", "S"):
                raise EventError(f"key 'trump': bad suit {trump!r}")
            deal.trump, deal.phase = trump, "play"
            return []
        if isinstance(event, GameEvent) and event.name == "void":
            deal.result, deal.phase = DealResult({}, None, {"void": True}), "over"
            return []
        if isinstance(event, DeclareEvent):
            cards = [Card.parse(c) for c in event.cards]
            return show_cards(self, deal, event.seat, cards)
        return super().handle_event(deal, event)

    def teams(self, deal: DealState) -> tuple[tuple[str, ...], ...]:
        s = deal.seats
        return ((s[0], s[2]), (s[1], s[3]))

    def trick_winner(self, deal: DealState, trick: Trick) -> int:
        return winner_index(trick.cards, deal.trump, ORDER)

    def obligations(self, deal: DealState, trick: Trick, seat: str, card: Card) -> list[Obligation]:
        d = self.deck
        return (
            follow_suit(d, trick, card)
            + trump_when_void(d, trick, card, deal.trump)
            + overtrump(d, trick, card, deal.trump, ORDER)
        )

    def card_points(self, deal: DealState, card: Card) -> int:
        return 1 if card.rank == "A" else 0

    def score_deal(self, deal: DealState) -> DealResult:
        points = {team_name(t): sum(deal.points[s] for s in t) for t in self.teams(deal)}
        return DealResult(points, max(points, key=lambda k: points[k]))

    def add_deal(
        self, match: MatchState, deal: DealState, result: DealResult
    ) -> MatchOutcome | None:
        if not isinstance(match.data, ToyMatch):  # the default new_match leaves it empty
            match.data = ToyMatch()
        match.data_as(ToyMatch).seen_deals += 1
        if result.winner is None:
            return None
        match.score[result.winner] = match.score.get(result.winner, 0) + 1
        return MatchOutcome(result.winner, dict(match.score)) if match.deals >= 2 else None

    def playout_events(
        self, deal: DealState, table: Table, rng: random.Random
    ) -> list[dict[str, Any]]:
        if deal.phase == "contract":
            return [{"event": "contract", "seat": deal.seats[0], "trump": rng.choice("CDHS")}]
        return []


@pytest.fixture(autouse=True)
def _toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(game_module.GAME_CLASSES, "toy", f"{__name__}:Toy")


def deal(dealer: str = "E", **extra: Any) -> dict[str, Any]:
    return {"event": "deal", "game": "toy", "seats": SEATS, "dealer": dealer, **extra}


def play(seat: str, card: str) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card}


def run(ref: Referee, *events: dict[str, Any]) -> list[dict[str, Any]]:
    return [c.to_dict() for e in events for c in ref.apply(e)]


def started(trump: str = "H") -> Referee:
    ref = Referee()
    run(ref, deal(), {"event": "contract", "seat": "N", "trump": trump})
    return ref


def violations(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in out if d["call"] == "violation"]


# ------------------------------------------------------------------ phases and turn
def test_no_play_before_the_contract_and_turn_announced_after_it() -> None:
    ref = Referee()
    assert run(ref, deal()) == []
    with pytest.raises(PhaseError, match="contract"):
        ref.apply(play("N", "AS"))
    assert run(ref, {"event": "contract", "seat": "N", "trump": "H"}) == [
        {"call": "turn", "seat": "N"}
    ]


def test_turn_goes_round_in_seat_order_and_to_the_trick_winner() -> None:
    ref = started()
    out = run(ref, play("N", "7S"), play("W", "AS"), play("S", "8S"), play("E", "9S"))
    assert [d["seat"] for d in out if d["call"] == "turn"] == ["W", "S", "E", "W"]
    assert out[-2] == {
        "call": "trick",
        "number": 1,
        "winner": "W",
        "cards": [["N", "7S"], ["W", "AS"], ["S", "8S"], ["E", "9S"]],
        "points": 1,
    }


def test_out_of_turn_card_stays_as_that_seats_play() -> None:
    ref = started()
    out = run(ref, play("S", "7S"))
    assert violations(out)[0] | {} == {
        "call": "violation",
        "seat": "S",
        "rule": "out_of_turn",
        "trick": 1,
        "card": "7S",
        "expected": "N",
        "detail": "S played 7S but it was N's turn",
    }
    assert ref.turn == "N"
    out = run(ref, play("N", "8S"), play("W", "9S"))
    assert ref.turn == "E"  # S already played
    out = run(ref, play("E", "AS"))
    assert next(d for d in out if d["call"] == "trick")["cards"][0] == ["S", "7S"]


def test_a_second_card_from_the_same_seat_in_a_trick_is_not_recorded() -> None:
    ref = started()
    run(ref, play("N", "7S"))
    out = run(ref, play("N", "8S"))
    assert violations(out)[0]["rule"] == "out_of_turn" and "already played" in out[0]["detail"]
    assert ref.deal is not None and ref.deal.trick is not None and len(ref.deal.trick.plays) == 1


def test_duplicate_card_reported_and_not_recorded() -> None:
    ref = started()
    run(ref, play("N", "7S"))
    out = run(ref, play("W", "7S"))
    assert out == [
        {
            "call": "violation",
            "seat": "W",
            "rule": "duplicate_card",
            "trick": 1,
            "detail": "7S was already seen this deal",
            "card": "7S",
        }
    ]
    assert ref.turn == "W"


@pytest.mark.parametrize("code", ["2S", "coppe_1", "XX", "10h"])
def test_bad_card_reported_and_not_recorded(code: str) -> None:
    ref = started()
    out = run(ref, play("N", code))
    assert violations(out)[0]["rule"] == "bad_card" and violations(out)[0]["card"] == code
    assert ref.turn == "N"


# ------------------------------------------------------------------ deferred obligations
def test_revoke_is_proven_when_the_seat_later_plays_the_led_suit() -> None:
    ref = started(trump="H")
    # W discards a club on a spade lead: legal if W had no spade and no heart
    out = run(ref, play("N", "7S"), play("W", "7C"), play("S", "8S"), play("E", "9S"))
    assert not violations(out)
    # trick 2 (E won with 9S): W plays the AS -> W held a spade in trick 1
    out = run(ref, play("E", "8D"), play("N", "9D"), play("W", "AS"))
    v = violations(out)
    assert v == [
        {
            "call": "violation",
            "seat": "W",
            "rule": "revoke",
            "trick": 1,
            "card": "7C",
            "proof": "AS",
            "detail": "W played 7C in trick 1 while holding AS (did not follow S)",
        }
    ]


def test_must_trump_is_proven_by_a_later_trump() -> None:
    ref = started(trump="H")
    run(ref, play("N", "7S"), play("W", "7C"), play("S", "8S"), play("E", "9S"))
    out = run(ref, play("E", "8D"), play("N", "9D"), play("W", "7H"))
    assert [(v["rule"], v["trick"], v["proof"]) for v in violations(out)] == [
        ("must_trump", 1, "7H")
    ]


def test_must_overtrump_is_proven_by_a_later_higher_trump() -> None:
    ref = started(trump="H")
    run(ref, play("N", "7S"), play("W", "JH"), play("S", "8H"))  # S under-trumps
    out = run(ref, play("E", "9S"))
    assert not violations(out)
    out = run(ref, play("W", "7D"), play("S", "AH"))  # S held AH in trick 1
    assert next((v["seat"], v["rule"], v["trick"]) for v in violations(out)) == (
        "S",
        "must_overtrump",
        1,
    )


def test_a_play_is_reported_once_even_if_proven_twice() -> None:
    ref = started(trump="H")
    run(ref, play("N", "7S"), play("W", "7C"), play("S", "8S"), play("E", "9S"))
    run(ref, play("E", "8D"), play("N", "9D"))
    out = run(ref, play("W", "AS"), play("S", "10D"))
    assert len(violations(out)) == 1
    # S took trick 2 with 10D; W shows another spade: trick 1 is not reported again
    out = run(ref, play("S", "7D"), play("E", "JD"), play("N", "QD"), play("W", "KS"))
    assert not violations(out)


def test_declared_cards_prove_a_play_at_once() -> None:
    ref = started(trump="H")
    run(ref, {"event": "declare", "seat": "W", "cards": ["AS", "KS"]})
    out = run(ref, play("N", "7S"), play("W", "7C"))
    assert [(v["rule"], v["proof"]) for v in violations(out)] == [("revoke", "AS")]


def test_declared_card_shown_after_the_play_proves_it() -> None:
    ref = started(trump="H")
    run(ref, play("N", "7S"), play("W", "7C"))
    out = run(ref, {"event": "declare", "seat": "W", "cards": ["KS"]})
    assert [(v["rule"], v["trick"], v["proof"]) for v in violations(out)] == [("revoke", 1, "KS")]


def test_declared_card_played_by_another_seat_is_a_duplicate() -> None:
    ref = started()
    run(ref, {"event": "declare", "seat": "W", "cards": ["AS"]})
    out = run(ref, play("N", "AS"))
    assert violations(out)[0]["rule"] == "duplicate_card"
    assert run(ref, play("N", "7S"), play("W", "AS"))[-1] == {"call": "turn", "seat": "S"}


def test_legal_plays_follow_the_obligations() -> None:
    ref = started(trump="H")
    run(ref, play("N", "9S"), play("W", "JH"))
    hand = [Card.parse(c) for c in ("7S", "7H", "AH", "7C")]
    assert [c.code for c in ref.legal_plays("S", hand)] == ["7S"]
    hand = [Card.parse(c) for c in ("7H", "AH", "7C")]
    assert [c.code for c in ref.legal_plays("S", hand)] == ["AH"]  # must overtrump the JH
    hand = [Card.parse(c) for c in ("7C", "8D")]
    assert len(ref.legal_plays("S", hand)) == 2


# ------------------------------------------------------------------ undo
def test_undo_retracts_the_last_play() -> None:
    ref = started()
    run(ref, play("N", "7S"), play("W", "8S"))
    assert run(ref, {"event": "undo"}) == [
        {"call": "undo", "seat": "W", "card": "8S"},
        {"call": "turn", "seat": "W"},
    ]
    assert ref.deal is not None and ref.deal.trick is not None
    assert ref.deal.trick.cards == [Card.parse("7S")] and ref.deal.seen[Card.parse("8S")] == 0
    run(ref, play("W", "8S"))  # not a duplicate any more
    assert ref.turn == "S"


def test_undo_reopens_a_completed_trick_and_its_violations() -> None:
    ref = started(trump="H")
    run(ref, play("N", "7S"), play("W", "7C"), play("S", "8S"), play("E", "9S"))
    out = run(ref, play("E", "8D"), play("N", "9D"), play("W", "AS"))
    assert violations(out)
    run(ref, {"event": "undo"}, {"event": "undo"}, {"event": "undo"})
    assert ref.deal is not None and len(ref.deal.tricks) == 1
    run(ref, {"event": "undo"})
    assert ref.deal.tricks == [] and ref.turn == "E" and ref.deal.points["E"] == 0
    # the pending revoke of W was derived from trick 1 plays that remain: still proven later
    assert len(ref.deal.pending["W"]) == 1


def test_undo_after_the_last_card_retracts_deal_end_and_match_end() -> None:
    events = random_deal_events("briscola-2", seed=7, options={"rounds_to_win": 1})
    ref = Referee()
    run(ref, *events)
    assert ref.outcome is not None and ref.result is not None
    out = run(ref, {"event": "undo"})
    assert out[0]["call"] == "undo" and ref.outcome is None and ref.result is None
    assert ref.match is not None and ref.match.deals == 0
    run(ref, events[-1])
    assert ref.outcome is not None


def test_undo_with_nothing_played_is_an_error() -> None:
    ref = Referee()
    with pytest.raises(PhaseError, match="nothing to undo"):
        ref.apply({"event": "undo"})
    ref = started()
    with pytest.raises(PhaseError, match="no card played"):
        ref.apply({"event": "undo"})


# ------------------------------------------------------------------ errors leave state alone
def _snapshot(ref: Referee) -> Any:
    d = ref.deal
    assert d is not None
    return (
        d.turn,
        d.phase,
        [t.plays[:] for t in d.tricks],
        d.trick.plays[:] if d.trick else None,
        dict(d.seen),
        repr(ref.match),
    )


@pytest.mark.parametrize(
    ("event", "error", "match"),
    [
        ({"event": "play", "seat": "Q", "card": "7S"}, EventError, "seat"),
        ({"event": "play", "seat": "N"}, EventError, "card"),
        ({"event": "play", "seat": "N", "card": 7}, EventError, "card"),
        ({"event": "nonsense"}, EventError, "unknown event .nonsense."),
        ({"seat": "N"}, EventError, "event"),
        ({"event": "contract", "seat": "N", "trump": "H"}, PhaseError, "contract"),
        ({"event": "declare", "seat": "N", "cards": "AS"}, EventError, "cards"),
        (deal(), PhaseError, "not finished"),
    ],
)
def test_bad_events_raise_and_change_nothing(
    event: dict[str, Any], error: type[Exception], match: str
) -> None:
    ref = started()
    run(ref, play("N", "7S"), play("W", "8S"))
    before = _snapshot(ref)
    with pytest.raises(error, match=match):
        ref.apply(event)
    assert _snapshot(ref) == before


def test_a_game_event_that_fails_half_way_is_rolled_back() -> None:
    ref = started()
    run(ref, play("N", "7S"))
    before = _snapshot(ref)
    with pytest.raises(Exception):  # noqa: B017 - BadCardError from Card.parse in the toy game
        ref.apply({"event": "declare", "seat": "W", "cards": ["AS", "nope"]})
    assert _snapshot(ref) == before


def test_deal_event_errors_name_the_key() -> None:
    with pytest.raises(EventError, match="seats"):
        parse_event({"event": "deal", "game": "toy", "seats": ["N", "N"]})
    with pytest.raises(EventError, match="dealer"):
        parse_event({"event": "deal", "game": "toy", "seats": ["N", "S"], "dealer": "X"})
    with pytest.raises(EventError, match="options"):
        parse_event({"event": "deal", "game": "toy", "seats": ["N", "S"], "options": [1]})
    with pytest.raises(UnknownGameError, match="chess"):
        Referee().apply({"event": "deal", "game": "chess", "seats": ["N", "S"]})
    with pytest.raises(OptionError, match="'colour'"):
        Referee().apply({**deal(), "options": {"colour": "red"}})


def test_unimplemented_game_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(game_module.GAME_CLASSES, "ghost", "referee.rules.games.ghost:Ghost")
    with pytest.raises(UnknownGameError, match="not implemented"):
        get_game("ghost")


# ------------------------------------------------------------------ matches
def test_match_carries_across_deals_and_dealer_rotates() -> None:
    ref = Referee()
    events = random_deal_events("toy", seed=1)
    run(ref, *events)
    after = SEATS[(SEATS.index(events[0]["dealer"]) + 1) % 4]
    assert ref.match is not None and ref.match.deals == 1 and ref.next_dealer == after
    nxt = {k: v for k, v in events[0].items() if k != "dealer"}
    run(ref, nxt)
    assert ref.deal is not None and ref.deal.dealer == after and ref.deal.number == 2


def test_next_deal_must_keep_game_seats_and_options() -> None:
    ref = Referee()
    run(ref, *random_deal_events("briscola-2", seed=2))
    base = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "trump_card": "coppe_1"}
    with pytest.raises(PhaseError, match="same game and seats"):
        ref.apply({**base, "seats": ["S", "N"]})
    with pytest.raises(PhaseError, match="options"):
        ref.apply({**base, "options": {"tie": "last_trick"}})
    run(ref, {**base, "options": {"tie": "replay"}})  # repeating the same options is fine


def test_after_match_end_a_deal_starts_a_new_match() -> None:
    ref = Referee()
    run(ref, *random_deal_events("briscola-2", seed=2, options={"rounds_to_win": 1}))
    assert ref.outcome is not None
    run(ref, {"event": "deal", "game": "briscola-4", "seats": SEATS, "trump_card": "coppe_1"})
    assert ref.match is not None and ref.match.game == "briscola-4" and ref.outcome is None


def test_draw_only_before_a_match() -> None:
    ref = Referee()
    run(ref, *random_deal_events("briscola-2", seed=2))
    with pytest.raises(PhaseError, match="draw"):
        ref.apply({"event": "draw", "cards": {"N": "coppe_1", "S": "coppe_2"}})


# ------------------------------------------------------------------ values
def test_calls_and_events_repr_paste_back() -> None:
    for value in (
        TurnCall("N"),
        TrickCall(1, "N", (("N", "7S"),), 0),
        ViolationCall("N", "revoke", 2, "x", proof="AS"),
        PlayEvent("N", "7S"),
    ):
        assert eval(repr(value)) == value
    assert parse_event({"event": "play", "seat": "N", "card": "7S"}) == PlayEvent("N", "7S")


def test_from_events_and_repr() -> None:
    ref = Referee.from_events([deal(), {"event": "contract", "seat": "N", "trump": "S"}])
    assert repr(ref) == "<Referee toy deal=1 trick=1 turn='N' phase='play'>"
    assert repr(get_game("briscola-2")()).startswith("get_game('briscola-2')({")


# ------------------------------------------------------------------ random playouts
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_legal_toy_playouts_have_no_violation(seed: int) -> None:
    events = random_deal_events("toy", seed)
    assert sum(e["event"] == "play" for e in events) == 32


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 31))
def test_injected_illegal_play_is_reported_with_its_trick(seed: int, at: int) -> None:
    """Replace play number ``at`` by an illegal card from the same hand, if one exists; the
    referee must report exactly that play by the end of the deal."""
    rng = random.Random(seed)
    ref = Referee()
    game = get_game("toy")()
    table = game.deal_hands(rng, tuple(SEATS), "E")
    out = run(ref, deal(), {"event": "contract", "seat": "N", "trump": rng.choice("CDHS")})
    injected: tuple[str, int] | None = None
    for n in range(32):
        d = ref.deal
        assert d is not None and d.turn is not None
        seat, hand = d.turn, table.hands[d.turn]
        legal = game.legal_plays(d, seat, hand)
        illegal = [c for c in hand if c not in legal]
        pick = illegal[0] if (n >= at and illegal and injected is None) else rng.choice(legal)
        if pick in illegal:
            injected = (seat, d.trick_number)
        hand.remove(pick)
        out += run(ref, play(seat, pick.code))
    found = [(v["seat"], v["trick"]) for v in violations(out)]
    assert found == ([injected] if injected else [])


def test_strict_playout_raises_on_a_broken_game(monkeypatch: pytest.MonkeyPatch) -> None:
    # a game whose legal_plays ignore its obligations is caught by the strict playout
    monkeypatch.setattr(Toy, "legal_plays", lambda self, deal, seat, hand: list(hand))
    with pytest.raises(PlayoutError, match="violation"):
        for seed in range(20):
            random_deal_events("toy", seed)


def test_a_game_event_can_end_the_deal_and_the_engine_finishes_it() -> None:
    ref = Referee()
    run(ref, deal(dealer="E"))
    out = run(ref, {"event": "void", "seat": "N"})
    assert out == [{"call": "deal_end", "points": {}, "winner": None, "void": True}]
    assert ref.match is not None and ref.match.deals == 1 and ref.next_dealer == "N"
    with pytest.raises(PhaseError, match="over"):
        ref.apply(play("N", "7S"))
    run(ref, deal(dealer="N"))
    assert ref.deal is not None and ref.deal.carry == ToyMatch(seen_deals=1)


def test_wrong_dealer_when_the_deal_must_rotate() -> None:
    ref = Referee()
    run(ref, deal(dealer="E"), {"event": "void"})
    out = run(ref, deal(dealer="S"))
    assert out == [
        {
            "call": "violation",
            "seat": "S",
            "rule": "wrong_dealer",
            "trick": 0,
            "detail": "the deal passes to N",
            "expected": "N",
        }
    ]


def test_a_draw_without_game_after_another_games_match_takes_any_deck() -> None:
    # regression: the check of drawn cards against the deck took the last match's game as the
    # draw's game, rejecting a belotta draw (French cards) after a briscola match
    from referee.rules.playout import random_match_events

    ref = Referee.from_events(random_match_events("briscola-2", 1))
    assert ref.outcome is not None
    calls = ref.apply({"event": "draw", "cards": {"N": "AD", "W": "KS", "S": "7C", "E": "8H"}})
    assert [c.to_dict() for c in calls] == [{"call": "dealer", "seat": "N"}]
