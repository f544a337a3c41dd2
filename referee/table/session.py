"""One card table: the rules core, the arbiter that decides which camera plays become
questions, and what follows each event the rules core took.  ``referee watch`` and the demo
(:class:`~referee.vision.watch.WatchLoop`) and the box (:class:`~referee.box.app.Box`) drive
one; a phone console would be one more front end of the same calls::

    session = TableSession(tracker)                     # tracker: the camera's play tracker
    session.submit({"event": "deal", "game": "briscola-2", "seats": ["N", "S"], ...})
    told = session.camera(tracker_plays, t=12.3)        # Told(calls, question)
    if told.question is not None:                       # "is it coppe_3?"
        session.answer(told.question.id, Answer.named("coppe_2"))
    session.state()                                     # TableState: score, turn, trick...

Events and calls stay the JSON Lines contract of ``referee replay``; the plays the camera
proposes (:class:`~referee.table.proposal.ProposedPlay`), the questions
(:class:`~referee.table.question.Question`) and the answers
(:class:`~referee.table.answer.Answer`) are typed values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import RefereeError
from referee.rules import Referee
from referee.table.answer import Answer
from referee.table.arbiter import NEVER_TRUSTED, PlayArbiter
from referee.table.camera import CameraTracker
from referee.table.proposal import ProposedPlay
from referee.table.question import Question
from referee.table.refused import Refused
from referee.table.state import TableState

Call = dict[str, Any]
#: told of every event the rules core took (or refused) and the calls it made: ``(event, calls)``
Listener = Callable[[Mapping[str, Any], list[Call]], None]


@dataclass(frozen=True)
class Told:
    """What the table is told after an input: the calls made, in order (the rules core's, and
    ``error`` calls for answers the arbiter could not use), then the question now asked, if a
    new one is."""

    calls: tuple[Call, ...] = ()
    question: Question | None = None

    def lines(self) -> list[Call]:
        """As ``referee watch`` prints them: the calls, then the question's ``confirm`` call."""
        return [*self.calls, *([self.question.to_call()] if self.question is not None else [])]


