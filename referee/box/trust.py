"""The camera's earned trust survives a restart: it is derived again from the match record.

Where the config opts in (``thresholds.trust_after_tricks = N``, default 0: never),
:class:`~referee.table.arbiter.PlayArbiter` calls an out-of-turn play without asking only
after N whole tricks in a row (no card the camera missed and the operator had to name). A box
restarted mid-deal (power cut, ``kill -9``) built a fresh arbiter and asked again for N
tricks. The record already holds what that count is made of, committed atomically with each
event: the events with their calls (``trick`` ends a trick, ``deal`` starts the count again),
and the plays the operator named after a "did <seat> play?" question, which the box records
with ``"missed": true``. Replaying them through the
arbiter's own :meth:`~referee.table.arbiter.PlayArbiter.note` gives it the same state as an
uninterrupted run, so the decision rule stays written once, in the arbiter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.table.arbiter import PlayArbiter

#: the recorded play's mark: the operator named this card after the camera missed it
MISSED_KEY = "missed"


def named_after_missed(event: Mapping[str, Any]) -> bool:
    return event.get("event") == "play" and event.get(MISSED_KEY) is True


def resume_trust(
    arbiter: PlayArbiter, steps: Iterable[tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]]
) -> None:
    """Note the recorded ``(event, calls)`` steps of the current match, in order, as the live
    box did (rejected events, recorded with an ``error`` call, were never noted)."""
    arbiter.forget_trust()  # a fresh arbiter's record: the match record decides
    for event, calls in steps:
        if any(c.get("call") == "error" for c in calls):
            continue
        # A card named after "did <seat> play?": what PlayArbiter.answer notes live.
        arbiter.note(event, calls, named_missed=named_after_missed(event))
