"""The tournament core: pure, typed, no I/O (the service, its record and the room page are in
``referee.tournament_service``). See ``docs/design/tournament.md``."""

from referee.tournament.actions import (
    Action,
    BoxResult,
    OrganiserResult,
    Register,
    Start,
    WithdrawBoxResult,
    action_from_dict,
    action_to_dict,
)
from referee.tournament.entrants import Entrant
from referee.tournament.errors import TournamentError
from referee.tournament.formats import TABLE_SIDES, Evening, Format, Knockout
from referee.tournament.tournament import (
    Correction,
    Match,
    Result,
    Standing,
    TableAssignment,
    Tournament,
)

__all__ = [
    "TABLE_SIDES",
    "Action",
    "BoxResult",
    "Correction",
    "Entrant",
    "Evening",
    "Format",
    "Knockout",
    "Match",
    "OrganiserResult",
    "Register",
    "Result",
    "Standing",
    "Start",
    "TableAssignment",
    "Tournament",
    "TournamentError",
    "WithdrawBoxResult",
    "action_from_dict",
    "action_to_dict",
]
