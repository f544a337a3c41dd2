"""Briscola 2 and 4: one named scenario per numbered rule of the two documents.

Rule numbers: "torneo N" = briscola-torneo-4-giocatori.txt point N; "2e4" = the section of
briscola-2-e-4-giocatori.txt.  docs/rules-tests.md maps each rule to these tests.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from referee.cards import ITALIAN_40, parse_card
from referee.rules import EventError, OptionError, Referee, get_game
from referee.rules.games.briscola import Briscola2Options, BriscolaOptions
from referee.rules.playout import random_deal_events
from referee.rules.state import DealState
from referee.rules.tricks import Trick

SEATS4 = ["N", "W", "S", "E"]


def deal4(trump: str = "bastoni_2", dealer: str = "E", **options: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "event": "deal",
        "game": "briscola-4",
        "seats": SEATS4,
        "dealer": dealer,
        "trump_card": trump,
    }
    if options:
        event["options"] = options
    return event


def deal2(trump: str = "bastoni_2", dealer: str = "S", **options: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": dealer}
    event["trump_card"] = trump
    if options:
        event["options"] = options
    return event


def play(seat: str, card: str) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card}


def calls(ref: Referee, *events: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for event in events:
        out += [c.to_dict() for c in ref.apply(event)]
    return out


def of(kind: str, dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in dicts if d["call"] == kind]


def trick(ref: Referee, *plays: tuple[str, str]) -> dict[str, Any]:
    out = calls(ref, *(play(s, c) for s, c in plays))
    return of("trick", out)[0]


# --------------------------------------------------------------- torneo 1: dealer by draw
def test_torneo_1_highest_card_chooses_the_dealer() -> None:
    ref = Referee()
    out = calls(
        ref,
        {
            "event": "draw",
            "cards": {"N": "coppe_3", "W": "spade_1", "S": "denari_10", "E": "bastoni_2"},
        },
    )
    assert out == [{"call": "dealer", "seat": "W"}]  # asso beats tre beats re
    assert calls(ref, deal4(dealer="W"))[0] == {"call": "turn", "seat": "S"}


def test_torneo_1_tie_on_the_highest_card_is_drawn_again_by_the_tied_seats() -> None:
    ref = Referee()
    first = {
        "event": "draw",
        "cards": {"N": "coppe_1", "W": "spade_1", "S": "denari_10", "E": "bastoni_2"},
    }
    assert calls(ref, first) == [{"call": "redraw", "seats": ["N", "W"]}]
    assert calls(ref, {"event": "draw", "cards": {"N": "coppe_5", "W": "spade_4"}}) == [
        {"call": "dealer", "seat": "N"}
    ]


def test_torneo_1_a_deal_by_another_seat_than_the_drawn_dealer_is_reported() -> None:
    ref = Referee()
    calls(
        ref,
        {
            "event": "draw",
            "cards": {"N": "coppe_1", "W": "spade_3", "S": "denari_10", "E": "bastoni_2"},
        },
    )
    out = calls(ref, deal4(dealer="E"))
    assert out[0]["rule"] == "wrong_dealer" and out[0]["expected"] == "N"


def test_torneo_1_deal_without_dealer_uses_the_drawn_one() -> None:
    ref = Referee()
    calls(
        ref,
        {
            "event": "draw",
            "cards": {"N": "coppe_1", "W": "spade_3", "S": "denari_10", "E": "bastoni_2"},
        },
    )
    event = deal4()
    del event["dealer"]
    assert calls(ref, event) == [{"call": "turn", "seat": "W"}]
    assert ref.deal is not None and ref.deal.dealer == "N"


def test_torneo_1_a_redraw_must_include_every_tied_seat() -> None:
    ref = Referee()
    calls(ref, {"event": "draw", "cards": {"N": "coppe_1", "W": "spade_1"}})
    with pytest.raises(EventError, match="redraw"):
        ref.apply({"event": "draw", "cards": {"N": "coppe_5"}})


def test_torneo_1_draw_rejects_a_foreign_or_repeated_card() -> None:
    # regression: a French card won a briscola draw (ace high), and two seats could draw the
    # same card of a one-copy deck
    ref = Referee()
    cards = {"N": "AS", "W": "spade_1", "S": "denari_10", "E": "bastoni_2"}
    with pytest.raises(EventError, match="seat 'N': 'AS' is not a card of the italian-40"):
        ref.apply({"event": "draw", "game": "briscola-4", "cards": cards})
    cards["N"] = "spade_1"
    with pytest.raises(EventError, match="seat 'W': spade_1 was already drawn by N"):
        ref.apply({"event": "draw", "game": "briscola-4", "cards": cards})
    cards["N"] = "coppe_1"
    assert calls(ref, {"event": "draw", "game": "briscola-4", "cards": cards}) == [
        {"call": "redraw", "seats": ["N", "W"]}
    ]


# --------------------------------------------------------------- torneo 3: deal and briscola
def test_torneo_3_face_up_card_sets_the_trump_suit() -> None:
    ref = Referee()
    calls(ref, deal4(trump="denari_7"))
    assert ref.deal is not None and ref.deal.trump == "denari"
    # a low trump beats the asso of the led suit
    t = trick(ref, ("N", "coppe_1"), ("W", "denari_2"), ("S", "coppe_3"), ("E", "coppe_10"))
    assert t["winner"] == "W" and t["points"] == 25


def test_torneo_3_deal_needs_the_face_up_briscola() -> None:
    event = deal4()
    del event["trump_card"]
    with pytest.raises(EventError, match="trump_card"):
        Referee().apply(event)
    with pytest.raises(EventError, match="trump_card"):
        Referee().apply(deal4(trump="10H"))


# --------------------------------------------------------------- torneo 4: who leads
def test_torneo_4_first_player_after_the_dealer_leads_then_the_trick_winner() -> None:
    ref = Referee()
    assert calls(ref, deal4(dealer="S")) == [{"call": "turn", "seat": "E"}]
    out = calls(
        ref, play("E", "spade_2"), play("N", "spade_1"), play("W", "spade_4"), play("S", "spade_5")
    )
    assert of("trick", out)[0]["winner"] == "N"
    assert out[-1] == {"call": "turn", "seat": "N"}
    assert [d["seat"] for d in of("turn", out)] == ["N", "W", "S", "N"]


def test_torneo_4_option_first_leader_before_dealer() -> None:
    # torneo 3/4 deal from the dealer's right but play "in senso orario": read literally, the
    # seat dealt the first card leads and the dealer plays second (seats are in play order)
    ref = Referee()
    assert calls(ref, deal4(dealer="S", first_leader="before_dealer")) == [
        {"call": "turn", "seat": "W"}
    ]
    out = calls(ref, play("W", "spade_2"), play("S", "spade_1"))
    assert of("violation", out) == [] and out[-1] == {"call": "turn", "seat": "E"}
    # the stock is drawn against the play: random legal deals meet the last-draw check
    for seed in range(5):
        events = random_deal_events("briscola-4", seed, options={"first_leader": "before_dealer"})
        assert of("violation", calls(Referee(), *events)) == []


# --------------------------------------------------------------- torneo 5: card order
@pytest.mark.parametrize(
    ("lower", "higher"),
    [("2", "4"), ("4", "5"), ("7", "8"), ("8", "9"), ("9", "10"), ("10", "3"), ("3", "1")],
)
def test_torneo_5_card_order_within_the_led_suit(lower: str, higher: str) -> None:
    ref = Referee()
    calls(ref, deal2(trump="bastoni_2"))
    t = trick(ref, ("N", f"coppe_{lower}"), ("S", f"coppe_{higher}"))
    assert t["winner"] == "S"
    ref = Referee()
    calls(ref, deal2(trump="bastoni_2"))
    assert trick(ref, ("N", f"coppe_{higher}"), ("S", f"coppe_{lower}"))["winner"] == "N"


def test_torneo_5_off_suit_card_never_wins_and_the_leader_keeps_the_trick() -> None:
    ref = Referee()
    calls(ref, deal4(trump="bastoni_2", dealer="N"))
    t = trick(ref, ("W", "coppe_2"), ("S", "spade_1"), ("E", "denari_1"), ("N", "spade_3"))
    assert t["winner"] == "W" and t["points"] == 32


def test_torneo_5_highest_trump_wins_when_trumps_are_played() -> None:
    ref = Referee()
    calls(ref, deal4(trump="bastoni_2", dealer="N"))
    t = trick(ref, ("W", "coppe_1"), ("S", "bastoni_4"), ("E", "bastoni_3"), ("N", "bastoni_10"))
    assert t["winner"] == "E"


def test_2e4_trump_led_is_won_by_the_highest_trump() -> None:
    ref = Referee()
    calls(ref, deal2(trump="spade_2"))
    assert trick(ref, ("N", "spade_8"), ("S", "spade_9"))["winner"] == "S"


# --------------------------------------------------------------- torneo 7: last draw
def test_torneo_7_face_up_briscola_cannot_be_played_while_under_the_stock() -> None:
    ref = Referee()
    calls(ref, deal4(trump="bastoni_2", dealer="N"))
    out = calls(ref, play("W", "bastoni_2"))
    assert out[0]["rule"] == "duplicate_card" and "trick 8" in out[0]["detail"]
    assert ref.turn == "W" and ref.deal is not None and ref.deal.trick is not None
    assert not ref.deal.trick.plays  # not recorded


def test_torneo_7_face_up_briscola_is_played_after_the_last_draw() -> None:
    game = get_game("briscola-4")()
    deal = DealState(
        "briscola-4", 1, tuple(SEATS4), "E", game.options, trump_card=parse_card("bastoni_2")
    )
    deal.tricks = [Trick(i + 1, "N") for i in range(7)]
    assert game.unavailable(deal, "N", parse_card("bastoni_2")) is None
    deal.tricks.pop()
    assert game.unavailable(deal, "N", parse_card("bastoni_2")) is not None


def test_torneo_7_only_the_last_to_draw_can_play_the_face_up_briscola() -> None:
    # the winner of trick 7 draws first, the others in play order: the seat before the winner
    # takes the face-up briscola; another seat playing it is a misread or a wrong draw
    events = random_deal_events("briscola-4", 3)
    trump = events[0]["trump_card"]
    ref = Referee.from_events(events[:29])  # the deal and the 28 plays of tricks 1-7
    assert ref.deal is not None and len(ref.deal.tricks) == 7 and ref.deal.trick is not None
    holder = ref.deal.next_seat(ref.deal.trick.leader, -1)
    other = next(s for s in SEATS4 if s != holder)
    out = calls(ref, play(other, trump))
    assert out[0]["rule"] == "duplicate_card" and f"taken by {holder}" in out[0]["detail"]
    assert not ref.deal.trick.plays  # not recorded
    rules = {v["rule"] for v in of("violation", calls(ref, play(holder, trump)))}
    assert "duplicate_card" not in rules


def test_torneo_7_heads_up_briscola_is_free_from_trick_18() -> None:
    game = get_game("briscola-2")()
    deal = DealState(
        "briscola-2", 1, ("N", "S"), "S", game.options, trump_card=parse_card("coppe_1")
    )
    deal.tricks = [Trick(i + 1, "N") for i in range(16)]
    assert "trick 18" in (game.unavailable(deal, "N", parse_card("coppe_1")) or "")
    deal.tricks.append(Trick(17, "N"))
    assert game.unavailable(deal, "N", parse_card("coppe_1")) is None


# --------------------------------------------------------------- torneo 8: points, 61, ties
def test_torneo_8_card_points() -> None:
    game = get_game("briscola-4")()
    deal = DealState("briscola-4", 1, tuple(SEATS4), "E", game.options)
    points = {c.code: game.card_points(deal, c) for c in ITALIAN_40.faces if c.suit == "coppe"}
    assert points == {
        "coppe_1": 11,
        "coppe_3": 10,
        "coppe_10": 4,
        "coppe_9": 3,
        "coppe_8": 2,
        "coppe_2": 0,
        "coppe_4": 0,
        "coppe_5": 0,
        "coppe_6": 0,
        "coppe_7": 0,
    }
    assert sum(game.card_points(deal, c) for c in ITALIAN_40) == 120


def _scored(game_name: str, points: dict[str, int], last: str, **options: Any) -> Any:
    game = get_game(game_name)(options)
    seats = tuple(SEATS4) if game_name == "briscola-4" else ("N", "S")
    deal = DealState(game_name, 1, seats, seats[-1], game.options)
    deal.points.update(points)
    deal.last_winner = last
    return game.score_deal(deal)


def test_torneo_8_61_wins_the_game() -> None:
    result = _scored("briscola-4", {"N": 40, "S": 21, "W": 50, "E": 9}, last="W")
    assert dict(result.points) == {"N+S": 61, "W+E": 59} and result.winner == "N+S"


def test_2e4_option_end_at_61_ends_the_deal_at_the_deciding_trick() -> None:
    # 2e4: "una smazzata finisce al raggiungimento di 61 punti"; by default the deal is
    # played out (the winner is the same), with the option the table may stop at 61
    events = random_deal_events("briscola-2", 7)
    full = calls(Referee(), *events)
    ref = Referee()
    ref.apply({**events[0], "options": {"end_at_61": True}})
    short: list[dict[str, Any]] = []
    for event in events[1:]:
        short += calls(ref, event)
        if ref.result is not None:
            break
    end, full_end = of("deal_end", short)[0], of("deal_end", full)[0]
    assert end["winner"] == full_end["winner"] and max(end["points"].values()) >= 61
    assert len(of("trick", short)) < len(of("trick", full)) == 20
    before_last = dict.fromkeys(("N", "S"), 0)  # nobody had 61 before the deciding trick
    for t in of("trick", short)[:-1]:
        before_last[t["winner"]] += t["points"]
    assert max(before_last.values()) < 61


def test_torneo_8_60_60_goes_to_the_pair_that_took_the_last_trick() -> None:
    result = _scored("briscola-4", {"N": 30, "S": 30, "W": 50, "E": 10}, last="E")
    assert result.winner == "W+E" and result.extra["tie"] == "last_trick"


def test_2e4_60_60_replays_the_round_heads_up_by_default() -> None:
    result = _scored("briscola-2", {"N": 60, "S": 60}, last="N")
    assert result.winner is None and result.extra["tie"] == "replay"


def test_option_tie_replay_for_briscola_4() -> None:
    result = _scored("briscola-4", {"N": 30, "S": 30, "W": 50, "E": 10}, last="E", tie="replay")
    assert result.winner is None


# --------------------------------------------------------------- torneo 9 / 2e4: the match
def test_torneo_9_best_of_three_and_2e4_rounds_option() -> None:
    assert BriscolaOptions().rounds_to_win == 2
    assert cast(BriscolaOptions, get_game("briscola-2")({"rounds_to_win": 3}).options).rounds_to_win == 3
    with pytest.raises(OptionError, match="rounds_to_win"):
        get_game("briscola-2")({"rounds_to_win": 0})


def test_2e4_tied_round_awards_no_point_and_adds_a_round() -> None:
    game = get_game("briscola-2")()
    match = game.new_match(("N", "S"))
    deal = DealState("briscola-2", 1, ("N", "S"), "S", game.options)
    tie = _scored("briscola-2", {"N": 60, "S": 60}, last="N")
    won = _scored("briscola-2", {"N": 70, "S": 50}, last="N")
    assert game.add_deal(match, deal, tie) is None and match.score == {"N": 0, "S": 0}
    assert game.add_deal(match, deal, won) is None
    outcome = game.add_deal(match, deal, won)
    assert outcome is not None and outcome.winner == "N" and dict(outcome.score) == {"N": 2, "S": 0}


# --------------------------------------------------------------- torneo 10: out of turn
def test_torneo_10_out_of_turn_loses_the_game_for_the_pair() -> None:
    ref = Referee()
    calls(ref, deal4(dealer="E"))
    out = calls(ref, play("N", "coppe_1"), play("S", "coppe_3"))
    assert out[1] == {
        "call": "violation",
        "seat": "S",
        "rule": "out_of_turn",
        "trick": 1,
        "detail": "S played coppe_3 but it was W's turn",
        "card": "coppe_3",
        "expected": "W",
    }
    end = of("deal_end", out)[0]
    assert end["winner"] == "W+E" and end["forfeit"] == {"seat": "S", "rule": "out_of_turn"}
    assert ref.match is not None and ref.match.score == {"N+S": 0, "W+E": 1}


def test_option_out_of_turn_report_keeps_the_card_and_goes_on() -> None:
    ref = Referee()
    calls(ref, deal4(dealer="E", out_of_turn="report"))
    out = calls(ref, play("N", "coppe_1"), play("S", "coppe_3"))
    assert of("violation", out)[0]["rule"] == "out_of_turn" and not of("deal_end", out)
    assert ref.turn == "W"  # W still owes a card; then E
    out = calls(ref, play("W", "coppe_2"))
    assert out == [{"call": "turn", "seat": "E"}]
    t = trick(ref, ("E", "coppe_4"))
    assert t["cards"] == [["N", "coppe_1"], ["S", "coppe_3"], ["W", "coppe_2"], ["E", "coppe_4"]]
    assert t["winner"] == "N"


def test_briscola_2_out_of_turn_is_reported_only_by_default() -> None:
    assert Briscola2Options().out_of_turn == "report"
    ref = Referee()
    calls(ref, deal2(dealer="S"))
    out = calls(ref, play("S", "coppe_1"))
    assert out[0]["rule"] == "out_of_turn" and not of("deal_end", out)


# --------------------------------------------------------------- 2e4: pairs, timer, deck
def test_2e4_partners_sit_alternately() -> None:
    ref = Referee()
    calls(ref, {**deal4(), "seats": ["A", "B", "C", "D"], "dealer": "D"})
    assert ref.game is not None and ref.deal is not None
    assert ref.game.teams(ref.deal) == (("A", "C"), ("B", "D"))


def test_2e4_move_timer_option() -> None:
    assert Briscola2Options().move_timer_s == 20.0
    assert BriscolaOptions().move_timer_s is None
    assert cast(BriscolaOptions, get_game("briscola-4")({"move_timer_s": 20}).options).move_timer_s == 20
    with pytest.raises(OptionError, match="move_timer_s"):
        get_game("briscola-4")({"move_timer_s": -1})
    for bad in (float("nan"), float("inf")):  # regression: NaN passed the "positive" check
        with pytest.raises(OptionError, match="move_timer_s"):
            get_game("briscola-2")({"move_timer_s": bad})


def test_2e4_seat_counts() -> None:
    with pytest.raises(EventError, match="2 players"):
        Referee().apply({**deal2(), "seats": ["N", "W", "S"]})
    with pytest.raises(EventError, match="4 players"):
        Referee().apply({**deal4(), "seats": ["N", "S"], "dealer": "S"})


def test_2e4_forty_italian_cards_french_card_is_bad() -> None:
    ref = Referee()
    calls(ref, deal2())
    out = calls(ref, play("N", "AS"))
    assert out[0]["rule"] == "bad_card" and ref.turn == "N"


def test_whole_deal_totals_120_and_ends_with_deal_end() -> None:
    from referee.rules.playout import random_deal_events

    ref = Referee()
    out = calls(ref, *random_deal_events("briscola-4", seed=3))
    assert len(of("trick", out)) == 10
    end = of("deal_end", out)[0]
    assert sum(end["points"].values()) == 120 and sum(t["points"] for t in of("trick", out)) == 120
    assert not of("violation", out)


def test_torneo_10_undo_of_a_misread_out_of_turn_card_restores_the_game() -> None:
    ref = Referee()
    calls(ref, deal4(dealer="E"))
    calls(ref, play("N", "coppe_1"), play("S", "coppe_3"))
    assert ref.result is not None and ref.match is not None and ref.match.deals == 1
    out = calls(ref, {"event": "undo"})
    assert out[0] == {"call": "undo", "seat": "S", "card": "coppe_3"} and out[-1] == {"call": "turn", "seat": "W"}
    # the table was told of S's out of turn card (and its forfeit): it is withdrawn with the card
    assert [(c["call"], c["seat"], c["rule"], c["trick"], c["reason"]) for c in out[1:-1]] == [
        ("withdrawn", "S", "out_of_turn", 1, "undo")
    ]
    assert ref.result is None and ref.match.deals == 0 and ref.match.score == {"N+S": 0, "W+E": 0}


def test_random_briscola_4_match_starts_with_the_dealer_draw() -> None:
    from referee.rules.playout import random_match_events

    events = random_match_events("briscola-4", seed=4)
    first_deal = next(i for i, e in enumerate(events) if e["event"] == "deal")
    assert first_deal >= 1 and all(e["event"] == "draw" for e in events[:first_deal])
    out = calls(Referee(), *events)
    assert of("dealer", out) and out[-1]["call"] == "match_end"
