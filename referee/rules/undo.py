"""Undo and rebuild: what an ``undo`` retracts, and what the table is told after a rebuild.

The engine keeps each deal's accepted events (its deal event first) and the match as it was
when the deal began (:class:`DealLog`).  An ``undo`` retracts the last play or declaration
(:data:`UNDOABLE`) by replaying the events without it from that snapshot; state is cheap to
rebuild, so no play needs its own inverse.  Undo crosses deal boundaries: right after a deal
ended, even once the next ``deal`` event came, it retracts the last play of the ended deal
(the later deals' events are replayed too, and dropped where the retracted play had made
them valid).  The last :data:`UNDO_DEALS` ended deals are kept.

After a rebuild (undo, or a declaration voided by a later play) the table is told of every
violation that no longer stands (``withdrawn``) and of every one that stands again (its
``violation`` call, word for word), so that what was announced minus what was withdrawn is
always ``deal.violations`` (:func:`restated`).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from referee.rules.calls import Call, UndoCall, ViolationCall, WithdrawnCall
from referee.rules.events import DeclareEvent, Event, PlayEvent
from referee.rules.game import Game
from referee.rules.state import DealState, MatchState

#: what ``undo`` retracts: plays, and declarations/melds (an operator's wrong entry)
UNDOABLE = (PlayEvent, DeclareEvent)
#: ended deals kept for an undo that crosses deal boundaries (bounded: long replays)
UNDO_DEALS = 16
#: (match, next dealer) as they were when a deal began
Snapshot = tuple[MatchState | None, str | None]


@dataclass(slots=True)
class DealLog:
    """One deal as the engine keeps it for undo."""

    game: Game
    snapshot: Snapshot  #: the match and next dealer when the deal began
    events: list[Event]  #: its accepted events, its deal event first
    deal: DealState  #: its state (as it ended, for a deal before the current one)


@dataclass(frozen=True, slots=True)
class Retraction:
    """What an undo takes back: ``undone``, from the deal of ``log`` (``logs[index]``);
    ``replay`` is that deal's other events and the later deals' events, to apply from
    ``log.snapshot`` (declarations voided by a play come back as declared: the replay voids
    again those that the remaining plays still contradict)."""

    index: int
    log: DealLog
    undone: Event
    replay: list[Event]


def retraction(logs: Sequence[DealLog]) -> Retraction | None:
    """The last undoable event of ``logs`` (oldest deal first), or ``None``."""
    for k in range(len(logs) - 1, -1, -1):
        events = logs[k].events
        last = next(
            (i for i in range(len(events) - 1, 0, -1) if isinstance(events[i], UNDOABLE)),
            None,
        )
        if last is not None:
            break
    else:
        return None
    later = [ev for log in logs[k + 1 :] for ev in log.events]
    replay = [unvoided(ev) for ev in events[:last] + events[last + 1 :] + later]
    return Retraction(k, logs[k], events[last], replay)


def undo_call(undone: Event) -> UndoCall:
    """The ``undo`` call for a retracted play or declaration."""
    if isinstance(undone, PlayEvent):
        return UndoCall(undone.seat, undone.card)
    assert isinstance(undone, DeclareEvent)
    return UndoCall(undone.seat, cards=undone.cards)


def unvoided(ev: Event) -> Event:
    """A declaration as it was declared (without the engine's ``void`` mark)."""
    if isinstance(ev, DeclareEvent) and ev.raw.get("void") is True:
        return DeclareEvent(ev.seat, ev.cards, {k: v for k, v in ev.raw.items() if k != "void"})
    return ev


def copy_match(match: MatchState) -> MatchState:
    """A copy for undo snapshots; the game's ``data`` is copied deeply."""
    return MatchState(
        match.game,
        match.seats,
        match.options,
        dict(match.score),
        match.deals,
        match.outcome,
        copy.deepcopy(match.data),
    )


def restated(
    before: DealState, after: DealState, replayed: list[Call], reason: str, why: str
) -> list[Call]:
    """``withdrawn`` for each violation of ``before`` that ``after`` no longer has; the
    (replayed) ``violation`` call again for each one ``after`` has and ``before`` had not."""
    now = Counter(after.violations)
    gone = Counter(before.violations) - now
    back = now - Counter(before.violations)
    calls: list[Call] = []
    for seat, rule, trick in before.violations:
        if gone[seat, rule, trick] > 0:
            gone[seat, rule, trick] -= 1
            detail = f"{seat}'s {rule} in trick {trick} no longer stands: {why}"
            calls.append(WithdrawnCall(seat, rule, trick, detail, reason))
    again: list[Call] = []
    for call in reversed(replayed):
        if isinstance(call, ViolationCall) and back[call.seat, call.rule, call.trick] > 0:
            back[call.seat, call.rule, call.trick] -= 1
            again.append(call)
    return calls + again[::-1]
