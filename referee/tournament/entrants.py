"""Who plays: a pair (briscola in four, belotta) or a single player (chiamata, binocolo)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.tournament.errors import TournamentError


@dataclass(frozen=True)
class Entrant:
    """A registered pair or player. ``id`` is the short key results and corrections name;
    ``enrollment`` is the enrolment file of the deck a pair brought (it follows the deck to
    whichever table the deck exchange sends it).

    >>> Entrant("p1", ("Rossi", "Bianchi")).name
    'Rossi/Bianchi'
    """

    id: str
    members: tuple[str, ...]
    enrollment: str | None = None

    def __post_init__(self) -> None:
        if not self.id or not all(c.isalnum() or c in "-_" for c in self.id):
            raise TournamentError(f"entrant id {self.id!r}: expected letters, digits, - or _")
        if not 1 <= len(self.members) <= 2 or not all(m.strip() for m in self.members):
            raise TournamentError(f"entrant {self.id}: expected one player or a pair of names")

    @property
    def name(self) -> str:
        return "/".join(self.members)

    @property
    def is_pair(self) -> bool:
        return len(self.members) == 2
