"""What a table looks like now, as data: the scoreboard, the box's home screen and a phone
console's ``GET /api/state`` all read it (:meth:`TableSession.state
<referee.table.session.TableSession.state>`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.rules import Referee, Trick
from referee.table.question import Question


@dataclass(frozen=True)
class TrickView:
    """A trick as the table saw it: ``plays`` are (seat, card code) in play order; ``winner``
    once it is over."""

    number: int
    leader: str
    plays: tuple[tuple[str, str], ...]
    winner: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "leader": self.leader, "plays": [list(p) for p in self.plays],
                "winner": self.winner}


@dataclass(frozen=True)
class TableState:
    """The table now.  ``points``: card points this deal per team (a team's name is its seats
    joined by ``+``); ``score``: the match score as the game keeps it; ``contract``: the
    deal's latest ``contract`` call (chiamata, binocolo...), as the rules core called it;
    ``violations``: (seat, rule, trick) that stand this deal; ``question``: the one waiting
    for the operator."""

    game: str | None = None
    seats: tuple[str, ...] = ()
    teams: tuple[tuple[str, ...], ...] = ()
    deal: int = 0
    dealer: str | None = None
    phase: str | None = None
    trump: str | None = None
    trump_card: str | None = None
    contract: Mapping[str, Any] | None = None
    turn: str | None = None
    trick: TrickView | None = None
    last_trick: TrickView | None = None
    tricks_done: int = 0
    points: Mapping[str, int] = field(default_factory=dict)
    score: Mapping[str, int] = field(default_factory=dict)
    violations: tuple[tuple[str, str, int], ...] = ()
    match_over: bool = False
    question: Question | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON for a scoreboard or ``GET /api/state``."""
        return {
            "game": self.game, "seats": list(self.seats), "teams": [list(t) for t in self.teams],
            "deal": self.deal, "dealer": self.dealer, "phase": self.phase, "trump": self.trump,
            "trump_card": self.trump_card, "contract": dict(self.contract) if self.contract else None,
            "turn": self.turn, "trick": self.trick.to_dict() if self.trick else None,
            "last_trick": self.last_trick.to_dict() if self.last_trick else None,
            "tricks_done": self.tricks_done, "points": dict(self.points), "score": dict(self.score),
            "violations": [list(v) for v in self.violations], "match_over": self.match_over,
            "question": {"id": self.question.id, **self.question.to_call()} if self.question else None,
        }

    @classmethod
    def of(cls, referee: Referee, contract: Mapping[str, Any] | None = None,
           question: Question | None = None) -> TableState:
        """The state of ``referee``'s table (``contract`` and ``question`` are the session's)."""
        game, deal, match = referee.game, referee.deal, referee.match
        if game is None or deal is None:
            return cls(question=question)
        teams = game.teams(deal) or tuple((s,) for s in deal.seats)
        points = {"+".join(t): sum(deal.points.get(s, 0) for s in t) for t in teams}
        last = referee.last_trick
        return cls(
            game=deal.game, seats=deal.seats, teams=tuple(tuple(t) for t in teams), deal=deal.number,
            dealer=deal.dealer, phase=deal.phase, trump=deal.trump,
            trump_card=deal.trump_card.code if deal.trump_card is not None else None, contract=contract,
            turn=deal.turn, trick=_view(deal.trick) if deal.trick is not None and deal.trick.plays else None,
            last_trick=_view(last, game.trick_winner(deal, last)) if last is not None else None,
            tricks_done=len(deal.tricks), points=points, score=dict(match.score) if match else {},
            violations=tuple(deal.violations), match_over=referee.outcome is not None, question=question,
        )


def _view(trick: Trick, winner: int | None = None) -> TrickView:
    plays = tuple((s, c.code) for s, c in trick.plays)
    return TrickView(trick.number, trick.leader, plays, plays[winner][0] if winner is not None else None)
