"""The operator can name ANY card of the deck on every question, not only the cards offered.

A question about a camera read offers the camera's card and its alternatives (a premise
question also the same rank in the other suits). A rank misread the camera does not offer
(it read spade_7, it was spade_1) could only be rejected. Now right cycles the cards offered
and, after the last one (the screen says ``▶=tutte``), opens the suit/card picker on the first:
OK there answers the question as an offered card would; backing out asks the question again
(a missed play's question keeps its meaning: backing out = the seat did not play).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tracker_doubles import StubTracker, Track

from box.helpers import BRISCOLA4_DEAL, FakeClock, RecordingSignals, Screens, camera_box, on_screen
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.deal_card_menu import PlayedCardMenu
from referee.box.i18n import tr
from referee.box.screens import ConfirmScreen, MenuScreen, render
from referee.box.state import MatchStore
from referee.table.question import Question, QuestionKind


def play(seat: str, card: str, t: float = 1.0, **extra: Any) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": t, **extra}


def unsure(seat: str, card: str, alternatives: list[str], t: float = 1.0) -> dict[str, Any]:
    return play(seat, card, t, confidence=0.4, alternatives=alternatives)


def plays(box: Box) -> list[tuple[str, str]]:
    """The referee's plays of the deal in progress, in order (taken-back plays are gone)."""
    deal = box.referee.deal
    assert deal is not None
    tricks = [*deal.tricks, *([deal.trick] if deal.trick else [])]
    return [(s, c.code) for t in tricks for s, c in t.plays]


def pick(box: Box, code: str) -> None:
    """Name ``code`` in the open card picker with the buttons an operator would press."""
    menu = box.menu
    assert isinstance(menu, PlayedCardMenu)
    if menu.at == 1 and menu.code.split("_")[0] != code.split("_")[0]:
        box.gesture("left", "hold")  # back to the suit step
    for _ in range(len(menu.suits)):
        if menu.at == 1:
            break
        if menu.suits[menu.suit] == code.split("_")[0]:
            box.gesture("ok", "press")
        else:
            box.gesture("right", "press")
    for _ in range(len(menu.ranks)):
        if menu.code == code:
            break
        box.gesture("right", "press")
    assert menu.code == code
    box.gesture("ok", "press")


def right_until_picker(box: Box) -> None:
    """Right through the cards offered until the picker opens (it must: a bounded walk)."""
    for _ in range(10):
        if box.menu is not None:
            return
        box.gesture("right", "press")
    raise AssertionError("the picker never opened")


def restarted(first: Box, tmp_path: Path) -> Box:
    """A new box on a copy of ``first``'s state directory as a kill -9 leaves it."""
    state = Path(shutil.copytree(first.store.path.parent, tmp_path / "after_crash"))
    box = Box(first.cfg, MatchStore.open(state), RecordingSignals(), Screens(), clock=first.clock)
    box.start()
    box.attach_vision(StubTracker(None))
    return box


# -- an unsure read: a rank the camera never offered ---------------------------------------------

def unsure_trick(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, RecordingSignals, Any]:
    """N leads spade_3; W's ace of spades is read unsure as spade_7 (or spade_6); S and E
    follow (queued behind the question). With the 7 N's 3 takes the trick, with the ace W."""
    box, signals, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("N", "spade_3"), source_pos=1)
    box.handle(unsure("W", "spade_7", ["spade_6"], t=2.0), source_pos=2)
    box.handle(play("S", "spade_2", t=3.0), source_pos=3)
    box.handle(play("E", "spade_4", t=4.0), source_pos=4)
    assert box.pending is not None and plays(box) == [("N", "spade_3")]
    return box, signals, display


