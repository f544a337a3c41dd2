"""A cumulative evening ranking: chiamata credits, belotta and binocolo points over a fixed
number of rounds, re-seated by the ranking after round 1."""

from __future__ import annotations

import pytest

from referee.tournament import (
    BoxResult,
    Entrant,
    Evening,
    OrganiserResult,
    Register,
    Start,
    Tournament,
    TournamentError,
)


def evening(game: str, n: int, rounds: int = 2, tables: int = 8) -> Tournament:
    t = Tournament()
    size = 2 if game == "belotta" else 1
    for i in range(n):
        t.apply(Register(Entrant(f"e{i}", tuple(f"P{i}{j}" for j in range(size)))))
    t.apply(Start(Evening(game, rounds, tables), seed=5))
    return t


def test_chiamata_credits_add_up_and_reseat_by_ranking() -> None:
    t = evening("briscola-chiamata", 10, rounds=2)
    first = t.tables()
    assert [len(a.sides) for a in first] == [5, 5] and first[0].deck is None
    credits = {"A": 4, "B": 2, "C": 0, "D": -2, "E": -4}
    for a in first:
        t.apply(BoxResult(a.table, 1, "A", credits))
    leaders = [a.sides[0][1].id for a in first]  # seat A won 4 credits at both tables
    second = t.tables()
    assert [a.round for a in second] == [2, 2]
    assert {e.id for _, e in second[0].sides[:2]} == set(leaders)  # top two sit together
    ranking = t.standings()
    assert {s.entrant.id for s in ranking[:2]} == set(leaders) and ranking[0].points == 4


def test_belotta_pairs_exchange_decks() -> None:
    t = evening("belotta", 4, rounds=1)
    tables = t.tables()
    assert len(tables) == 2
    for a in tables:
        assert a.deck is not None and a.deck.id not in {e.id for _, e in a.sides}


def test_binocolo_evening_ends_after_its_rounds() -> None:
    t = evening("binocolo", 4, rounds=2, tables=1)
    for box_match in (1, 2):
        t.apply(BoxResult(1, box_match, "E", {"N": 61, "W": 54, "S": 12, "E": 102}))
    assert t.finished and t.tables() == []
    assert sum(s.points for s in t.standings()) == 2 * (61 + 54 + 12 + 102)
    assert all(s.played == 2 for s in t.standings())


def test_count_that_does_not_fill_tables_is_refused() -> None:
    t = Tournament()
    for i in range(7):
        t.apply(Register(Entrant(f"e{i}", (f"P{i}",))))
    with pytest.raises(TournamentError, match="7 entrants do not fill tables of 5"):
        t.apply(Start(Evening("briscola-chiamata", 3, 4), 0))


def test_more_tables_needed_than_the_room_has_is_refused() -> None:
    t = Tournament()
    for i in range(10):
        t.apply(Register(Entrant(f"e{i}", (f"P{i}",))))
    with pytest.raises(TournamentError, match="need 2 tables, the room has 1"):
        t.apply(Start(Evening("briscola-chiamata", 3, 1), 0))


def test_organiser_score_correction_changes_the_ranking() -> None:
    t = evening("binocolo", 4, rounds=1, tables=1)
    t.apply(BoxResult(1, 1, "N", {"N": 100, "W": 0, "S": 0, "E": 0}))
    match = next(iter(t.matches))
    ids = t.entrants_of(t.matches[match])
    fixed = {str(e): 10 for e in ids}
    t.apply(OrganiserResult(match, str(ids[1]), fixed, "Anna", "melds miscounted"))
    assert sum(s.points for s in t.standings()) == 40
    assert t.corrections[0].before is not None and t.corrections[0].before.score[str(ids[0])] == 100
