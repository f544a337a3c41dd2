"""One table session: events, camera plays, questions and answers, and the table's state."""

from __future__ import annotations

import json

from tracker_doubles import StubTracker

from referee.rules import Referee
from referee.rules.playout import random_deal_events
from referee.table.answer import Answer
from referee.table.proposal import ProposedPlay
from referee.table.question import QuestionKind
from referee.table.refused import Refused
from referee.table.session import TableSession

DEAL = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"}


def session_dealt() -> tuple[TableSession, StubTracker]:
    tracker = StubTracker()
    session = TableSession(tracker)
    assert session.submit(DEAL) == [{"call": "turn", "seat": "N", "t": 0.0}]
    return session, tracker


def test_sure_camera_plays_reach_the_rules_core_and_the_state_shows_the_trick() -> None:
    session, _ = session_dealt()
    told = session.camera([ProposedPlay("N", "spade_3", 0.97)], 1.0)
    assert told.calls == ({"call": "turn", "seat": "S", "t": 1.0},) and told.question is None
    state = session.state()
    assert (state.game, state.turn, state.trump_card, state.trump) == ("briscola-2", "S", "coppe_1", "coppe")
    assert state.trick is not None and state.trick.plays == (("N", "spade_3"),)
    session.camera([ProposedPlay("S", "spade_5", 0.97)], 2.0)
    state = session.state()
    assert state.trick is None and state.tricks_done == 1
    assert state.last_trick is not None and state.last_trick.winner == "N"  # the 3 beats the 5
    assert state.points == {"N": 10, "S": 0} and state.turn == "N"
    assert json.loads(json.dumps(state.to_dict()))["last_trick"]["plays"] == [["N", "spade_3"], ["S", "spade_5"]]


def test_an_unsure_play_is_a_question_only_its_own_id_answers() -> None:
    session, tracker = session_dealt()
    told = session.camera([ProposedPlay("N", "coppe_3", 0.5, track=4, alternatives=("coppe_2",))], 1.0)
    question = told.question
    assert question is not None and question.kind is QuestionKind.UNSURE and question.offered == ("coppe_3", "coppe_2")
    assert session.state().question == question and session.state().trick is None
    late = session.answer(question.id + 1, Answer.yes())  # another phone's answer to an older question
    assert isinstance(late, Refused) and str(question.id + 1) in late.detail
    assert session.referee.deal is not None and session.referee.deal.trick is not None
    assert session.referee.deal.trick.plays == []  # nothing recorded
    answered = session.answer(question.id, Answer.named("coppe_2"))
    assert not isinstance(answered, Refused) and {"call": "turn", "seat": "S", "t": 1.0} in answered.calls
    assert tracker.settled == [(4, "coppe_2", "N")]  # the tracker remembers what the card was
    assert session.question is None and session.state().trick is not None
    again = session.answer(question.id, Answer.yes())  # the same answer twice: recorded once
    assert isinstance(again, Refused)
    assert [(s, c.code) for s, c in session.referee.deal.trick.plays] == [("N", "coppe_2")]


def test_a_play_from_the_wrong_seat_first_asks_whether_the_seat_on_turn_played() -> None:
    session, _ = session_dealt()
    told = session.camera([ProposedPlay("S", "spade_5", 0.97)], 1.0)
    assert told.question is not None and told.question.kind is QuestionKind.MISSED and told.question.seat == "N"
    answered = session.answer(told.question.id, Answer.no())
    assert not isinstance(answered, Refused)
    assert [(c["seat"], c["rule"]) for c in answered.calls if c["call"] == "violation"] == [("S", "out_of_turn")]


def test_an_event_the_rules_refuse_is_refused_naming_the_key_and_records_nothing() -> None:
    session, _ = session_dealt()
    refused = session.submit({"event": "play", "seat": "X", "card": "coppe_3"})
    assert isinstance(refused, Refused) and "'seat'" in refused.detail
    assert refused.to_call()["call"] == "error"
    assert session.referee.deal is not None and session.referee.deal_events == Referee.from_events([DEAL]).deal_events


def test_a_new_deal_forgets_the_last_deals_question_and_the_cameras_table() -> None:
    tracker = StubTracker()
    session = TableSession(tracker)
    for event in random_deal_events("briscola-2", seed=3, seats=["N", "S"]):
        assert isinstance(session.submit(event), list)  # a whole deal entered by hand
    assert session.deal_over() and session.state().points
    told = session.camera([ProposedPlay("N", "coppe_3", 0.5)], 90.0)
    assert told.question is None  # after the deal nothing on the table is a play
    assert isinstance(session.submit({**DEAL, "dealer": session.referee.next_dealer}), list)
    assert tracker.resets == 2 and session.state().deal == 2
    question = session.camera([ProposedPlay("S", "coppe_3", 0.5)], 91.0).question
    assert question is not None
    session.referee.deal.phase = "over"  # type: ignore[union-attr]
    session.camera([], 92.0)  # the arbiter drops the question of a deal that is over
    assert session.question is None and isinstance(session.answer(question.id, Answer.yes()), Refused)


def test_a_table_without_a_camera_takes_events_and_has_no_questions() -> None:
    session = TableSession()
    assert isinstance(session.submit(DEAL), list)
    assert session.submit({"event": "play", "seat": "N", "card": "spade_3"}) == [{"call": "turn", "seat": "S", "t": 0.0}]
    assert isinstance(session.answer(None, Answer.yes()), Refused) and session.state().question is None


def test_the_state_of_a_table_before_any_deal_is_empty() -> None:
    state = TableSession().state()
    assert state.game is None and state.turn is None and state.to_dict()["seats"] == []


def test_a_deal_refused_mid_deal_leaves_the_cameras_table_and_the_question_as_they_were() -> None:
    session, tracker = session_dealt()
    question = session.camera([ProposedPlay("N", "coppe_3", 0.5)], 1.0).question
    assert question is not None
    resets = tracker.resets
    refused = session.submit({**DEAL, "dealer": "N"})  # a deal is in progress: the rules core refuses it
    assert isinstance(refused, Refused) and "deal" in refused.detail
    assert tracker.resets == resets and session.question == question
    assert not isinstance(session.answer(question.id, Answer.yes()), Refused)
