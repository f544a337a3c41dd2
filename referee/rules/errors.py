"""Errors the rules core raises for bad input; all are :class:`~referee.errors.RefereeError`.

The :class:`~referee.rules.referee.Referee` leaves its state untouched when it raises one, so a
caller (``referee replay``, the box) can report the line and go on.
"""

from __future__ import annotations

from referee.errors import ConfigError, RefereeError


class EventError(RefereeError, ValueError):
    """A malformed event: missing or wrong-typed key, unknown event or seat (message names it)."""


class PhaseError(RefereeError, ValueError):
    """A well-formed event that is not allowed now (e.g. a play before the contract)."""


class OptionError(ConfigError):
    """An unknown game option or a bad value for one (message names the key)."""


class UnknownGameError(EventError):
    """A ``deal`` event naming a game that is not registered."""
