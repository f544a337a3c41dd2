"""Pure rules core: events in, calls out (no I/O).  See ``docs/design/rules-core.md``.

Example::

    from referee.rules import Referee
    ref = Referee()
    calls = ref.apply({"event": "deal", "game": "briscola-2", "seats": ["N", "S"],
                       "dealer": "S", "trump_card": "coppe_1"})
    [c.to_dict() for c in calls]  # [{'call': 'turn', 'seat': 'N'}]
"""

from referee.rules.calls import Call
from referee.rules.errors import EventError, OptionError, PhaseError, UnknownGameError
from referee.rules.events import Event, parse_event
from referee.rules.game import GAME_CLASSES, Game, Table, available_games, get_game
from referee.rules.options import GameOptions, parse_options
from referee.rules.referee import Referee
from referee.rules.state import (
    DealData,
    DealResult,
    DealState,
    MatchData,
    MatchOutcome,
    MatchState,
)
from referee.rules.tricks import Obligation, Trick

__all__ = [
    "GAME_CLASSES",
    "Call",
    "DealData",
    "DealResult",
    "DealState",
    "Event",
    "EventError",
    "Game",
    "GameOptions",
    "MatchData",
    "MatchOutcome",
    "MatchState",
    "Obligation",
    "OptionError",
    "PhaseError",
    "Referee",
    "Table",
    "Trick",
    "UnknownGameError",
    "available_games",
    "get_game",
    "parse_event",
    "parse_options",
]
