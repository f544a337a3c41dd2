"""What changes a tournament: typed actions, applied in order by :class:`Tournament`.

The service records these (one JSON object each) and rebuilds the tournament by replaying
them, as the box rebuilds a match from its events. ``action_from_dict`` names the bad key.

>>> action_from_dict({"action": "start", "format": "knockout", "tables": 4, "seed": 7})
Start(format=Knockout(tables=4, game='briscola-4'), seed=7)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.tournament.entrants import Entrant
from referee.tournament.errors import TournamentError
from referee.tournament.formats import Evening, Format, Knockout


@dataclass(frozen=True)
class Register:
    entrant: Entrant


@dataclass(frozen=True)
class Start:
    """Closes registration, draws the order (``seed``) and seats round 1."""

    format: Format
    seed: int


@dataclass(frozen=True)
class BoxResult:
    """A box's ``match_end``: ``winner`` and ``score`` name the table's sides (``N+S``)."""

    table: int
    box_match: int
    winner: str | None
    score: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class WithdrawBoxResult:
    """A box's ``match_end`` undone at the table after the tournament took it: the result of
    that box match is withdrawn (the bracket or the evening goes back) until the box ends the
    match again."""

    table: int
    box_match: int


@dataclass(frozen=True)
class OrganiserResult:
    """A result entered by hand (a table without a box) or a correction of one, with who
    entered it and why. ``winner`` and ``score`` name entrants."""

    match: str
    winner: str | None
    score: Mapping[str, int]
    who: str
    why: str

    def __post_init__(self) -> None:
        if not self.who.strip() or not self.why.strip():
            raise TournamentError(f"result for {self.match}: who and why are both required")


Action = Register | Start | BoxResult | WithdrawBoxResult | OrganiserResult


def action_to_dict(action: Action) -> dict[str, Any]:
    if isinstance(action, Register):
        e = action.entrant
        return {"action": "register", "id": e.id, "members": list(e.members),
                "enrollment": e.enrollment}
    if isinstance(action, Start):
        f = action.format
        if isinstance(f, Knockout):
            return {"action": "start", "format": "knockout", "game": f.game,
                    "tables": f.tables, "seed": action.seed}
        return {"action": "start", "format": "evening", "game": f.game, "rounds": f.rounds,
                "tables": f.tables, "seed": action.seed}
    if isinstance(action, BoxResult):
        return {"action": "box_result", "table": action.table, "box_match": action.box_match,
                "winner": action.winner, "score": dict(action.score)}
    if isinstance(action, WithdrawBoxResult):
        return {"action": "withdraw_box_result", "table": action.table, "box_match": action.box_match}
    return {"action": "organiser_result", "match": action.match, "winner": action.winner,
            "score": dict(action.score), "who": action.who, "why": action.why}


class _Keys:
    """Typed reads from one action dict, naming the key in every error."""

    def __init__(self, d: Mapping[str, Any]) -> None:
        self.d, self.kind = d, d.get("action")

    def error(self, key: str, expected: str) -> TournamentError:
        return TournamentError(f"{self.kind} action: {key}: expected {expected}, got {self.d.get(key)!r}")

    def str_(self, key: str, default: str | None = None) -> str:
        value = self.d.get(key, default)
        if not isinstance(value, str):
            raise self.error(key, "a string")
        return value

    def opt_str(self, key: str) -> str | None:
        value = self.d.get(key)
        if value is not None and not isinstance(value, str):
            raise self.error(key, "a string or null")
        return value

    def int_(self, key: str, default: int | None = None) -> int:
        value = self.d.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, "an integer")
        return value

    def score(self, key: str) -> dict[str, int]:
        value = self.d.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in value.items()
        ):
            raise self.error(key, "an object of integer scores")
        return dict(value)


def action_from_dict(d: Mapping[str, Any]) -> Action:
    """Parse a recorded or submitted action; raises :class:`TournamentError` naming the key."""
    if not isinstance(d, Mapping):
        raise TournamentError(f"action: expected an object, got {d!r}")
    k = _Keys(d)
    kind = d.get("action")
    if kind == "register":
        members = d.get("members")
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise k.error("members", "a list of one or two names")
        return Register(Entrant(k.str_("id"), tuple(members), k.opt_str("enrollment")))
    if kind == "start":
        fmt = k.str_("format")
        if fmt == "knockout":
            form: Format = Knockout(k.int_("tables"), k.str_("game", "briscola-4"))
        elif fmt == "evening":
            form = Evening(k.str_("game"), k.int_("rounds"), k.int_("tables"))
        else:
            raise k.error("format", "'knockout' or 'evening'")
        return Start(form, k.int_("seed", 0))
    if kind == "box_result":
        return BoxResult(k.int_("table"), k.int_("box_match"), k.opt_str("winner"), k.score("score"))
    if kind == "withdraw_box_result":
        return WithdrawBoxResult(k.int_("table"), k.int_("box_match"))
    if kind == "organiser_result":
        return OrganiserResult(k.str_("match"), k.opt_str("winner"), k.score("score"),
                               k.str_("who"), k.str_("why"))
    raise TournamentError(
        f"action: {kind!r}: expected 'register', 'start', 'box_result', 'withdraw_box_result' "
        "or 'organiser_result'"
    )
