"""Tournament formats and what a table of each game seats.

The sides of a table are the names the box's calls use for them: the team names of the box's
default teams (``N+S``, ``W+E``) for pair games, the seats for games scored per player. A box
whose config names other seats reports sides the tournament does not know, and its result is
refused naming the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.tournament.errors import TournamentError

#: game -> the sides of one table, in the order a table assignment lists its entrants
TABLE_SIDES: dict[str, tuple[str, ...]] = {
    "briscola-4": ("N+S", "W+E"),
    "belotta": ("N+S", "W+E"),
    "briscola-chiamata": ("A", "B", "C", "D", "E"),
    "binocolo": ("N", "W", "S", "E"),
}
#: game -> players in one entrant (a pair, or a player alone)
ENTRANT_PLAYERS: dict[str, int] = {
    "briscola-4": 2,
    "belotta": 2,
    "briscola-chiamata": 1,
    "binocolo": 1,
}


def _check_game(game: str) -> None:
    if game not in TABLE_SIDES:
        raise TournamentError(f"game {game!r}: expected one of {', '.join(TABLE_SIDES)}")


@dataclass(frozen=True)
class Knockout:
    """Knock-out by pairs: each match is the box's match (briscola-4: best of three, torneo 9);
    the winner goes on, the loser is out. ``tables``: how many tables the room has; a ready
    match waits for a free one."""

    tables: int
    game: str = "briscola-4"

    def __post_init__(self) -> None:
        _check_game(self.game)
        if len(TABLE_SIDES[self.game]) != 2:
            raise TournamentError(f"knockout: {self.game} is not played by two sides")
        if self.tables < 1:
            raise TournamentError(f"knockout: tables: expected at least 1, got {self.tables}")


@dataclass(frozen=True)
class Evening:
    """A cumulative evening ranking: ``rounds`` rounds, every table plays one match per round,
    each entrant adds its match score (chiamata credits, belotta or binocolo points). Round 1
    seats entrants in draw order, later rounds by the ranking so far."""

    game: str
    rounds: int
    tables: int

    def __post_init__(self) -> None:
        _check_game(self.game)
        if self.rounds < 1:
            raise TournamentError(f"evening: rounds: expected at least 1, got {self.rounds}")
        if self.tables < 1:
            raise TournamentError(f"evening: tables: expected at least 1, got {self.tables}")


Format = Knockout | Evening
