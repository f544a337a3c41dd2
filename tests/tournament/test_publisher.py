"""The box publisher without a broker: its outbox resumes from the first record the broker did
not acknowledge, acknowledgements out of order advance only the contiguous part, and a box
without ``[tournament]`` starts no publisher."""

from __future__ import annotations

import time
from pathlib import Path
from unittest.mock import MagicMock

import pytest

from referee.box.config import TournamentConfig
from referee.box.publish import Outbox, Publisher, _Acks, broker_address, start_publisher
from referee.box.state import DB_NAME
from referee.errors import ConfigError
from tournament.boxes import box_store, record_match


def test_outbox_resumes_after_the_last_acknowledged_record(tmp_path: Path) -> None:
    store = box_store(tmp_path, 1)
    first = record_match(store, "briscola-4", 1, upto=5)
    outbox = Outbox(tmp_path / "box-1" / DB_NAME)
    rows = outbox.after(outbox.first_unacked_rowid())
    assert [(m, s) for _, m, s, _, _ in rows][:2] == [(first, 1), (first, 2)]
    outbox.save_acked({first: 4})
    resumed = outbox.after(outbox.first_unacked_rowid())
    assert resumed[0][1:3] == (first, 5)
    outbox.save_acked({first: 3})  # an older save never moves it back
    assert outbox.acked() == {first: 4}
    assert outbox.last_seqs() == {first: len(list(store.records(first)))}


def test_acks_out_of_order_advance_only_the_contiguous_part() -> None:
    acks = _Acks({7: 2})
    for mid, seq in ((10, 3), (11, 4), (12, 5)):
        acks.sent(mid, 7, seq)
    acks.acknowledged(12)
    assert acks.take_changes() is None  # 3 and 4 not acknowledged yet
    acks.acknowledged(99)  # an ack that came before publish() returned
    acks.sent(99, 8, 1)
    acks.acknowledged(10)
    acks.acknowledged(11)
    assert acks.take_changes() == {7: 5, 8: 1}
    assert acks.in_flight() == 0


def test_box_without_tournament_starts_no_publisher(tmp_path: Path) -> None:
    assert start_publisher(None, tmp_path / DB_NAME) is None


def test_unreadable_broker_password_is_logged_and_the_box_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    box_store(tmp_path, 1).close()
    cfg = TournamentConfig("mqtt://127.0.0.1:1", 1, "table-1", tmp_path / "missing.password")
    assert start_publisher(cfg, tmp_path / "box-1" / DB_NAME) is None
    assert "missing.password: cannot read the broker password" in caplog.text


def test_broker_address() -> None:
    assert broker_address("mqtts://club.local") == ("club.local", 8883, True)
    assert broker_address("mqtt://10.0.0.2:1884") == ("10.0.0.2", 1884, False)
    with pytest.raises(ConfigError, match="expected mqtt://host"):
        broker_address("tcp://x")


def test_match_is_tagged_with_the_assignment_heard_before_it_began(tmp_path: Path) -> None:
    store = box_store(tmp_path, 1)
    friendly = record_match(store, "briscola-4", 1, upto=3)
    cfg = TournamentConfig("mqtt://127.0.0.1:1", 1, "table-1")
    publisher = Publisher(cfg, tmp_path / "box-1" / DB_NAME, client_factory=lambda _: MagicMock())
    message = MagicMock(topic="referee/table-1/assign",
                        payload=b'{"table":1,"match":"R1-1","caption":"Tavolo 1: A/B - C/D",'
                                b'"sides":[["N+S","p1","A/B"],["W+E","p2","C/D"]],"deck":null}')
    publisher._on_message(None, None, message)
    assert publisher.assignment is not None and publisher.assignment.caption == "Tavolo 1: A/B - C/D"
    time.sleep(0.01)
    tournament = record_match(store, "briscola-4", 2, upto=3)
    assert publisher.tag(friendly) is None  # begun before the box heard of any assignment
    assert publisher.tag(tournament) == "R1-1"
    publisher.outbox.save_assignment(*publisher.to_save.get_nowait())
    again = Publisher(cfg, tmp_path / "box-1" / DB_NAME, client_factory=lambda _: MagicMock())
    assert again.tag(tournament) == "R1-1"  # kept across a restart of the box
