"""The tournament service without a broker: boxes' records in (as the publisher sends them),
results, the tables' assignments out, every bad message rejected with its reason and the
record untouched, and a restart that rebuilds the same tournament."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from referee.tournament import Entrant, Knockout, OrganiserResult, Register, Start, TournamentError
from referee.tournament.messages import RecordMessage, ResendRequest, StatusMessage, topic
from referee.tournament_service.service import Service
from referee.tournament_service.store import TournamentStore
from tournament.boxes import box_store, messages, record_match

Sent = list[tuple[str, bytes, bool]]


def start_service(state: Path, sent: Sent, n: int = 4, tables: int = 2) -> Service:
    service = Service(TournamentStore.open(state), lambda t, p, r: sent.append((t, p, r)))
    if service.store.action_count() == 0:
        service.apply([Register(Entrant(f"p{i}", (f"A{i}", f"B{i}"))) for i in range(n)]
                      + [Start(Knockout(tables), seed=1)])
    return service


def feed(service: Service, msgs: list[RecordMessage]) -> list[str]:
    return [service.handle(topic(m.table, "record"), m.to_bytes()) for m in msgs]


def test_box_results_play_the_knockout_to_its_champion(tmp_path: Path) -> None:
    sent: Sent = []
    service = start_service(tmp_path / "t", sent)
    assigns = {t: json.loads(p) for t, p, r in sent if t.endswith("/assign") and r}
    assert set(assigns) == {topic(1, "assign"), topic(2, "assign")}
    assert assigns[topic(1, "assign")]["caption"].startswith("Tavolo 1: ")
    for table, seed in ((1, 11), (2, 12)):
        store = box_store(tmp_path, table)
        match = record_match(store, "briscola-4", seed)
        assert set(feed(service, messages(store, table, match))) == {"taken"}
    final = service.tournament.tables()
    assert len(final) == 1 and final[0].round == 2
    store = box_store(tmp_path, final[0].table)
    match = record_match(store, "briscola-4", 13)
    feed(service, messages(store, final[0].table, match))
    assert service.tournament.champion is not None
    assert service.live[final[0].table].score  # deals won by side, for the room page


def test_repeated_record_is_ignored_and_a_gap_is_asked_again(tmp_path: Path) -> None:
    sent: Sent = []
    service = start_service(tmp_path / "t", sent)
    store = box_store(tmp_path, 1)
    msgs = messages(store, 1, record_match(store, "briscola-4", 3, upto=10))
    assert feed(service, msgs[:5]) == ["taken"] * 5
    assert feed(service, msgs[3:5]) == ["duplicate"] * 2
    outcome = feed(service, msgs[7:8])[0]
    assert outcome.startswith("rejected: gap") and "expected 6" in outcome
    resend = [(t, ResendRequest.parse(p)) for t, p, r in sent if t.endswith("/resend")]
    assert resend == [(topic(1, "resend"), ResendRequest(msgs[0].match, 6))]
    assert service.store.next_seqs()[(1, msgs[0].match)] == 6  # nothing past the gap taken


def test_status_showing_a_tail_the_service_lacks_asks_for_it(tmp_path: Path) -> None:
    sent: Sent = []
    service = start_service(tmp_path / "t", sent)
    status = StatusMessage(2, True, {4: 30})
    assert service.handle(topic(2, "status"), status.to_bytes()) == "status"
    assert [ResendRequest.parse(p) for t, p, r in sent if t.endswith("/resend")] == [
        ResendRequest(4, 1)
    ]
    assert service.live[2].online is True


@pytest.mark.parametrize(
    ("name", "payload", "reason"),
    [
        (topic(1, "record"), b"{not json", "not JSON"),
        (topic(1, "record"), b'{"table":1,"match":1,"seq":NaN,"kind":"event","game":"g","body":{}}',
         "not JSON"),
        (topic(1, "record"), b'{"table":1,"match":1,"seq":1,"kind":"event","game":"g","body":[]}',
         "body: expected an object"),
        (topic(1, "record"), b'{"table":1,"table":2,"match":1,"seq":1}', "appears twice"),
        # The poison the event logs refuse is refused here too (one strict reader, referee.jsonl).
        (topic(1, "record"), b'{"table":1,"match":1,"seq":1' + b"1" * 5000 + b'}', "not JSON"),
        (topic(1, "record"), b'{"table":1,"match":1,"seq":1,"kind":"event","game":"\\ud800"}',
         "not JSON"),
        (topic(1, "record"), b"\xef\xbb\xbf{}", "not JSON"),
        (topic(1, "record"), b"", "not JSON"),
        (topic(2, "record"), RecordMessage(1, 1, 1, "event", "briscola-4", {}).to_bytes(),
         "outside its topic"),
        (topic(9, "record"), RecordMessage(9, 1, 1, "event", "briscola-4", {}).to_bytes(),
         "unknown table: 9"),
        ("referee/table-1/../table-2/record", b"{}", "not a table topic"),
    ],
)
def test_bad_message_is_rejected_with_its_reason_and_the_record_untouched(
    tmp_path: Path, name: str, payload: bytes, reason: str
) -> None:
    service = start_service(tmp_path / "t", [])
    actions_before = service.store.action_count()
    outcome = service.handle(name, payload)
    assert outcome.startswith("rejected") and reason in outcome
    assert service.store.box_matches() == [] and service.store.action_count() == actions_before


def test_restart_rebuilds_the_same_tournament_and_takes_up_where_it_was(tmp_path: Path) -> None:
    sent: Sent = []
    service = start_service(tmp_path / "t", sent)
    store = box_store(tmp_path, 1)
    match = record_match(store, "briscola-4", 21)
    msgs = messages(store, 1, match)
    feed(service, msgs[: len(msgs) // 2])
    service.store.close()
    again = start_service(tmp_path / "t", sent)
    assert feed(again, msgs) == ["duplicate"] * (len(msgs) // 2) + ["taken"] * (len(msgs) - len(msgs) // 2)
    assert again.tournament.matches["R1-1"].result is not None
    third = start_service(tmp_path / "t", sent)
    assert third.tournament.standings() == again.tournament.standings()


def test_organiser_action_the_tournament_refuses_records_nothing(tmp_path: Path) -> None:
    service = start_service(tmp_path / "t", [])
    before = service.store.action_count()
    with pytest.raises(TournamentError, match="no such match"):
        service.apply([OrganiserResult("R9-9", "p1", {}, "Mario", "typo")])
    assert service.store.action_count() == before


def test_batch_that_cannot_be_recorded_counts_none_of_its_messages(tmp_path: Path) -> None:
    service = start_service(tmp_path / "t", [])
    store = box_store(tmp_path, 1)
    msgs = messages(store, 1, record_match(store, "briscola-4", 4, upto=6))
    service.store.conn.execute("PRAGMA query_only = 1")  # the disk refuses every write
    outcomes = service.handle_batch([(topic(1, "record"), m.to_bytes()) for m in msgs])
    assert all(o.startswith("rejected: not recorded") for o in outcomes)
    assert service.expected == {} and service.live == {}  # memory is what the disk holds
    service.store.conn.execute("PRAGMA query_only = 0")
    assert service.handle_batch([(topic(1, "record"), m.to_bytes()) for m in msgs]) == ["taken"] * len(msgs)
    assert len(list(service.store.records(1, msgs[0].match))) == len(msgs)


@pytest.mark.parametrize(
    ("assigned", "taken"),
    [(None, True), ("R1-1", True), ("R1-2", False), ("", False)],
)
def test_result_counts_only_from_a_match_begun_for_the_tables_assignment(
    tmp_path: Path, assigned: str | None, taken: bool
) -> None:
    """A box match begun for another tournament match, or as a friendly game while the table
    had nothing to play, is recorded but its ``match_end`` is not the table's result; a box that
    had heard no assignment at all (None) is trusted."""
    service = start_service(tmp_path / "t", [])
    assert service.tournament.at_table(1) is not None
    assert service.tournament.at_table(1).id == "R1-1"  # type: ignore[union-attr]
    store = box_store(tmp_path, 1)
    msgs = [replace(m, assigned=assigned) for m in messages(store, 1, record_match(store, "briscola-4", 8))]
    assert set(feed(service, msgs)) == {"taken"}
    assert (service.tournament.matches["R1-1"].result is not None) is taken
