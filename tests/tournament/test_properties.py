"""Property tests: any knock-out or evening, played out with random results, keeps the
tournament's invariants; the action record replays to the same tournament."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament import (
    TABLE_SIDES,
    BoxResult,
    Entrant,
    Evening,
    Knockout,
    OrganiserResult,
    Register,
    Start,
    Tournament,
    WithdrawBoxResult,
    action_from_dict,
    action_to_dict,
)
from referee.tournament.actions import Action
from referee.tournament.knockout import bracket_size


def check_decks(t: Tournament) -> None:
    """No table plays with a deck of a pair sitting at it; one deck is at one table at a time."""
    decks = [a.deck.id for a in t.tables() if a.deck is not None]
    assert len(decks) == len(set(decks))
    for a in t.tables():
        assert a.deck is None or a.deck.id not in {e.id for _, e in a.sides}


def check_tables(t: Tournament) -> None:
    """A table plays one match at a time, and only a match whose entrants are known."""
    seated = [m.table for m in t.matches.values() if m.table is not None and m.result is None]
    assert len(seated) == len(set(seated))
    assert all(None not in t.entrants_of(m) for m in t.matches.values() if m.table is not None)


def play_out(t: Tournament, rng: random.Random, log: list[Action], undo: float = 0.0) -> None:
    """Results for every table until the tournament is over, some by hand, as a room would;
    with ``undo``, that share of the boxes' results is undone at the table right away (the
    result withdrawn: the standings go back) and the match ended again with the same result."""
    box_match = 0
    while not t.finished:
        tables = t.tables()
        assert tables, "a tournament that is not over always has a table in play"
        check_decks(t)
        a = rng.choice(tables)
        sides = [s for s, _ in a.sides]
        box_match += 1
        score = {s: rng.randint(-5, 120) for s in sides}
        action: Action
        if rng.random() < 0.2:
            winner = rng.choice(a.sides)[1].id
            action = OrganiserResult(a.match, winner, {e.id: score[s] for s, e in a.sides},
                                     "Mario", "table without a box")
        else:
            action = BoxResult(a.table, box_match, rng.choice(sides), score)
        before = t.standings()
        t.apply(action)
        log.append(action)
        if isinstance(action, BoxResult) and rng.random() < undo:
            after = t.standings()
            withdraw = WithdrawBoxResult(action.table, action.box_match)
            t.apply(withdraw)
            check_tables(t)
            check_decks(t)
            assert t.standings() == before
            assert t.at_table(a.table) is not None and t.at_table(a.table).id == a.match  # type: ignore[union-attr]
            t.apply(action)
            log += [withdraw, action]
            assert t.standings() == after
        check_tables(t)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 40), tables=st.integers(1, 20), seed=st.integers(0, 10**6))
def test_knockout_of_n_pairs_has_n_minus_1_matches_won_and_byes_only_in_round_1(
    n: int, tables: int, seed: int
) -> None:
    t = Tournament()
    log: list[Action] = [Register(Entrant(f"p{i}", (f"A{i}", f"B{i}"))) for i in range(n)]
    log.append(Start(Knockout(tables), seed))
    for action in log:
        t.apply(action)
    play_out(t, random.Random(seed), log)
    results = [m.result for m in t.matches.values()]
    assert len(results) == n - 1 and all(r is not None and r.winner for r in results)
    # byes: the entrants drawn straight into a later round are exactly the round-2 byes
    direct = [(m.round, s.entrant) for m in t.matches.values() for s in m.slots if s.entrant]
    assert all(r in (1, 2) for r, _ in direct)
    assert sum(r == 2 for r, _ in direct) == bracket_size(n) - n
    assert sorted(e for _, e in direct) == sorted(t.entrants)  # each entrant drawn once
    champion = t.champion
    assert champion is not None
    standings = t.standings()
    assert standings[0].entrant == champion and standings[0].out_in_round is None
    assert all(s.out_in_round is not None for s in standings[1:])  # every other pair lost once
    assert sum(s.won for s in standings) == n - 1
    # the record replays, through its JSON form, to the same tournament
    again = Tournament.replay(action_from_dict(action_to_dict(a)) for a in log)
    assert again.standings() == standings and again.corrections == t.corrections


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 24), tables=st.integers(1, 8), seed=st.integers(0, 10**6),
       game=st.sampled_from(["knockout", "briscola-chiamata", "belotta", "binocolo"]))
def test_results_undone_at_the_table_and_ended_again_end_in_the_same_standings(
    n: int, tables: int, seed: int, game: str
) -> None:
    """Every box result has a chance of being undone right after it was taken (withdrawn,
    the standings back to before it, the match at its table again) and ended again: the
    tournament plays out as without undos, and the record (withdrawals too) replays to it."""
    form: Knockout | Evening
    if game == "knockout":
        pairs, form = True, Knockout(tables)
    else:
        per_table = len(TABLE_SIDES[game])
        pairs, n = game == "belotta", per_table * max(tables, 2)
        form = Evening(game, 3, max(tables, 2))
    t = Tournament()
    log: list[Action] = [Register(Entrant(f"p{i}", (f"A{i}", f"B{i}") if pairs else (f"A{i}",)))
                         for i in range(n)]
    log.append(Start(form, seed))
    for action in log:
        t.apply(action)
    play_out(t, random.Random(seed), log, undo=0.4)
    assert t.finished and len(t.withdrawals) == sum(isinstance(a, WithdrawBoxResult) for a in log)
    again = Tournament.replay(action_from_dict(action_to_dict(a)) for a in log)
    assert again.standings() == t.standings() and again.withdrawals == t.withdrawals


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(["briscola-chiamata", "belotta", "binocolo", "briscola-4"]),
    tables=st.integers(1, 6),
    rounds=st.integers(1, 4),
    seed=st.integers(0, 10**6),
)
def test_evening_standings_sum_to_the_tables_scores(
    game: str, tables: int, rounds: int, seed: int
) -> None:
    per_table = len(TABLE_SIDES[game])
    pairs = game in ("belotta", "briscola-4")
    n = per_table * tables
    if pairs and n < 3:
        n, tables = per_table * 2, 2
    t = Tournament()
    log: list[Action] = [
        Register(Entrant(f"e{i}", (f"A{i}", f"B{i}") if pairs else (f"A{i}",))) for i in range(n)
    ]
    log.append(Start(Evening(game, rounds, tables), seed))
    for action in log:
        t.apply(action)
    play_out(t, random.Random(seed), log)
    total = sum(v for m in t.matches.values() if m.result for v in m.result.score.values())
    standings = t.standings()
    assert sum(s.points for s in standings) == total
    assert all(s.played == rounds for s in standings)
    for r in range(1, rounds + 1):  # nobody sits at two tables in one round
        seated = [e for m in t.matches.values() if m.round == r for e in t.entrants_of(m)]
        assert sorted(e for e in seated if e) == sorted(t.entrants)
    points = [s.points for s in standings]
    assert points == sorted(points, reverse=True)
    again = Tournament.replay(action_from_dict(action_to_dict(a)) for a in log)
    assert again.standings() == standings
