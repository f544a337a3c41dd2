"""The screen of the arbiter's premise question ("was that earlier card really X?")."""

from __future__ import annotations

from referee.box.screens import ConfirmScreen
from referee.table.question import Question, QuestionKind

PREMISE = Question(7, QuestionKind.PREMISE, "N", "AC", correction="AS", violation="revoke", index=4)


def test_a_premise_question_asks_about_the_earlier_card_not_the_rule() -> None:
    # N's lead was read AS; a revoke would rest on it: the table checks N's card, so the screen
    # says "N: AC instead of AS?", not "revoke?" under a card nobody is about to play
    assert ConfirmScreen.for_question(PREMISE, "AC") == ConfirmScreen("N", "AC", instead_of="AS")


def test_a_sure_read_that_would_break_a_rule_still_names_the_rule() -> None:
    question = Question(8, QuestionKind.VIOLATION, "N", "AC", violation="revoke")
    assert ConfirmScreen.for_question(question, "AC") == ConfirmScreen("N", "AC", violation="revoke")


def test_the_recorded_card_offered_back_reads_as_keeping_it() -> None:
    # cycling a premise question's cards comes back to the card already recorded (AS): the
    # screen says it is the card as recorded (OK keeps it), not "AS instead of AS?"
    screen = ConfirmScreen.for_question(PREMISE, "AS")
    assert screen.reason("it") == "come registrata" and screen.reason("en") == "as recorded"
    assert ConfirmScreen.for_question(PREMISE, "AC").reason("it") == "al posto di A♠?"
