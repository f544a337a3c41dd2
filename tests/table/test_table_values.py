"""The table layer's values: proposals, questions and answers, and their JSON Lines forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.table.answer import Answer, AnswerError
from referee.table.proposal import ProposalError, ProposedPlay
from referee.table.question import Question, QuestionKind
from referee.table.refused import Refused

CARDS = st.sampled_from(["coppe_1", "spade_7", "denari_10", "bastoni_3", "AS", "10H", "QC"])


@given(seat=st.sampled_from(["N", "E", "S", "W"]), card=CARDS, confidence=st.one_of(st.none(), st.floats(0, 1)),
       t=st.floats(0, 1e4), track=st.one_of(st.none(), st.integers(0, 10_000)),
       alternatives=st.lists(CARDS, max_size=3).map(tuple), uncertain=st.booleans(),
       correction=st.one_of(st.none(), CARDS))
def test_a_proposed_play_survives_its_json_lines_form(
    seat: str, card: str, confidence: float | None, t: float, track: int | None,
    alternatives: tuple[str, ...], uncertain: bool, correction: str | None,
) -> None:
    play = ProposedPlay(seat, card, confidence, t, track, alternatives, uncertain, correction)
    event = play.to_event()
    assert event["event"] == "play" and ProposedPlay.from_event(event) == play


def test_a_camera_play_event_is_what_referee_replay_reads() -> None:
    event = ProposedPlay("N", "coppe_3", 0.97, t=1.2, track=4, alternatives=("coppe_2",)).to_event()
    assert event == {"event": "play", "seat": "N", "card": "coppe_3", "confidence": 0.97, "t": 1.2, "track": 4,
                     "alternatives": ["coppe_2"]}


@pytest.mark.parametrize(("event", "key"), [
    ({"event": "play", "card": "coppe_3"}, "seat"),
    ({"event": "play", "seat": "N", "card": "coppe_3", "confidence": "high"}, "confidence"),
    ({"event": "play", "seat": "N", "card": "coppe_3", "track": 1.5}, "track"),
    ({"event": "play", "seat": "N", "card": "coppe_3", "alternatives": "coppe_2"}, "alternatives"),
    ({"event": "play", "seat": "N", "card": "coppe_3", "correction": 5}, "correction"),
])
def test_a_bad_camera_play_is_refused_naming_the_key(event: dict[str, object], key: str) -> None:
    with pytest.raises(ProposalError, match=f"'{key}'"):
        ProposedPlay.from_event(event)


@pytest.mark.parametrize(("call", "kind"), [
    ({"call": "confirm", "seat": "N", "card": "coppe_3", "confidence": 0.5, "alternatives": ["coppe_2"], "t": 1.0},
     QuestionKind.UNSURE),
    ({"call": "confirm", "seat": "N", "card": None, "confidence": 0.0, "alternatives": [], "t": 2.0, "missed": True},
     QuestionKind.MISSED),
    ({"call": "confirm", "seat": "N", "card": "coppe_6", "confidence": 0.96, "alternatives": ["coppe_5"], "t": 3.0,
      "correction": "coppe_5"}, QuestionKind.CORRECTION),
    ({"call": "confirm", "seat": "E", "card": "9S", "confidence": 0.87, "alternatives": [], "t": 4.0,
      "violation": "revoke"}, QuestionKind.VIOLATION),
    ({"call": "confirm", "seat": "N", "card": "AC", "confidence": 0.95, "alternatives": ["AS"], "t": 5.0,
      "correction": "AS", "violation": "revoke", "premise": True, "index": 2}, QuestionKind.PREMISE),
])
def test_each_kind_of_question_is_the_confirm_call_it_came_from(call: dict[str, object], kind: QuestionKind) -> None:
    question = Question.from_call(call, id=7)
    assert question.kind is kind and question.id == 7
    assert question.to_call() == call  # key for key: referee watch prints it unchanged


def test_a_question_offers_the_cameras_card_first_then_its_other_guesses_once() -> None:
    question = Question(1, QuestionKind.UNSURE, "N", "coppe_3", 0.5, ("coppe_2", "coppe_3", "coppe_1"))
    assert question.offered == ("coppe_3", "coppe_2", "coppe_1")
    assert Question(2, QuestionKind.MISSED, "N", None).offered == ()


def test_answers_are_the_confirm_events_of_the_operator() -> None:
    assert Answer.yes().to_event() == {"event": "confirm"}
    assert Answer.no().to_event() == {"event": "confirm", "accept": False}
    assert Answer.named("coppe_2").to_event() == {"event": "confirm", "card": "coppe_2"}
    for answer in (Answer.yes(), Answer.no(), Answer.named("coppe_2"), Answer(True, "AS", "W")):
        assert Answer.from_event(answer.to_event()) == answer
    with pytest.raises(AnswerError, match="'accept'"):
        Answer.from_event({"event": "confirm", "accept": "no"})
    with pytest.raises(AnswerError, match="'card'"):
        Answer.from_event({"event": "confirm", "card": 3})


def test_a_refusal_is_the_error_line_of_referee_watch() -> None:
    assert Refused("key 'seat': 'X' is not one of the seats", 1.234).to_call() == {
        "call": "error", "detail": "key 'seat': 'X' is not one of the seats", "t": 1.23}
    assert Refused("confirm: no play is waiting for confirmation").to_call() == {
        "call": "error", "detail": "confirm: no play is waiting for confirmation"}
