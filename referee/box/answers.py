"""The operator's "no" to a missed-card question survives a restart.

A trick gathered with fewer cards than seats makes the box ask "did <seat> play?" (the
camera may have missed that card). "Yes" names a card: it is a play, recorded as an event
like any other. "No" changes nothing the rules core knows, so no event records it, and a box
restarted after a crash asked about the same short trick again. The answer is therefore kept
in the match record's ``answers`` table (:meth:`~referee.box.state.MatchStore.append_answer`)
with what it was about: the deal, the trick and the trick's plays when it was given. On
resume, an answer whose deal, trick and plays are still the referee's (nothing was played
since) tells the fresh arbiter that this trick's short gathering was already asked about, as
the arbiter that asked it knew.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.rules import Referee
from referee.table.arbiter import PlayArbiter

#: the ``answer`` value of a recorded "no, <seat> did not play"
NO_PLAY = "no_play"


def no_play_answer(referee: Referee, seat: str) -> dict[str, Any] | None:
    """The record of "``seat`` did not play", given now; ``None`` outside a deal in play."""
    deal = referee.deal
    if deal is None:
        return None
    plays = [[s, card.code] for s, card in deal.trick.plays] if deal.trick is not None else []
    return {"answer": NO_PLAY, "seat": seat, "deal": deal.number, "trick": deal.trick_number, "plays": plays}


def restore_answers(arbiter: PlayArbiter, referee: Referee, answers: Iterable[Mapping[str, Any]]) -> None:
    """Give a fresh ``arbiter`` what the recorded ``answers`` of this match told the old one:
    the current trick's short gathering was answered "no" (nothing played since)."""
    deal = referee.deal
    if deal is None:
        return
    for answer in answers:
        if answer.get("answer") != NO_PLAY:
            continue
        now = no_play_answer(referee, str(answer.get("seat")))
        if now is not None and all(answer.get(k) == now[k] for k in ("deal", "trick", "plays")):
            arbiter.asked_gathered = deal.trick_number
