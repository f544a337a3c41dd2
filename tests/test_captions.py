"""The annotated video's caption line keeps a trick's winner readable."""

from __future__ import annotations

from referee.captions import HOLD_S, CaptionBoard

TRICK = {"call": "trick", "number": 3, "winner": "N", "points": 11}
TURN_N = {"call": "turn", "seat": "N"}
TURN_E = {"call": "turn", "seat": "E"}


def test_the_trick_winner_stays_on_when_the_next_turn_comes_in_the_same_frame() -> None:
    board = CaptionBoard()
    board.add(TRICK, 10.0)
    board.add(TURN_N, 10.0)
    assert board.text(10.0) == "trick 3: N takes 11  |  N to play"
    assert board.text(10.0 + HOLD_S - 0.1) == "trick 3: N takes 11  |  N to play"
    board.add(TURN_E, 11.0)  # N led within the hold: the trick is still shown first
    assert board.text(11.0) == "trick 3: N takes 11  |  E to play"
    assert board.text(10.0 + HOLD_S) == "E to play"  # then it goes off


def test_a_held_caption_alone_is_shown_once_and_stays_until_replaced() -> None:
    board = CaptionBoard()
    board.add(TRICK, 5.0)
    assert board.text(5.0) == "trick 3: N takes 11"
    assert board.text(60.0) == "trick 3: N takes 11"  # nothing newer: it stays


def test_a_turn_replaces_a_turn_and_calls_without_a_caption_change_nothing() -> None:
    board = CaptionBoard()
    board.add(TURN_N, 1.0)
    board.add({"call": "confirm", "seat": "E"}, 1.5)
    assert board.text(1.5) == "N to play"
    board.add(TURN_E, 2.0)
    assert board.text(2.0) == "E to play"
    board.show("CONFIRM? E coppe_3", 2.5)
    assert board.text(2.5) == "CONFIRM? E coppe_3"
