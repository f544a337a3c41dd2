"""Answering the referee's question from a phone: only the open question's id is answered,
the same answer twice (two phones, a double tap) records one play, and any card may be named."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from box.helpers import BRISCOLA4_DEAL
from tracker_doubles import StubTracker

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
