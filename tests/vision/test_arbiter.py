"""PlayArbiter on its own: the decisions the watch loop and the box share."""

from __future__ import annotations

from typing import Any

from tracker_doubles import StubTracker, Track

from referee.rules import Referee
from referee.vision.arbiter import TRUSTED_AFTER, PlayArbiter

SEATS = ["N", "W", "S", "E"]
DEAL = {"event": "deal", "game": "briscola-4", "seats": SEATS, "trump_card": "denari_1"}


def setup() -> tuple[PlayArbiter, Referee, StubTracker]:
    ref, tracker = Referee(), StubTracker()

    def apply(event: dict[str, Any]) -> list[dict[str, Any]]:
        calls = [c.to_dict() for c in ref.apply(event)]
        arbiter.note(event, calls)
        return calls

    arbiter = PlayArbiter(tracker, lambda: ref, apply)
    apply(dict(DEAL))
    return arbiter, ref, tracker


def play(seat: str, card: str) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card, "confidence": 0.97}


def test_out_of_turn_is_asked_about_until_whole_tricks_were_seen() -> None:
    arbiter, ref, _ = setup()
    out = arbiter.camera([play("W", "spade_1")], 1.0)
    assert [c["call"] for c in out] == ["confirm"] and out[0]["missed"] and out[0]["seat"] == "N"
    assert out[0]["card"] is None and arbiter.question is not None
    assert arbiter.answer({"event": "confirm"})[0]["call"] == "error"  # no card named: still asked
    out = arbiter.answer({"event": "confirm", "accept": False})
    assert any(c.get("rule") == "out_of_turn" for c in out)
    assert ref.deal is not None and arbiter.question is None


def test_a_trusted_camera_calls_out_of_turn_without_asking() -> None:
    arbiter, _, _ = setup()
    cards = iter(["coppe_1", "coppe_2", "coppe_3", "coppe_4", "spade_1", "spade_2", "spade_3", "spade_4"])
    t = 1.0
    while arbiter.clean_tricks < TRUSTED_AFTER:
        turn = arbiter.referee_of().turn
        assert turn is not None
        t += 1
        assert all(c["call"] != "confirm" for c in arbiter.camera([play(turn, next(cards))], t))
    turn = arbiter.referee_of().turn
    wrong = next(s for s in SEATS if s != turn)
    out = arbiter.camera([play(wrong, "bastoni_5")], t + 1)
    assert any(c.get("rule") == "out_of_turn" for c in out) and not any(c["call"] == "confirm" for c in out)


def test_a_guess_confirmed_settles_the_track_and_the_queued_play_follows() -> None:
    arbiter, ref, tracker = setup()
    tracker.missed = Track(4, "coppe_7")
    out = arbiter.camera([play("W", "spade_1")], 1.0)
    assert out[-1]["card"] == "coppe_7"
    arbiter.answer({"event": "confirm"})
    assert tracker.settled == [(4, "coppe_7", "N")]
    assert ref.deal is not None and ref.deal.trick is not None
    assert [s for s, _ in ref.deal.trick.plays] == ["N", "W"]
    assert arbiter.clean_tricks == 0


def test_a_trick_gathered_short_asks_about_the_seat_on_turn_once() -> None:
    arbiter, _, tracker = setup()
    arbiter.camera([play("N", "coppe_3")], 1.0)
    tracker.on_table = False
    later = 1.0 + tracker.config.long_gone_s + 1
    out = arbiter.camera([], later)
    assert [(c["call"], c["seat"], c.get("missed")) for c in out] == [("confirm", "W", True)]
    arbiter.answer({"event": "confirm", "accept": False})
    assert arbiter.camera([], later + 1) == []  # asked once per trick


def test_nothing_is_a_play_after_the_deal_is_over() -> None:
    arbiter, ref, _ = setup()
    arbiter.queue.append(play("N", "coppe_3"))
    arbiter.asked = True
    assert ref.deal is not None
    ref.deal.phase = "over"  # type: ignore[misc]
    assert arbiter.camera([play("N", "coppe_4")], 2.0) == []
    assert arbiter.queue == [] and arbiter.question is None