def test_a_rank_misread_is_named_in_the_picker_and_the_trick_goes_by_it(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = unsure_trick(cfg, clock)
    assert on_screen(display) == ConfirmScreen("W", "spade_7")  # two cards offered: right = the next
    box.gesture("right", "press")
    assert on_screen(display) == ConfirmScreen("W", "spade_6", more=True)  # the last: right = the picker
    box.gesture("right", "press")
    menu = box.menu
    assert isinstance(menu, PlayedCardMenu) and menu.code == "spade_7" and menu.at == 1  # on the camera's card
    assert isinstance(on_screen(display), MenuScreen)
    pick(box, "spade_1")
    assert plays(box) == [("N", "spade_3"), ("W", "spade_1"), ("S", "spade_2"), ("E", "spade_4")]
    assert ("trick_winner", ("W",)) in signals.log  # the ace takes it (the 7 would have lost to N's 3)
    named = [e for e in box.store.events(1) if e.get("seat") == "W"]
    assert named == [{"event": "play", "seat": "W", "card": "spade_1", "confirmed": True}]
    assert box.menu is None and box.pending is None


def test_a_card_named_in_the_picker_survives_a_restart(cfg: BoxConfig, clock: FakeClock, tmp_path: Path) -> None:
    box, _, _ = unsure_trick(cfg, clock)
    right_until_picker(box)
    pick(box, "spade_1")
    again = restarted(box, tmp_path)
    trick = again.referee.last_trick
    assert trick is not None and [(s, c.code) for s, c in trick.plays] == [
        ("N", "spade_3"), ("W", "spade_1"), ("S", "spade_2"), ("E", "spade_4")]
    assert again._last_trick_winner() == "W" and again.referee.turn == "W"
    assert again.pending is None and again.menu is None


def test_backing_out_of_the_picker_asks_the_same_question_again(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = unsure_trick(cfg, clock)
    right_until_picker(box)
    box.gesture("ok", "hold")  # cancel the picker: not "W did not play"
    assert box.menu is None and box.pending is not None and box.pending["seat"] == "W"
    assert on_screen(display) == ConfirmScreen("W", "spade_7")  # from the camera's card again
    assert plays(box) == [("N", "spade_3")] and "violation" not in signals.names()
    right_until_picker(box)
    box.gesture("left", "hold")  # the picker opens on the rank: hold left = back to the suit
    assert isinstance(box.menu, PlayedCardMenu) and box.menu.at == 0
    box.gesture("left", "hold")  # and out, to the question
    assert box.menu is None and on_screen(display) == ConfirmScreen("W", "spade_7")
    box.gesture("ok", "press")  # the camera was right after all
    assert plays(box)[:2] == [("N", "spade_3"), ("W", "spade_7")]


def test_without_the_camera_an_unsure_play_from_a_log_can_be_any_card(cfg: BoxConfig, clock: FakeClock) -> None:
    """The box fed an event log (no vision): an unsure play with no alternatives opens the
    picker on the first right press, and the card named is recorded as confirmed."""
    display = Screens()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    box.start()
    box.handle(BRISCOLA4_DEAL)
    box.handle({"event": "play", "seat": "N", "card": "coppe_3", "confidence": 0.4})
    assert on_screen(display) == ConfirmScreen("N", "coppe_3", more=True)
    box.gesture("right", "press")
    assert isinstance(box.menu, PlayedCardMenu) and box.menu.code == "coppe_3"
    pick(box, "denari_3")
    assert box.store.events(1)[-1] == {"event": "play", "seat": "N", "card": "denari_3", "confirmed": True}
    assert box.referee.turn == "W" and box.pending is None


def test_a_correction_can_name_a_third_card(cfg: BoxConfig, clock: FakeClock) -> None:
    """The tracker now reads N's coppe_8 as coppe_9 and asks; it was the king (coppe_10),
    which neither read offered: the play of coppe_8 is replaced by it."""
    box, _, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("N", "coppe_8"))
    box.handle({**play("N", "coppe_9", t=2.0), "correction": "coppe_8", "uncertain": True,
                "alternatives": ["coppe_8"]})
    assert on_screen(display) == ConfirmScreen("N", "coppe_9", instead_of="coppe_8")
    right_until_picker(box)
    pick(box, "coppe_10")
    assert plays(box) == [("N", "coppe_10")] and box.referee.turn == "W"
    assert box.store.events(1)[-1] == {"event": "play", "seat": "N", "card": "coppe_10", "confirmed": True}


# -- a premise question: the earlier card a violation rests on ------------------------------------

def duplicate_premise(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, RecordingSignals, Any]:
    """N's coppe_5 read surely as coppe_3; W then lays the true coppe_3 (a duplicate read,
    asked; the operator says yes): the box asks about N's earlier card, offering the camera's
    guesses and the 3 in the other suits, never the 5."""
    box, signals, display = camera_box(cfg, clock, StubTracker(None))
    box.handle(play("N", "coppe_3"), source_pos=1)
    box.handle(play("W", "coppe_3", t=2.0), source_pos=2)
    assert box.pending is not None and box.pending.get("violation") == "duplicate_card"
    box.gesture("ok", "press")  # W did lay coppe_3
    question = box.pending
    assert question is not None and question.get("premise") and question["seat"] == "N"
    assert "coppe_5" not in box.candidates
    return box, signals, display


def test_a_premise_question_answered_with_a_card_not_offered_replaces_the_earlier_play(
        cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = duplicate_premise(cfg, clock)
    first = box.candidates[0]
    assert on_screen(display) == ConfirmScreen("N", first, instead_of="coppe_3")
    right_until_picker(box)
    assert isinstance(box.menu, PlayedCardMenu) and box.menu.code == first
    pick(box, "coppe_5")
    assert plays(box) == [("N", "coppe_5"), ("W", "coppe_3")]
    assert "violation" not in signals.names() and box.pending is None
    events = [(e["event"], e.get("seat"), e.get("card")) for e in box.store.events(1)[1:]]
    assert events == [("play", "N", "coppe_3"), ("undo", None, None), ("play", "N", "coppe_5"),
                      ("play", "W", "coppe_3")]


def test_a_premise_replaced_from_the_picker_survives_a_restart(
        cfg: BoxConfig, clock: FakeClock, tmp_path: Path) -> None:
    box, _, _ = duplicate_premise(cfg, clock)
    right_until_picker(box)
    pick(box, "coppe_5")
    again = restarted(box, tmp_path)
    assert plays(again) == [("N", "coppe_5"), ("W", "coppe_3")] and again.referee.turn == "S"
    assert not any(c["call"] == "violation" for c in again.store.calls(1))


def test_backing_out_of_a_premise_picker_keeps_the_question(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = duplicate_premise(cfg, clock)
    right_until_picker(box)
    box.gesture("ok", "hold")
    assert box.pending is not None and box.pending.get("premise") and box.menu is None
    assert on_screen(display) == ConfirmScreen("N", box.candidates[0], instead_of="coppe_3")
    box.gesture("left", "press")  # no: N's card was coppe_3, W's is a duplicate
    assert ("violation", ()) in signals.log


# -- a missed play: unchanged ---------------------------------------------------------------------

def test_backing_out_of_a_missed_plays_picker_still_means_no_play(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = camera_box(cfg, clock, StubTracker(Track(7, "coppe_3")))
    box.handle(play("W", "spade_1"))  # out of turn: did N play?
    assert on_screen(display) == ConfirmScreen("N", "coppe_3", missed=True)  # no "more": right = the picker already
    box.gesture("right", "press")
    assert isinstance(box.menu, PlayedCardMenu) and box.menu.code == "coppe_3"
    box.gesture("ok", "hold")
    assert box.menu is None and box.pending is None
    assert plays(box) == [("W", "spade_1")] and ("violation", ()) in signals.log


# -- the screen -----------------------------------------------------------------------------------

def test_the_last_card_offered_says_right_opens_every_card() -> None:
    for lang in ("it", "en"):
        offered, last = ConfirmScreen("S", "bastoni_9"), ConfirmScreen("S", "bastoni_9", more=True)
        assert render(offered, lang).tobytes() != render(last, lang).tobytes()
        assert "▶" in tr(lang, "confirm_keys") and "▶" in tr(lang, "confirm_keys_more")
    assert tr("it", "confirm_keys_more").endswith("▶=tutte") and tr("en", "confirm_keys_more").endswith("▶=all")
    assert tr("it", "confirm_keys").endswith("▶=altra")
    # a missed-play screen is drawn the same either way (its right always opens the picker)
    question = Question(3, QuestionKind.MISSED, "N", "coppe_3")
    assert ConfirmScreen.for_question(question, "coppe_3", more=True) == ConfirmScreen("N", "coppe_3", missed=True)


def test_holding_right_on_a_question_does_not_start_the_next_deal(cfg: BoxConfig, clock: FakeClock) -> None:
    # right presses page the question's cards; a press held too long must not deal anew and
    # drop the play being asked about
    box, _, display = unsure_trick(cfg, clock)
    deal = box.referee.deal
    box.gesture("right", "hold")
    assert box.menu is None and box.referee.deal is deal and box.pending is not None
    assert on_screen(display) == ConfirmScreen("W", "spade_7")
    box.gesture("ok", "press")
    assert plays(box)[:2] == [("N", "spade_3"), ("W", "spade_7")]
