"""Recorded or submitted actions: a bad one is refused naming the key, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest

from referee.tournament import TournamentError, action_from_dict


@pytest.mark.parametrize(
    ("d", "message"),
    [
        ({"action": "fly"}, "'fly': expected 'register'"),
        ({"action": "register", "id": "p1", "members": "Rossi"}, "register action: members"),
        ({"action": "register", "id": "p 1", "members": ["A", "B"]}, "entrant id 'p 1'"),
        ({"action": "start", "format": "swiss", "tables": 2}, "start action: format"),
        ({"action": "start", "format": "knockout", "tables": True}, "start action: tables"),
        ({"action": "start", "format": "evening", "game": "poker", "rounds": 2, "tables": 2},
         "game 'poker'"),
        ({"action": "box_result", "table": 1, "box_match": 2, "winner": "N+S",
          "score": {"N+S": 1.5}}, "box_result action: score"),
        ({"action": "organiser_result", "match": "R1-1", "winner": "p1", "score": {},
          "who": "Mario"}, "organiser_result action: why"),
    ],
)
def test_bad_action_names_its_key(d: dict[str, Any], message: str) -> None:
    with pytest.raises(TournamentError, match=message.replace("(", r"\(")):
        action_from_dict(d)