def test_a_queued_camera_play_of_the_card_the_operator_named_is_not_played_again() -> None:
    # Briscola-4 seed 3: S's card (forced first, it lay still earlier) and W's coppe_2 were
    # decided in the same frame with W on turn; the question about W was answered coppe_2,
    # and W's queued camera play of coppe_2 then went to the referee as a second play (a
    # phantom, and a refused question about the next seat).
    arbiter, ref, _ = setup()
    out = arbiter.camera([play("W", "coppe_2"), play("N", "spade_1")], 1.0)  # N was on turn
    assert out[-1]["call"] == "confirm" and out[-1]["seat"] == "N" and out[-1]["missed"]
    out = arbiter.answer({"event": "confirm", "card": "spade_1"})
    assert not any(c["call"] == "violation" for c in out)
    assert ref.deal is not None and ref.deal.trick is not None
    assert [(s, c.code) for s, c in ref.deal.trick.plays] == [("N", "spade_1"), ("W", "coppe_2")]
    assert arbiter.queue == [] and arbiter.question is None


def correction(seat: str, card: str, was: str) -> dict[str, Any]:
    return {**play(seat, card), "correction": was, "uncertain": True, "alternatives": [was], "track": 9}


def test_a_correction_the_operator_confirms_replaces_the_last_play() -> None:
    arbiter, ref, tracker = setup()
    arbiter.camera([play("N", "coppe_5")], 1.0)  # a sure misread: N really laid coppe_6
    out = arbiter.camera([correction("N", "coppe_6", "coppe_5")], 1.5)
    assert [(c["call"], c["seat"], c["card"], c.get("correction")) for c in out] == [
        ("confirm", "N", "coppe_6", "coppe_5")]
    out = arbiter.answer({"event": "confirm"})
    assert not any(c["call"] in ("error", "violation") for c in out)
    assert ref.deal is not None and ref.deal.trick is not None
    assert [(s, c.code) for s, c in ref.deal.trick.plays] == [("N", "coppe_6")]
    assert tracker.settled == [(9, "coppe_6", "N")]


def test_a_correction_the_operator_refuses_leaves_the_play_as_it_was() -> None:
    arbiter, ref, _ = setup()
    arbiter.camera([play("N", "coppe_5")], 1.0)
    arbiter.camera([correction("N", "coppe_6", "coppe_5")], 1.5)
    out = arbiter.answer({"event": "confirm", "accept": False})
    assert out == [] and arbiter.question is None
    assert ref.deal is not None and ref.deal.trick is not None
    assert [(s, c.code) for s, c in ref.deal.trick.plays] == [("N", "coppe_5")]


def test_a_correction_after_the_next_play_is_dropped_unasked() -> None:
    arbiter, ref, _ = setup()
    arbiter.camera([play("N", "coppe_5"), play("W", "spade_2")], 1.0)
    out = arbiter.camera([correction("N", "coppe_6", "coppe_5")], 1.5)
    assert out == [] and arbiter.queue == []
    assert ref.deal is not None and ref.deal.trick is not None
    assert [c.code for _, c in ref.deal.trick.plays] == ["coppe_5", "spade_2"]


def test_a_sure_play_the_rules_call_a_violation_is_asked_about_first() -> None:
    # Binocolo seed 1 (Knoll print): E's 9C, read as 9S at ~0.87, went in as a revoke (E had
    # melded 9C) and put every later trick out of step.  Here: a sure read of a card already
    # played (duplicate_card) is asked, and the card the operator names goes in instead.
    arbiter, ref, _ = setup()
    arbiter.camera([play("N", "coppe_3")], 1.0)
    out = arbiter.camera([play("W", "coppe_3")], 2.0)
    assert [(c["call"], c["seat"], c["card"], c.get("violation")) for c in out] == [
        ("confirm", "W", "coppe_3", "duplicate_card")]
    out = arbiter.answer({"event": "confirm", "card": "coppe_2"})
    assert not any(c["call"] == "violation" for c in out)
    assert ref.deal is not None and ref.deal.trick is not None
    assert [(s, c.code) for s, c in ref.deal.trick.plays] == [("N", "coppe_3"), ("W", "coppe_2")]


def test_the_operator_can_confirm_a_play_that_breaks_a_rule() -> None:
    arbiter, _, _ = setup()
    arbiter.camera([play("N", "coppe_3")], 1.0)
    arbiter.camera([play("W", "coppe_3")], 2.0)
    out = arbiter.answer({"event": "confirm"})
    assert [c["rule"] for c in out if c["call"] == "violation"] == ["duplicate_card"]
