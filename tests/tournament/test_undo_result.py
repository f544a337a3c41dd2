"""A box's ``match_end`` undone at the table after the service took the result: the service
withdraws it (the bracket or the evening goes back, the table plays that match again), records
the withdrawal, and takes the result again when the box ends the match once more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.box.state import MatchStore
from referee.rules import Referee
from referee.rules.playout import random_match_events
from referee.tournament import (
    Entrant,
    Evening,
    Knockout,
    Register,
    Start,
    Tournament,
    WithdrawBoxResult,
    action_from_dict,
    action_to_dict,
)
from referee.tournament.messages import RecordMessage, topic
from referee.tournament_service.service import Service
from referee.tournament_service.store import TournamentStore
from tournament.boxes import TEAMS, append_events, box_store

Sent = list[tuple[str, bytes, bool]]


class Table:
    """One box: a random match of ``game`` recorded as ``referee run`` records it, the undo of
    its last play after the match ended (the box reopens the match), that play again."""

    def __init__(self, tmp: Path, table: int, game: str = "briscola-4", seed: int = 1) -> None:
        self.table, self.game = table, game
        self.store: MatchStore = box_store(tmp, table)
        self.events = random_match_events(game, seed)
        seats = next(e["seats"] for e in self.events if e["event"] == "deal")
        self.match = self.store.begin_match(game, {"game": game, "seats": seats, "teams": TEAMS.get(game, [])})
        self.referee = Referee()
        self.sent = 0

    def play(self, events: list[dict[str, object]]) -> None:
        self.referee = append_events(self.store, self.match, events, self.referee)

    def play_to_end(self) -> None:
        self.play(self.events)

    def undo_last_play(self) -> None:
        self.store.reopen_match(self.match)  # as Box._undo does right after a match_end
        self.play([{"event": "undo"}])

    def replay_last_play(self) -> None:
        self.play([self.events[-1]])

    def publish(self, service: Service) -> list[str]:
        """The records not sent yet, as the publisher sends them."""
        new = [r for r in self.store.records(self.match) if r.seq > self.sent]
        self.sent = max((r.seq for r in new), default=self.sent)
        return [service.handle(topic(self.table, "record"),
                               RecordMessage(self.table, self.match, r.seq, r.kind, self.game, r.body).to_bytes())
                for r in new]


def service_for(state: Path, sent: Sent, entrants: list[Entrant], start: Start) -> Service:
    service = Service(TournamentStore.open(state), lambda t, p, r: sent.append((t, p, r)))
    if service.store.action_count() == 0:
        service.apply([Register(e) for e in entrants] + [start])
    return service


def pairs(n: int) -> list[Entrant]:
    return [Entrant(f"p{i}", (f"A{i}", f"B{i}")) for i in range(n)]


def assigned(sent: Sent, table: int) -> str | None:
    """The match the service last told ``table`` to play."""
    payloads = [json.loads(p) for t, p, r in sent if t == topic(table, "assign")]
    return payloads[-1]["match"] if payloads else None


def test_a_match_end_undone_at_the_box_withdraws_the_result_until_the_match_ends_again(tmp_path: Path) -> None:
    sent: Sent = []
    service = service_for(tmp_path / "t", sent, pairs(4), Start(Knockout(2), seed=1))
    first = service.tournament.at_table(1)
    assert first is not None
    box = Table(tmp_path, 1)
    box.play_to_end()
    box.publish(service)
    winner = first.result.winner if first.result else None
    assert winner is not None and service.tournament.standings()[0].won == 1
    before = [(s.entrant.id, s.won) for s in service.tournament.standings()]

    box.undo_last_play()
    assert set(box.publish(service)) == {"taken"}  # the undo's records are kept like any other
    t = service.tournament
    assert first.id in t.matches and t.matches[first.id].result is None
    assert t.at_table(1) is not None and t.at_table(1).id == first.id  # type: ignore[union-attr]
    assert all(s.won == 0 for s in t.standings())  # the standings went back
    assert t.withdrawals[-1].match == first.id and t.withdrawals[-1].result.winner == winner
    assert any(isinstance(a, WithdrawBoxResult) for a in service.store.actions())  # recorded
    assert assigned(sent, 1) == first.id

    box.replay_last_play()  # the table plays the last card again: the match ends again
    box.publish(service)
    assert service.tournament.matches[first.id].result is not None
    assert [(s.entrant.id, s.won) for s in service.tournament.standings()] == before

    # the record replays to the same tournament (a restarted service)
    again = service_for(tmp_path / "t", [], pairs(4), Start(Knockout(2), seed=1))
    assert again.tournament.standings() == service.tournament.standings()
    assert [w.match for w in again.tournament.withdrawals] == [first.id]


def test_the_table_given_on_meanwhile_goes_back_to_the_undone_match(tmp_path: Path) -> None:
    """One table: when its match ended the next one was assigned there; the undo gives the
    table back to the match undone, and the next one waits again."""
    sent: Sent = []
    service = service_for(tmp_path / "t", sent, pairs(4), Start(Knockout(1), seed=1))
    first = service.tournament.at_table(1)
    assert first is not None
    box = Table(tmp_path, 1)
    box.play_to_end()
    box.publish(service)
    following = service.tournament.at_table(1)
    assert following is not None and following.id != first.id
    assert assigned(sent, 1) == following.id

    box.undo_last_play()
    box.publish(service)
    assert service.tournament.at_table(1).id == first.id  # type: ignore[union-attr]
    assert service.tournament.matches[following.id].table is None
    assert assigned(sent, 1) == first.id


def test_an_undo_after_the_winner_played_on_is_not_withdrawn_and_the_record_is_kept(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    sent: Sent = []
    service = service_for(tmp_path / "t", sent, pairs(4), Start(Knockout(2), seed=1))
    boxes = {t: Table(tmp_path, t, seed=t) for t in (1, 2)}
    for box in boxes.values():
        box.play_to_end()
        box.publish(service)
    final = service.tournament.tables()[0]
    later = Table(tmp_path, final.table, seed=9)
    later.play_to_end()
    later.publish(service)
    assert service.tournament.champion is not None
    actions = len(service.store.actions())

    first_table = 2 if final.table == 1 else 1
    boxes[first_table].undo_last_play()
    assert set(boxes[first_table].publish(service)) == {"taken"}
    assert len(service.store.actions()) == actions  # nothing withdrawn
    assert service.tournament.champion is not None
    assert "already played on its result" in caplog.text


def test_an_evening_round_seated_on_the_undone_result_is_taken_back(tmp_path: Path) -> None:
    sent: Sent = []
    players = [Entrant(f"q{i}", (f"P{i}",)) for i in range(8)]
    service = service_for(tmp_path / "t", sent, players, Start(Evening("binocolo", 2, 2), seed=3))
    boxes = {t: Table(tmp_path, t, "binocolo", seed=t) for t in (1, 2)}
    for box in boxes.values():
        box.play_to_end()
        box.publish(service)
    assert service.tournament.round == 2
    points = {s.entrant.id: s.points for s in service.tournament.standings()}

    boxes[2].undo_last_play()
    boxes[2].publish(service)
    t = service.tournament
    assert t.round == 1 and {m.id for m in t.matches.values()} == {"T1-1", "T1-2"}
    assert t.at_table(2) is not None and t.at_table(1) is None

    boxes[2].replay_last_play()
    boxes[2].publish(service)
    assert service.tournament.round == 2
    assert {s.entrant.id: s.points for s in service.tournament.standings()} == points


def test_withdrawal_survives_its_json_form() -> None:
    action = WithdrawBoxResult(3, 12)
    assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action
    assert Tournament().withdrawals == []
