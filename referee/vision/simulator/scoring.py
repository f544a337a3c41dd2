"""A simulated deal's vision scored against the simulator's truth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.vision.simulator.result import DemoResult
    from referee.vision.simulator.stages import RecordingReferee


@dataclass(frozen=True)
class Score:
    """Vision against the truth for one deal."""

    plays: int  # true plays
    right: int  # true plays fed to the referee with the right card and seat
    misread: int  # plays fed for a seat that did play, but with another card
    phantom: int  # plays fed for a seat that had played nothing more
    tricks: int  # true tricks
    winners_right: int  # tricks whose winner the referee got right


def score(result: DemoResult) -> Score:
    """Compare the vision's play events with the truth, one to one.

    Exact (seat, card) matches first; a leftover fed play of a seat with a leftover true play
    is a misread, any other leftover is a phantom.
    """
    truth = list(result.truth_plays)
    played: list[tuple[str, str]] = []
    for event in result.events:
        if event.get("event") == "play":
            played.append((str(event["seat"]), str(event["card"])))
        elif event.get("event") == "undo" and played:
            played.pop()  # a play replaced after the operator confirmed a correction
    unmatched = list(truth)
    leftovers = []
    for play in played:
        if play in unmatched:
            unmatched.remove(play)
        else:
            leftovers.append(play)
    misread = 0
    for seat, _ in leftovers:
        same_seat = next((p for p in unmatched if p[0] == seat), None)
        if same_seat is not None:
            unmatched.remove(same_seat)
            misread += 1
    right = len(played) - len(leftovers)
    true_tricks = [(c["number"], c["winner"]) for c in result.truth_calls if c["call"] == "trick"]
    got_tricks = {(c["number"], c["winner"]) for c in result.calls if c["call"] == "trick"}
    winners = sum(1 for t in true_tricks if t in got_tricks)
    return Score(len(truth), right, misread, len(leftovers) - misread, len(true_tricks), winners)


def delays(ref: RecordingReferee, plays: Sequence[Any]) -> list[float]:
    """Seconds from each true play (card let go) to the referee getting it right."""
    waiting = list(plays)
    out = []
    for event, t in zip(ref.fed, ref.fed_at, strict=True):
        if event.get("event") != "play":
            continue
        match = next((p for p in waiting if (p.seat, p.card) == (event.get("seat"), event.get("card"))), None)
        if match is not None:
            waiting.remove(match)
            out.append(round(t - match.t, 3))
    return out


