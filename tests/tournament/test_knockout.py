"""Knock-out by pairs: the draw, byes (rule 9 with a count that is not a power of two), tables,
the deck exchange, box results and organiser corrections, as named scenarios."""

from __future__ import annotations

import pytest

from referee.tournament import (
    BoxResult,
    Entrant,
    Knockout,
    OrganiserResult,
    Register,
    Start,
    Tournament,
    TournamentError,
)
from referee.tournament.knockout import bracket_size, draw_knockout

NAMES = ["Rossi", "Bianchi", "Verdi", "Neri", "Gallo", "Conte", "Ferrari", "Russo", "Romano",
         "Colombo", "Ricci", "Marino"]


def pairs(n: int) -> list[Entrant]:
    return [Entrant(f"p{i + 1}", (NAMES[(2 * i) % 12], f"{NAMES[(2 * i + 1) % 12]}{i}"))
            for i in range(n)]


def knockout(n: int, tables: int = 8, seed: int = 0) -> Tournament:
    t = Tournament()
    for e in pairs(n):
        t.apply(Register(e))
    t.apply(Start(Knockout(tables), seed))
    return t


def win_at(t: Tournament, table: int, side: str = "N+S", box_match: int = 1) -> None:
    other = "W+E" if side == "N+S" else "N+S"
    t.apply(BoxResult(table, box_match, side, {side: 2, other: 1}))


def test_five_pairs_three_byes_and_one_first_round_match() -> None:
    order = ["a", "b", "c", "d", "e"]
    pairings = draw_knockout(order)
    first = [p for p in pairings if p.round == 1]
    assert [(p.slots[0].entrant, p.slots[1].entrant) for p in first] == [("d", "e")]
    second = [p for p in pairings if p.round == 2]
    # the bye "a" meets the round-1 winner, the other two byes meet each other
    assert [(s.entrant, s.winner_of) for s in second[0].slots] == [("a", None), (None, "R1-1")]
    assert [s.entrant for s in second[1].slots] == ["b", "c"]
    assert len(pairings) == 4 and bracket_size(5) == 8


def test_eight_pairs_no_byes() -> None:
    pairings = draw_knockout([str(i) for i in range(8)])
    assert [sum(p.round == r for p in pairings) for r in (1, 2, 3)] == [4, 2, 1]


def test_one_pair_is_no_knockout() -> None:
    with pytest.raises(TournamentError, match="at least 2 entrants"):
        draw_knockout(["a"])


def test_table_shows_both_pairs_and_plays_another_pairs_deck() -> None:
    t = knockout(4, tables=2, seed=3)
    tables = t.tables()
    assert [a.table for a in tables] == [1, 2]
    for a in tables:
        at_table = {e.id for _, e in a.sides}
        assert a.deck is not None and a.deck.id not in at_table
        assert a.caption().startswith(f"Tavolo {a.table}: ")
        assert " - " in a.caption()
    assert tables[0].deck != tables[1].deck


def test_best_of_three_winner_goes_on_and_is_champion() -> None:
    t = knockout(4, tables=2)
    win_at(t, 1, "N+S")
    win_at(t, 2, "W+E")
    final = t.tables()
    assert len(final) == 1 and final[0].round == 2
    north = final[0].sides[0][1]
    win_at(t, final[0].table, "N+S", box_match=2)
    assert t.finished and t.champion == north
    assert t.standings()[0].entrant == north


def test_matches_wait_for_a_free_table() -> None:
    t = knockout(8, tables=2)
    assert [a.match for a in t.tables()] == ["R1-1", "R1-2"]
    win_at(t, 2)
    assert [a.match for a in t.tables()] == ["R1-1", "R1-3"]


def test_same_box_match_counted_once() -> None:
    t = knockout(4, tables=2)
    win_at(t, 1)
    with pytest.raises(TournamentError, match="already counted"):
        win_at(t, 1)


def test_result_from_a_table_with_no_match_is_refused() -> None:
    t = knockout(3, tables=4)
    with pytest.raises(TournamentError, match="table 4: no match in progress"):
        win_at(t, 4)


def test_result_naming_unknown_sides_is_refused_state_unchanged() -> None:
    t = knockout(4, tables=2)
    with pytest.raises(TournamentError, match="the table's sides are"):
        t.apply(BoxResult(1, 1, "A", {"A": 2, "B": 1}))
    assert t.at_table(1) is not None and t.at_table(1).result is None  # type: ignore[union-attr]


def test_organiser_enters_result_for_a_table_without_a_box() -> None:
    t = knockout(4, tables=2)
    match = t.tables()[0]
    winner = match.sides[1][1].id
    t.apply(OrganiserResult(match.match, winner, {}, "Mario", "table 1 has no box"))
    assert t.matches[match.match].result is not None
    assert t.matches[match.match].result.winner == winner  # type: ignore[union-attr]
    assert t.corrections[0].who == "Mario" and t.corrections[0].before is None


def test_correction_keeps_before_and_after_and_reseats_the_next_match() -> None:
    t = knockout(4, tables=1)
    first = t.tables()[0]
    win_at(t, 1, "N+S")
    loser = first.sides[1][1].id
    t.apply(OrganiserResult(first.match, loser, {}, "Mario", "card misread in game 3"))
    c = t.corrections[-1]
    assert c.before is not None and c.before.source == "box"
    assert c.after.winner == loser and c.why == "card misread in game 3"
    final = t.matches["R2-1"]
    assert loser in t.entrants_of(final)


def test_correction_refused_once_the_winner_played_on() -> None:
    t = knockout(4, tables=1)
    first = t.tables()[0]
    win_at(t, 1, "N+S", 1)
    win_at(t, 1, "N+S", 2)
    win_at(t, 1, "N+S", 3)  # the final
    with pytest.raises(TournamentError, match="correct R2-1 first"):
        t.apply(OrganiserResult(first.match, first.sides[1][1].id, {}, "Mario", "late"))


def test_correction_needs_who_and_why() -> None:
    with pytest.raises(TournamentError, match="who and why"):
        OrganiserResult("R1-1", "p1", {}, "Mario", " ")


def test_two_pairs_cannot_exchange_decks() -> None:
    t = Tournament()
    for e in pairs(2):
        t.apply(Register(e))
    with pytest.raises(TournamentError, match="deck exchange needs at least 3 pairs"):
        t.apply(Start(Knockout(1), 0))
    assert t.format is None


def test_single_player_cannot_enter_a_pairs_knockout() -> None:
    t = Tournament()
    t.apply(Register(Entrant("x", ("Rossi",))))
    with pytest.raises(TournamentError, match="entrant x: briscola-4 needs a pair"):
        t.apply(Start(Knockout(1), 0))


def test_registration_closes_at_start_and_ids_are_unique() -> None:
    t = knockout(3)
    with pytest.raises(TournamentError, match="registration is closed"):
        t.apply(Register(Entrant("late", ("A", "B"))))
    t2 = Tournament()
    t2.apply(Register(Entrant("p1", ("A", "B"))))
    with pytest.raises(TournamentError, match="p1: already registered"):
        t2.apply(Register(Entrant("p1", ("C", "D"))))
