"""The box asks what ``referee watch`` asks: camera plays go through the shared PlayArbiter, so
a card the camera may have missed is a question ("did N play?"), not an out_of_turn forfeit."""

from __future__ import annotations

from typing import Any

from tracker_doubles import StubTracker, Track

from box.helpers import BRISCOLA4_DEAL, FakeClock, camera_box
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.deal_card_menu import PlayedCardMenu
from referee.box.screens import ConfirmScreen, MenuScreen, ScoreScreen
from referee.cards import ITALIAN_40

DEAL = BRISCOLA4_DEAL


def play(seat: str, card: str, t: float = 1.0) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": t}


def recorded_plays(box: Box) -> list[tuple[str, str]]:
    assert box.match_id is not None
    return [(e["seat"], e["card"]) for e in box.store.events(box.match_id) if e["event"] == "play"]


def test_a_play_out_of_turn_first_asks_whether_the_turn_seat_played(cfg: BoxConfig, clock: FakeClock) -> None:
    tracker = StubTracker(Track(7, "coppe_3"))
    box, signals, display = camera_box(cfg, clock, tracker)
    assert box.handle(play("W", "spade_1"), source_pos=5) == []
    assert display.last == ConfirmScreen("N", "coppe_3", missed=True)
    assert ("unsure", ("N",)) in signals.log and recorded_plays(box) == []
    box.gesture("ok", "press")  # yes: N played the guess, then W's play stands in turn
    assert recorded_plays(box) == [("N", "coppe_3"), ("W", "spade_1")]
    assert tracker.settled == [(7, "coppe_3", "N")]
    assert box.referee.turn == "S" and isinstance(display.last, ScoreScreen)
    assert box.store.last_source_pos(1) == 5


def test_no_to_a_missed_question_lets_the_out_of_turn_call_through(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, _ = camera_box(cfg, clock, StubTracker(Track(7, "coppe_3")))
    box.handle(play("W", "spade_1"))
    box.gesture("left", "press")  # no: N did not play
    assert "confirmed" in signals.names()
    events = box.store.events(1)
    assert events[-1]["event"] == "play" and events[-1]["seat"] == "W"
    assert ("violation", ()) in signals.log  # out_of_turn, as `referee watch` would call it


def test_with_no_guess_the_operator_picks_the_card_in_the_menu(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("W", "spade_1"))
    assert isinstance(display.last, MenuScreen) and display.last.seat == "N"
    assert display.last.header_key == "played_card"
    menu = PlayedCardMenu("N", ITALIAN_40)
    menu.press("next")
    menu.press("select")
    menu.press("next")
    box.gesture("right", "press")  # the next suit
    box.gesture("ok", "press")
    box.gesture("right", "press")  # the next rank
    box.gesture("ok", "press")
    assert recorded_plays(box) == [("N", menu.code), ("W", "spade_1")]
    named, camera_play = box.store.events(1)[-2:]  # the camera's miss is on the record (trust)
    assert named.get("missed") is True and "missed" not in camera_play
    assert box.menu is None and box.pending is None


def test_backing_out_of_the_card_menu_means_no_play(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, _ = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("W", "spade_1"))
    box.gesture("ok", "hold")  # cancel: N did not play
    assert recorded_plays(box) == [("W", "spade_1")]
    assert ("violation", ()) in signals.log and box.menu is None


def test_right_on_a_missed_question_opens_the_menu_on_the_guess(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, _ = camera_box(cfg, clock, StubTracker(Track(3, "coppe_3")))
    box.handle(play("W", "spade_1"))
    box.gesture("right", "press")  # another card
    assert isinstance(box.menu, PlayedCardMenu) and box.menu.code == "coppe_3"
    box.gesture("right", "press")  # the rank after coppe_3
    box.gesture("ok", "press")
    assert recorded_plays(box)[0] == ("N", "coppe_4")


def test_plays_in_turn_and_unsure_plays_go_as_in_watch(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("N", "coppe_3"))
    assert recorded_plays(box) == [("N", "coppe_3")]
    unsure = {**play("W", "spade_1"), "confidence": 0.4, "alternatives": ["spade_2"]}
    box.handle(unsure)
    box.handle(play("S", "denari_5"))  # queues behind the question
    assert display.last == ConfirmScreen("W", "spade_1")
    box.gesture("right", "press")
    box.gesture("ok", "press")
    assert recorded_plays(box) == [("N", "coppe_3"), ("W", "spade_2"), ("S", "denari_5")]


def test_a_rejected_deal_keeps_the_open_question(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, _ = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("W", "spade_1"))
    box.handle(DEAL)  # rejected: deal 1 is not finished
    assert isinstance(box.menu, PlayedCardMenu) and box.pending is not None
    assert box.arbiter is not None and box.arbiter.question is not None


def test_a_sure_card_that_would_break_a_rule_is_asked_naming_the_rule(cfg: BoxConfig, clock: FakeClock) -> None:
    """W's card read surely as N's spade_1 again (a duplicate): the question says which rule
    the read would break, so the operator knows why a sure card is asked about; the next
    candidate keeps it."""
    box, _, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("N", "spade_1"))
    box.handle({**play("W", "spade_1"), "alternatives": ["spade_7"]})
    assert box.pending is not None and box.pending.get("violation") == "duplicate_card"
    assert display.last == ConfirmScreen("W", "spade_1", violation="duplicate_card")
    box.gesture("right", "press")  # the next candidate
    assert display.last == ConfirmScreen("W", "spade_7", violation="duplicate_card", more=True)
    box.gesture("ok", "press")
    assert recorded_plays(box) == [("N", "spade_1"), ("W", "spade_7")]


def test_a_correction_is_asked_naming_the_card_it_replaces(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("N", "coppe_8"))
    # the tracker: N's card now reads surely as coppe_9 (as it sends a correction)
    box.handle({**play("N", "coppe_9"), "correction": "coppe_8", "uncertain": True, "alternatives": ["coppe_8"]})
    assert display.last == ConfirmScreen("N", "coppe_9", instead_of="coppe_8")
    box.gesture("ok", "press")
    assert recorded_plays(box)[-1] == ("N", "coppe_9")