class TableSession:
    """See the module docstring.

    ``tracker``: the camera's play tracker (the arbiter asks it about missed cards and tells
    it what the operator named); ``None``: a table without a camera (plays come as events).
    ``confirm_below``: a camera play less sure than this is asked about; ``trust_after``:
    whole tricks seen in a row after which an out-of-turn play is called without asking
    (:data:`~referee.table.arbiter.NEVER_TRUSTED`: always ask).
    ``apply``: a front end that keeps its own record (the box's SQLite store) applies each
    event itself (to the rules core, then its record) and tells :meth:`noted`; by default the
    session applies events to :attr:`referee`, stamping calls with the frame time.
    """

    def __init__(
        self,
        tracker: CameraTracker | None = None,
        *,
        referee: Referee | None = None,
        confirm_below: float = 0.8,
        trust_after: int = NEVER_TRUSTED,
        apply: Callable[[Call], list[Call]] | None = None,
    ) -> None:
        self.referee = referee if referee is not None else Referee()
        self.tracker = tracker
        self._apply_outside = apply
        self.arbiter: PlayArbiter | None = None
        if tracker is not None:
            self.arbiter = PlayArbiter(tracker, lambda: self.referee, self._apply, confirm_below, trust_after)
        self.t = 0.0
        self.listeners: list[Listener] = []
        self._question: Question | None = None
        self._asked = 0
        self._contract: Mapping[str, Any] | None = None

    # -- inputs --------------------------------------------------------------------------
    def submit(self, event: Mapping[str, Any]) -> list[Call] | Refused:
        """An event from the operator or a log (a deal, a contract, a declaration, an undo,
        a play entered by hand), in the event-log schema ``referee replay`` reads: the calls
        it caused, or why it was refused (nothing recorded, nothing forgotten).  A deal the
        rules core takes clears the camera's table: nothing lying there is a play of the new
        deal, no question about the last deal stays open."""
        done = self.apply(event)
        if event.get("event") == "deal" and not isinstance(done, Refused):
            if self.tracker is not None:
                self.tracker.reset()
            self.clear()
        return done

    def apply(self, event: Mapping[str, Any]) -> list[Call] | Refused:
        """:meth:`submit` without clearing the camera's table (a deal the camera itself saw
        dealt: the cards it tracks meanwhile are the deal's)."""
        done = self._apply(dict(event))
        if len(done) == 1 and done[0].get("call") == "error":  # the rules core makes no error calls
            return Refused(str(done[0].get("detail")), self.t)
        return done

    def camera(self, plays: Sequence[ProposedPlay], t: float) -> Told:
        """The camera's new plays at frame time ``t`` (none: a frame; a trick gathered short
        with nothing played since is asked about)."""
        self.t = t
        if self.arbiter is None:
            raise RefereeError("camera plays need a table session with a tracker")
        return self._told(self.arbiter.camera(plays, t))

    def answer(self, question_id: int | None, answer: Answer) -> Told | Refused:
        """The operator's answer to question ``question_id`` (``None``: whichever is open, as
        ``referee watch``'s operator lines say it).  An answer to a question no longer open
        (already answered, or dropped by a new deal) is refused."""
        if self.arbiter is None:
            return Refused("confirm: no camera, so no question is open", self.t)
        open_now = self.question
        if question_id is not None and (open_now is None or open_now.id != question_id):
            return Refused(f"confirm: question {question_id} is not open", self.t)
        return self._told(self.arbiter.answer(answer))

    def tick(self, t: float) -> None:
        """The frame time, for events entered between frames (the box's buttons)."""
        self.t = t
        if self.arbiter is not None:
            self.arbiter.t = t

    # -- outputs -------------------------------------------------------------------------
    @property
    def question(self) -> Question | None:
        """The question waiting for the operator, if any."""
        if self.arbiter is None or self.arbiter.question is None:
            self._question = None
        return self._question

    def state(self) -> TableState:
        """The table now (see :class:`~referee.table.state.TableState`)."""
        return TableState.of(self.referee, self._contract, self.question)

    def deal_over(self) -> bool:
        deal = self.referee.deal
        return deal is not None and deal.phase == "over"

    # -- applying ------------------------------------------------------------------------
    def restore(self, referee: Referee) -> None:
        """Go on from ``referee`` (a record replayed after a restart, an undo into the last match)."""
        self.referee = referee

    def noted(self, event: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]) -> None:
        """An event the rules core took, applied by the front end (``apply``), with its calls."""
        if event.get("event") == "deal":
            self._contract = None
        for call in calls:
            if call.get("call") == "contract":
                self._contract = dict(call)
        if self.arbiter is not None:
            self.arbiter.note(event, calls)

    def _apply(self, event: Call) -> list[Call]:
        """Decide ``event`` (the arbiter's way to the rules core too): its calls, or one
        ``error`` call saying why it was refused."""
        if self._apply_outside is not None:
            return self._apply_outside(event)
        try:
            calls = [c.to_dict() for c in self.referee.apply(event)]
        except RefereeError as exc:
            return [Refused(str(exc), self.t).to_call()]
        out = [{**c, "t": round(self.t, 2)} for c in calls]
        self.noted(event, out)
        for listener in self.listeners:
            listener(event, out)
        return out

    def clear(self) -> None:
        """Forget the camera plays waiting and the open question (a new deal)."""
        if self.arbiter is not None:
            self.arbiter.clear()
        self._question = None

    def _told(self, out: list[Call]) -> Told:
        calls = [c for c in out if c.get("call") != "confirm"]
        asked = [c for c in out if c.get("call") == "confirm"]
        question = None
        if asked:
            self._asked += 1
            question = self._question = Question.from_call(asked[-1], self._asked)
        return Told(tuple(calls), question)
