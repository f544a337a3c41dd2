"""The tournament: registered entrants, the draw, the matches, their tables and decks, results
and corrections. A pure state machine: ``apply(action)`` (see ``actions.py``), nothing else
changes it, so the service's record replays to the same tournament.

>>> t = Tournament()
>>> for i, pair in enumerate([("Rossi", "Bianchi"), ("Verdi", "Neri"), ("Gallo", "Conte")]):
...     t.apply(Register(Entrant(f"p{i}", pair)))
>>> t.apply(Start(Knockout(tables=2), seed=1))
>>> [a.caption() for a in t.tables()]  # doctest: +SKIP
['Tavolo 1: Verdi/Neri - Gallo/Conte']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from referee.tournament.actions import (
    Action,
    BoxResult,
    OrganiserResult,
    Register,
    Start,
    WithdrawBoxResult,
)
from referee.tournament.decks import pick_deck
from referee.tournament.entrants import Entrant
from referee.tournament.errors import TournamentError
from referee.tournament.formats import ENTRANT_PLAYERS, TABLE_SIDES, Evening, Format, Knockout
from referee.tournament.knockout import Slot, draw_knockout


@dataclass(frozen=True)
class Result:
    """A match's result, keyed by entrant id; ``source`` is ``"box"`` (with the table and the
    box's match id) or ``"organiser"``."""

    winner: str | None
    score: Mapping[str, int]
    source: str
    table: int | None = None
    box_match: int | None = None


@dataclass(frozen=True)
class Correction:
    """An organiser's hand-entered or corrected result, kept with who and why."""

    match: str
    before: Result | None
    after: Result
    who: str
    why: str


@dataclass(frozen=True)
class Withdrawal:
    """A box's result withdrawn because the table undid the match's last play after it ended."""

    match: str
    result: Result


@dataclass
class Match:
    id: str
    round: int
    slots: tuple[Slot, ...]
    table: int | None = None
    deck: str | None = None  # the entrant whose deck plays here
    result: Result | None = None


@dataclass(frozen=True)
class TableAssignment:
    """What a table plays now: which entrant sits at which side, with whose deck."""

    table: int
    match: str
    round: int
    sides: tuple[tuple[str, Entrant], ...]  # (side as the box names it, entrant)
    deck: Entrant | None

    def caption(self) -> str:
        """What the box shows, e.g. ``Tavolo 3: Rossi/Bianchi - Verdi/Neri``."""
        return f"Tavolo {self.table}: " + " - ".join(e.name for _, e in self.sides)


@dataclass(frozen=True)
class Standing:
    entrant: Entrant
    points: int
    played: int
    won: int
    out_in_round: int | None = None  # knockout: the round it lost


