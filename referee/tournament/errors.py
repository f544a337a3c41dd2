"""The tournament core's one error type."""

from __future__ import annotations

from referee.errors import RefereeError


class TournamentError(RefereeError, ValueError):
    """An action the tournament cannot take (the message names the entrant, match, table or key);
    the tournament's state is unchanged."""
