"""Property: whatever the network does to the boxes' messages (drops, repeats, reorders), the
service's record ends equal to the boxes' records, each record once, each result applied once,
given only what the design relies on: a box answers ``resend`` from its record and repeats its
status."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament import BoxResult, Entrant, Knockout, Register, Start
from referee.tournament.messages import RecordMessage, ResendRequest, StatusMessage, topic
from referee.tournament_service.service import Service
from referee.tournament_service.store import TournamentStore
from tournament.boxes import box_store, messages, record_match


@cache
def box_messages() -> dict[int, list[RecordMessage]]:
    """One whole briscola-4 match at each of tables 1 and 2 (recorded once, reused)."""
    folder = Path(tempfile.mkdtemp(prefix="boxes-"))
    out = {}
    for table, seed in ((1, 31), (2, 32)):
        store = box_store(folder, table)
        out[table] = messages(store, table, record_match(store, "briscola-4", seed))
        store.close()
    return out


@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_service_record_equals_the_boxes_records_whatever_the_network_does(data: st.DataObject) -> None:
    boxes = box_messages()
    wire = [m for table in boxes for m in boxes[table]]
    # the network: each message dropped, delivered once or twice, in a shuffled order
    copies = data.draw(st.lists(st.integers(0, 2), min_size=len(wire), max_size=len(wire)))
    sent = [m for m, n in zip(wire, copies, strict=True) for _ in range(n)]
    order = data.draw(st.permutations(range(len(sent))))
    queue = [sent[i] for i in order]
    batch = data.draw(st.integers(1, 64))  # messages the service records per transaction
    with tempfile.TemporaryDirectory() as tmp:
        def send(name: str, payload: bytes, retain: bool) -> None:
            if name.endswith("/resend"):  # the box publishes that match again from its record
                request = ResendRequest.parse(payload)
                table = int(name.split("/")[1].removeprefix("table-"))
                queue.extend(m for m in boxes[table] if m.seq >= request.from_seq)

        now = [0.0]  # the same gap is asked once per status round
        service = Service(TournamentStore.open(Path(tmp)), send, clock=lambda: now[0])
        service.apply([Register(Entrant(f"p{i}", (f"A{i}", f"B{i}"))) for i in range(4)]
                      + [Start(Knockout(2), seed=1)])
        for _ in range(3):  # the boxes' status repeats until nothing is missing
            now[0] += 60.0
            while queue:
                taken, queue[:batch] = queue[:batch], []
                service.handle_batch([(topic(m.table, "record"), m.to_bytes()) for m in taken])
            for table, msgs in boxes.items():
                status = StatusMessage(table, True, {msgs[0].match: msgs[-1].seq})
                service.handle(topic(table, "status"), status.to_bytes())
        for table, msgs in boxes.items():
            recorded = list(service.store.records(table, msgs[0].match))
            assert recorded == [(m.seq, m.kind, dict(m.body)) for m in msgs]
        results = [(a.table, a.box_match) for a in service.store.actions() if isinstance(a, BoxResult)]
        assert sorted(results) == [(1, boxes[1][0].match), (2, boxes[2][0].match)]
        service.store.close()
