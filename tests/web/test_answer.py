"""Answering the referee's question from a phone: only the open question's id is answered,
the same answer twice (two phones, a double tap) records one play, and any card may be named."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from box.helpers import BRISCOLA4_DEAL
from tracker_doubles import StubTracker

from referee.box.screens import ConfirmScreen
from referee.table.question import QuestionKind
from referee.web.console import Console
from web.helpers import make_box
from web.test_api import AUTH, Client, recorded, serve


def test_a_question_is_answered_once_with_any_card(tmp_path: Path) -> None:
    box = make_box(tmp_path, "briscola-4", '["N", "W", "S", "E"]')
    box.start()
    box.attach_vision(StubTracker(None))
    box.handle(BRISCOLA4_DEAL)
    box.handle({"event": "play", "seat": "N", "card": "spade_3", "t": 1.0}, source_pos=1)
    box.handle({"event": "play", "seat": "W", "card": "spade_7", "confidence": 0.5,
                "alternatives": ["spade_6"], "t": 2.0}, source_pos=2)
    asked: dict[str, Any] = {}

    async def test(client: Client, console: Console) -> None:
        question = (await (await client.get("/api/state")).json())["state"]["question"]
        asked.update(question)
        late = await client.post("/api/answer", json={"question": question["id"] + 1, "card": "spade_7"}, headers=AUTH)
        assert late.status == 409 and "not open" in (await late.json())["error"]
        both = await asyncio.gather(*(client.post("/api/answer", json={"question": question["id"], "card": "spade_1"},
                                                  headers=AUTH) for _ in range(2)))
        assert sorted(r.status for r in both) == [200, 409]
        state = (await (await client.get("/api/state")).json())["state"]
        assert state["question"] is None and state["trick"]["plays"] == [["N", "spade_3"], ["W", "spade_1"]]
        bad = await client.post("/api/answer", json={"question": question["id"], "accept": "yes"}, headers=AUTH)
        assert bad.status == 400 and "'accept'" in (await bad.json())["error"]

    serve(box, test, tmp_path)
    assert asked["seat"] == "W" and asked["card"] == "spade_7" and asked["alternatives"] == ["spade_6"]
    named = [e for e in recorded(box) if e.get("seat") == "W"]
    assert named == [{"event": "play", "seat": "W", "card": "spade_1", "confirmed": True}]


def test_an_event_logs_unsure_play_is_asked_on_the_console_too(tmp_path: Path) -> None:
    # a box without a camera (plays from an event log) holds an unsure play as its own
    # question: the phone sees it with an id, answers it once, and the display's question closes
    box = make_box(tmp_path, "briscola-4", '["N", "W", "S", "E"]')
    box.start()
    box.handle(BRISCOLA4_DEAL)
    box.handle({"event": "play", "seat": "N", "card": "spade_3"}, source_pos=1)
    box.handle({"event": "play", "seat": "W", "card": "spade_7", "confidence": 0.5,
                "alternatives": ["spade_6"]}, source_pos=2)
    assert box.question is not None and box.question.kind is QuestionKind.UNSURE
    assert box.display.last == ConfirmScreen("W", "spade_7")  # type: ignore[attr-defined]
    asked: dict[str, Any] = {}

    async def test(client: Client, console: Console) -> None:
        question = (await (await client.get("/api/state")).json())["state"]["question"]
        asked.update(question)
        both = await asyncio.gather(*(client.post("/api/answer", json={"question": question["id"], "card": "spade_6"},
                                                  headers=AUTH) for _ in range(2)))
        assert sorted(r.status for r in both) == [200, 409]
        state = (await (await client.get("/api/state")).json())["state"]
        assert state["question"] is None and state["trick"]["plays"] == [["N", "spade_3"], ["W", "spade_6"]]

    serve(box, test, tmp_path)
    assert asked["seat"] == "W" and asked["card"] == "spade_7" and asked["alternatives"] == ["spade_6"]
    assert recorded(box)[-1] == {"event": "play", "seat": "W", "card": "spade_6", "confirmed": True}
    assert box.question is None and box.pending is None


def test_no_to_an_event_logs_unsure_play_records_nothing(tmp_path: Path) -> None:
    box = make_box(tmp_path, "briscola-4", '["N", "W", "S", "E"]')
    box.start()
    box.handle(BRISCOLA4_DEAL)
    box.handle({"event": "play", "seat": "N", "card": "spade_3", "uncertain": True}, source_pos=1)
    assert box.question is not None
    question_id = box.question.id

    async def test(client: Client, console: Console) -> None:
        answered = await client.post("/api/answer", json={"question": question_id, "accept": False}, headers=AUTH)
        assert answered.status == 200 and (await answered.json())["calls"] == []
        assert (await (await client.get("/api/state")).json())["state"]["question"] is None

    serve(box, test, tmp_path)
    assert [e["event"] for e in recorded(box)] == ["deal"] and box.question is None