@dataclass
class Tournament:
    entrants: dict[str, Entrant] = field(default_factory=dict)
    format: Format | None = None
    order: list[str] = field(default_factory=list)  # the draw
    matches: dict[str, Match] = field(default_factory=dict)
    corrections: list[Correction] = field(default_factory=list)
    applied: set[tuple[int, int]] = field(default_factory=set)  # (table, box match) results taken
    withdrawals: list[Withdrawal] = field(default_factory=list)
    round: int = 0

    @classmethod
    def replay(cls, actions: Iterable[Action]) -> Tournament:
        t = cls()
        for action in actions:
            t.apply(action)
        return t

    # --- actions -------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply one action; raises :class:`TournamentError` (state unchanged) when it cannot."""
        if isinstance(action, Register):
            self._register(action.entrant)
        elif isinstance(action, Start):
            self._start(action.format, action.seed)
        elif isinstance(action, BoxResult):
            self._box_result(action)
        elif isinstance(action, WithdrawBoxResult):
            self._withdraw(action)
        else:
            self._organiser_result(action)
        self._advance()

    def _register(self, entrant: Entrant) -> None:
        if self.format is not None:
            raise TournamentError(f"entrant {entrant.id}: registration is closed")
        if entrant.id in self.entrants:
            raise TournamentError(f"entrant {entrant.id}: already registered")
        self.entrants[entrant.id] = entrant

    def _start(self, form: Format, seed: int) -> None:
        if self.format is not None:
            raise TournamentError("the tournament has already started")
        players = ENTRANT_PLAYERS[form.game]
        for e in self.entrants.values():
            if len(e.members) != players:
                kind = "a pair" if players == 2 else "one player"
                raise TournamentError(f"entrant {e.id}: {form.game} needs {kind}, got {e.name}")
        n = len(self.entrants)
        if players == 2 and n < 3:
            raise TournamentError(f"the deck exchange needs at least 3 pairs, got {n}")
        if isinstance(form, Evening):
            per_table = len(TABLE_SIDES[form.game])
            if n == 0 or n % per_table:
                raise TournamentError(
                    f"evening of {form.game}: {n} entrants do not fill tables of {per_table}"
                )
            if n // per_table > form.tables:
                raise TournamentError(
                    f"evening of {form.game}: {n} entrants need {n // per_table} tables, "
                    f"the room has {form.tables}"
                )
        order = list(self.entrants)
        random.Random(seed).shuffle(order)
        pairings = draw_knockout(order) if isinstance(form, Knockout) else []
        self.format, self.order = form, order
        for p in pairings:
            self.matches[p.id] = Match(p.id, p.round, p.slots)
        if isinstance(form, Evening):
            self._seat_round(1)

    def _box_result(self, action: BoxResult) -> None:
        key = (action.table, action.box_match)
        if key in self.applied:
            raise TournamentError(f"table {action.table}: box match {action.box_match} already counted")
        match = self.at_table(action.table)
        if match is None:
            raise TournamentError(f"table {action.table}: no match in progress there")
        sides = self.sides(match)
        names = {side for side, _ in sides}
        if set(action.score) != names or (action.winner is not None and action.winner not in names):
            raise TournamentError(
                f"table {action.table}: result names sides {sorted(action.score)} "
                f"(winner {action.winner!r}), the table's sides are {sorted(names)}"
            )
        if action.winner is None and isinstance(self.format, Knockout):
            raise TournamentError(f"table {action.table}: a knockout match needs a winner")
        by_side = {side: entrant for side, entrant in sides}
        winner = by_side[action.winner] if action.winner is not None else None
        score = {by_side[s]: v for s, v in action.score.items()}
        match.result = Result(winner, score, "box", action.table, action.box_match)
        self.applied.add(key)

    def _withdraw(self, action: WithdrawBoxResult) -> None:
        """Take back the result of box match ``(table, box_match)``: the match is in play at
        its table again. What followed from it and has not been played is undone too (a
        knockout match its winner was seated in, an evening round seated on the ranking); what
        was played already cannot be, and the organiser corrects it by hand."""
        key = (action.table, action.box_match)
        match = next((m for m in self.matches.values() if m.result is not None
                      and m.result.source == "box" and (m.result.table, m.result.box_match) == key), None)
        if match is None:
            raise TournamentError(f"table {action.table}: box match {action.box_match} has no result "
                                  "counted from the box (none taken, or the organiser's stands)")
        later = [m for m in self.matches.values() if any(s.winner_of == match.id for s in m.slots)
                 or (isinstance(self.format, Evening) and m.round > match.round)]
        played = [m.id for m in later if m.result is not None]
        if played:
            raise TournamentError(f"match {match.id}: {', '.join(played)} already played on its result; "
                                  f"the organiser corrects {played[0]} first")
        assert match.result is not None
        self.withdrawals.append(Withdrawal(match.id, match.result))
        for m in later:  # seated on a result that no longer stands
            if isinstance(self.format, Evening):
                del self.matches[m.id]
            else:
                m.table = m.deck = None
        if later and isinstance(self.format, Evening):
            self.round = match.round
        for m in self.matches.values():  # the table given on meanwhile: the match goes back to it
            if m is not match and m.table == match.table and m.result is None:
                m.table = m.deck = None
        match.result = None
        self.applied.discard(key)

    def _organiser_result(self, action: OrganiserResult) -> None:
        match = self.matches.get(action.match)
        if match is None:
            raise TournamentError(f"match {action.match}: no such match")
        entrants = self.entrants_of(match)
        if None in entrants:
            raise TournamentError(f"match {action.match}: its entrants are not known yet")
        known = set(e for e in entrants if e is not None)
        if action.winner is not None and action.winner not in known:
            raise TournamentError(f"match {action.match}: winner {action.winner!r} does not play in it")
        if action.winner is None and isinstance(self.format, Knockout):
            raise TournamentError(f"match {action.match}: a knockout match needs a winner")
        unknown = set(action.score) - known
        if unknown:
            raise TournamentError(f"match {action.match}: score names {sorted(unknown)}, not in it")
        before = match.result
        if before is not None and before.winner != action.winner:
            for later in self.matches.values():
                if later.result is not None and any(s.winner_of == match.id for s in later.slots):
                    raise TournamentError(
                        f"match {action.match}: its winner already played {later.id}; "
                        f"correct {later.id} first"
                    )
        after = Result(action.winner, {e: action.score.get(e, 0) for e in sorted(known)},
                       "organiser", match.table)
        match.result = after
        self.corrections.append(Correction(match.id, before, after, action.who, action.why))

    # --- derived state ---------------------------------------------------------------------
    def entrants_of(self, match: Match) -> list[str | None]:
        """Each slot's entrant; ``None`` while the match feeding it has no result."""
        out: list[str | None] = []
        for slot in match.slots:
            if slot.entrant is not None:
                out.append(slot.entrant)
            else:
                feeder = self.matches[slot.winner_of or ""]
                out.append(feeder.result.winner if feeder.result is not None else None)
        return out

    def sides(self, match: Match) -> list[tuple[str, str]]:
        """(side as the box names it, entrant id), for a match whose entrants are known."""
        assert self.format is not None
        return [(side, e) for side, e in zip(TABLE_SIDES[self.format.game],
                                             self.entrants_of(match), strict=True) if e is not None]

    def at_table(self, table: int) -> Match | None:
        return next((m for m in self.matches.values()
                     if m.table == table and m.result is None), None)

    def tables(self) -> list[TableAssignment]:
        """The tables in play now, by table number."""
        out = []
        for m in self.matches.values():
            if m.table is not None and m.result is None:
                sides = tuple((s, self.entrants[e]) for s, e in self.sides(m))
                deck = self.entrants[m.deck] if m.deck is not None else None
                out.append(TableAssignment(m.table, m.id, m.round, sides, deck))
        return sorted(out, key=lambda a: a.table)

    @property
    def finished(self) -> bool:
        return bool(self.matches) and all(m.result is not None for m in self.matches.values()) and (
            not isinstance(self.format, Evening) or self.round == self.format.rounds
        )

    @property
    def champion(self) -> Entrant | None:
        """The knockout's winner, once the final has a result."""
        if not isinstance(self.format, Knockout) or not self.finished:
            return None
        final = max(self.matches.values(), key=lambda m: m.round)
        return self.entrants[final.result.winner] if final.result and final.result.winner else None

    def standings(self) -> list[Standing]:
        """Evening: by points, then matches won, then draw order. Knockout: the champion, then
        by the round each pair reached, matches won, draw order."""
        points = dict.fromkeys(self.order or self.entrants, 0)
        played, won = dict.fromkeys(points, 0), dict.fromkeys(points, 0)
        out_in: dict[str, int] = {}
        for m in self.matches.values():
            if m.result is None:
                continue
            for e, v in m.result.score.items():
                points[e] += v
                played[e] += 1
            if m.result.winner is not None:
                won[m.result.winner] += 1
            if isinstance(self.format, Knockout):
                for loser in self.entrants_of(m):
                    if loser is not None and loser != m.result.winner:
                        out_in[loser] = m.round
        rows = [Standing(self.entrants[e], points[e], played[e], won[e], out_in.get(e)) for e in points]
        position = {e: i for i, e in enumerate(points)}
        if isinstance(self.format, Knockout):
            return sorted(rows, key=lambda s: (-(s.out_in_round or 99), -s.won, position[s.entrant.id]))
        return sorted(rows, key=lambda s: (-s.points, -s.won, position[s.entrant.id]))

    # --- rounds, tables and decks ------------------------------------------------------------
    def _seat_round(self, number: int) -> None:
        """Evening: seat round ``number`` (1: draw order; later: by the ranking so far)."""
        assert isinstance(self.format, Evening)
        per_table = len(TABLE_SIDES[self.format.game])
        seating = self.order if number == 1 else [s.entrant.id for s in self.standings()]
        for i in range(len(seating) // per_table):
            group = seating[i * per_table:(i + 1) * per_table]
            mid = f"T{number}-{i + 1}"
            self.matches[mid] = Match(mid, number, tuple(Slot(entrant=e) for e in group))
        self.round = number

    def _advance(self) -> None:
        """After any action: seat the next evening round once this one is over, then give
        free tables to ready matches (bracket order) and check every table's deck."""
        form = self.format
        if form is None:
            return
        if isinstance(form, Evening) and self.round < form.rounds and all(
            m.result is not None for m in self.matches.values()
        ):
            self._seat_round(self.round + 1)
        busy = {m.table for m in self.matches.values() if m.table is not None and m.result is None}
        free = [t for t in range(1, form.tables + 1) if t not in busy]
        for m in self.matches.values():
            if not free:
                break
            if m.table is None and m.result is None and None not in self.entrants_of(m):
                m.table = free.pop(0)
        pairs = ENTRANT_PLAYERS[form.game] == 2
        for m in self.matches.values():
            if m.result is not None or m.table is None or not pairs:
                continue
            at_table = [e for e in self.entrants_of(m) if e is not None]
            in_use = {o.deck for o in self.matches.values()
                      if o is not m and o.result is None and o.table is not None and o.deck}
            if m.deck is None or m.deck in at_table or m.deck in in_use:
                m.deck = pick_deck(self.order, at_table, in_use)
