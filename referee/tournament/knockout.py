"""The knock-out draw: who meets whom, byes when the count is not a power of two.

The tournament document's rule 9 says the pair that wins two games of three "goes on to the
next round or becomes champion"; with a count of pairs that is not a power of two, some pairs
must skip the first round to make the second round a power of two. They are the first pairs
of the draw order, and only round 1 has byes: round 2 then holds exactly half the bracket.
Byes meet round-1 winners in round 2 (not each other) wherever there are enough winners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.tournament.errors import TournamentError


@dataclass(frozen=True)
class Slot:
    """One side of a pairing: an entrant drawn straight into it, or the winner of a match."""

    entrant: str | None = None
    winner_of: str | None = None


@dataclass(frozen=True)
class Pairing:
    id: str  # "R2-3": round 2, third match of the round
    round: int
    slots: tuple[Slot, Slot]


def bracket_size(entrants: int) -> int:
    """The smallest power of two holding every entrant."""
    return 1 << max(entrants - 1, 0).bit_length()


def draw_knockout(order: Sequence[str]) -> list[Pairing]:
    """Every match of the knock-out for entrants in draw ``order``, round by round."""
    n = len(order)
    if n < 2:
        raise TournamentError(f"knockout: expected at least 2 entrants, got {n}")
    byes = bracket_size(n) - n
    playing = list(order[byes:])
    first = [
        Pairing(f"R1-{i + 1}", 1, (Slot(entrant=playing[2 * i]), Slot(entrant=playing[2 * i + 1])))
        for i in range(len(playing) // 2)
    ]
    bye_slots = [Slot(entrant=e) for e in order[:byes]]
    winner_slots = [Slot(winner_of=p.id) for p in first]
    entries: list[Slot] = []
    while bye_slots or winner_slots:  # alternate: a bye meets a round-1 winner where it can
        if bye_slots:
            entries.append(bye_slots.pop(0))
        if winner_slots:
            entries.append(winner_slots.pop(0))
    pairings = list(first)
    round_no = 2
    while len(entries) >= 2:
        this = [
            Pairing(f"R{round_no}-{i + 1}", round_no, (entries[2 * i], entries[2 * i + 1]))
            for i in range(len(entries) // 2)
        ]
        pairings += this
        entries = [Slot(winner_of=p.id) for p in this]
        round_no += 1
    return pairings
