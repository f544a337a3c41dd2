"""The simulated person at the box: answers the camera's questions by looking at the table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.table.answer import Answer
from referee.table.question import Question, QuestionKind

if TYPE_CHECKING:
    from referee.vision.simulator.stages import RecordingReferee

Event = dict[str, Any]


class SimOperator:
    """The person at the box: answers the camera's confirm requests by looking at the table.

    The answer is the card that seat really laid down and the referee has not got yet: the
    one lying there now for "is it this card?" (an older one the referee lost to a misread is
    gone from the table), the oldest for "did this seat play?" (a card gathered unseen); a
    request about a seat that has nothing new on the table is refused (no play).
    """

    def __init__(self, plays: Sequence[Any], referee: RecordingReferee) -> None:
        self.plays = list(plays)  # truth plays (seat, card, t)
        self.referee = referee
        self.pending: list[Answer] = []
        self.asked = 0
        self.refused = 0  # asked about a seat that had laid nothing new: a false alarm

    def ask(self, question: Question, t: float) -> None:
        self.asked += 1
        # A multiset: binocolo's deck has two of every card, so one seat may lay the same code twice.
        standing = standing_plays(self.referee.accepted)
        if question.kind is QuestionKind.PREMISE:  # "was that earlier card really X?": the card that seat laid there
            seat, k = question.seat, question.index or 0
            nth = sum(1 for s, _ in standing[:k] if s == seat)
            laid = [p for p in self.plays if p.seat == seat]
            self.pending.append(Answer.named(laid[nth].card) if nth < len(laid) else Answer.no())
            return
        got = Counter(standing)
        waiting = []
        for p in self.plays:
            if p.seat != question.seat or p.t > t + 1e-6:
                continue
            if got[(p.seat, p.card)] > 0:
                got[(p.seat, p.card)] -= 1
            else:
                waiting.append(p)
        if waiting:
            answer = waiting[0] if question.kind is QuestionKind.MISSED else waiting[-1]
            self.pending.append(Answer.named(answer.card))
        else:
            self.refused += 1
            self.pending.append(Answer.no())

    def answers(self) -> list[Event]:
        """The answers given since the last call, as the ``confirm`` events the live loop reads."""
        out, self.pending = self.pending, []
        return [a.to_event() for a in out]


def standing_plays(events: Sequence[Event]) -> list[tuple[str, str]]:
    """(seat, card) of the plays in ``events`` that were not taken back by a later undo."""
    plays: list[tuple[str, str]] = []
    for e in events:
        if e.get("event") == "play":
            plays.append((str(e.get("seat")), str(e.get("card"))))
        elif e.get("event") == "undo" and plays:
            plays.pop()
    return plays


