"""The console's JSON API against a real box: the PIN guards every change, a rejected event
records nothing, concurrent changes are recorded once each and in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from referee.box.app import Box
from referee.web.console import Console
from referee.web.gate import MAX_FAILURES
from referee.web.routes import broadcast, make_app
from web.helpers import PIN, make_box, pump_while

Client = TestClient[web.Request, web.Application]
AUTH = {"X-Referee-Pin": PIN}
DEAL = {"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "7H"}


def serve(box: Box, test: Callable[[Client, Console], Awaitable[None]], tmp_path: Path) -> None:
    console = Console(box, PIN, tmp_path / "console.json")

    async def go() -> None:
        async with TestClient(TestServer(make_app(console))) as client:
            await test(client, console)

    pump_while(console, lambda: asyncio.run(go()))


def recorded(box: Box) -> list[dict[str, Any]]:
    return box.store.events(box.match_id) if box.match_id is not None else []


def test_state_is_open_to_anyone_and_names_the_table(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        assert (await client.post("/api/events", json=DEAL, headers=AUTH)).status == 200
        state = await (await client.get("/api/state")).json()
        assert state["state"]["game"] == "belotta" and state["state"]["seats"] == ["N", "W", "S", "E"]
        assert state["state"]["dealer"] == "E" and state["state"]["trump_card"] is None
        assert state["configured"]["game"] == "belotta" and state["match"] == box.match_id

    serve(box, test, tmp_path)


@pytest.mark.parametrize("headers, status", [({}, 401), ({"X-Referee-Pin": "0000"}, 403),
                                             ({"X-Referee-Pin": ""}, 403)])
def test_a_change_without_the_pin_records_nothing(tmp_path: Path, headers: dict[str, str], status: int) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        for path, body in [("/api/events", DEAL), ("/api/undo", {}), ("/api/next-deal", {}),
                           ("/api/end-match", {}), ("/api/answer", {"question": 1}),
                           ("/api/setup", {"table": 3})]:
            response = await client.post(path, json=body, headers=headers)
            assert response.status in allowed(path), path
            assert "error" in await response.json()
        for path in ["/api/matches", "/api/matches.csv", "/api/matches/1.jsonl", "/api/deal-card"]:
            assert (await client.get(path, headers=headers)).status in allowed(path), path

    def allowed(path: str) -> set[int]:  # wrong PINs: after MAX_FAILURES of them, 429
        return {status} if status == 401 or path == "/api/events" else {status, 429}

    serve(box, test, tmp_path)
    assert box.match_id is None and box.store.matches() == []
    assert not (tmp_path / "console.json").exists()


def test_login_cookie_allows_changes_and_logout_ends_it(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        assert (await client.post("/api/login", json={"pin": "1234"})).status == 403
        login = await client.post("/api/login", json={"pin": PIN})
        assert login.status == 200 and "HttpOnly" in login.headers["Set-Cookie"]
        assert PIN not in login.headers["Set-Cookie"]
        assert (await client.post("/api/events", json=DEAL)).status == 200
        await client.post("/api/logout")
        assert (await client.post("/api/undo")).status == 401

    serve(box, test, tmp_path)
    assert recorded(box) == [DEAL]


def test_the_pin_never_reaches_the_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        await client.post("/api/events", json=DEAL, headers={"X-Referee-Pin": "9876"})
        await client.post("/api/login", json={"pin": "9876"})
        await client.post("/api/events", json=DEAL, headers=AUTH)

    caplog.set_level("DEBUG")
    serve(box, test, tmp_path)
    assert "wrong table PIN" in caplog.text
    assert "9876" not in caplog.text and PIN not in caplog.text


def test_wrong_pins_are_rate_limited_per_client_even_the_right_one_then(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        for _ in range(MAX_FAILURES):
            assert (await client.post("/api/events", json=DEAL, headers={"X-Referee-Pin": "0000"})).status == 403
        assert (await client.post("/api/events", json=DEAL, headers=AUTH)).status == 429
        assert (await client.post("/api/login", json={"pin": PIN})).status == 429

    serve(box, test, tmp_path)
    assert recorded(box) == []


def test_a_rules_error_gives_the_reason_and_records_nothing(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        first = await client.post("/api/events", json={"event": "play", "seat": "N", "card": "7S"}, headers=AUTH)
        assert first.status == 422 and "deal" in (await first.json())["error"]
        assert (await client.post("/api/events", json=DEAL, headers=AUTH)).status == 200
        bad = await client.post("/api/events", json={"event": "contract", "seat": "X", "trump": "H"}, headers=AUTH)
        body = await bad.json()
        assert bad.status == 422 and "'seat'" in body["error"] and body["call"]["call"] == "error"

    serve(box, test, tmp_path)
    assert recorded(box) == [DEAL]  # the refused play began no match; the bad contract is not there
    assert len(box.store.matches()) == 1


@pytest.mark.parametrize("body, says", [
    (b'{"event": "deal", "event": "play"}', "twice"),
    (b'{"event": NaN}', "NaN"),
    (b"[1, 2]", "object"),
    (b'{"seat": "N"}', "key 'event'"),
    (b'{"event": "confirm"}', "/api/answer"),
])
def test_a_bad_body_is_400_naming_why(tmp_path: Path, body: bytes, says: str) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        response = await client.post("/api/events", data=body, headers=AUTH)
        assert response.status == 400 and says in (await response.json())["error"]

    serve(box, test, tmp_path)
    assert recorded(box) == []


def test_two_concurrent_posts_record_two_events_in_order(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    plays = [{"event": "contract", "seat": "S", "trump": "H"}]

    async def test(client: Client, console: Console) -> None:
        assert (await client.post("/api/events", json=DEAL, headers=AUTH)).status == 200
        await client.post("/api/events", json={"event": "via", "seat": "S"}, headers=AUTH)
        contract = plays[0]
        # the same contract from two phones at once: exactly one is taken
        one, two = await asyncio.gather(*(client.post("/api/events", json=contract, headers=AUTH)
                                          for _ in range(2)))
        assert sorted([one.status, two.status]) == [200, 422]

    serve(box, test, tmp_path)
    events = recorded(box)
    assert events.count(plays[0]) == 1 and events[0] == DEAL


def test_many_concurrent_plays_are_recorded_once_each_in_the_order_taken(tmp_path: Path) -> None:
    box = make_box(tmp_path, "briscola-2", '["N", "S"]')
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "denari_10"}
    cards = ["bastoni_9", "coppe_3"]

    async def test(client: Client, console: Console) -> None:
        await client.post("/api/events", json=deal, headers=AUTH)
        first = {"event": "play", "seat": "N", "card": cards[0]}
        second = {"event": "play", "seat": "S", "card": cards[1]}
        a, b = await asyncio.gather(client.post("/api/events", json=first, headers=AUTH),
                                    client.post("/api/events", json=second, headers=AUTH))
        assert (a.status, b.status) == (200, 200)

    serve(box, test, tmp_path)
    events = recorded(box)
    assert [e.get("card") for e in events[1:]] == cards
    calls = box.store.calls(box.match_id)  # type: ignore[arg-type]
    assert [c["call"] for c in calls].count("trick") == 1


def test_state_after_events_shows_contract_turn_trick_and_score(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    events = [DEAL, {"event": "contract", "seat": "S", "trump": "H"},
              {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]},
              {"event": "play", "seat": "S", "card": "7S"}]

    async def test(client: Client, console: Console) -> None:
        for event in events:
            response = await client.post("/api/events", json=event, headers=AUTH)
            assert response.status == 200, await response.text()
        state = (await (await client.get("/api/state")).json())["state"]
        assert state["trump"] == "H" and state["contract"]["seat"] == "S"
        assert state["trick"]["plays"] == [["S", "7S"]] and state["turn"] == "N"
        assert set(state["points"]) == {"N+S", "W+E"}
        assert (await (await client.get("/api/state")).json())["goal"] == {"target": 151}

    serve(box, test, tmp_path)


def test_undo_next_deal_and_end_match(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        await client.post("/api/events", json=DEAL, headers=AUTH)
        await client.post("/api/events", json={"event": "contract", "seat": "S", "trump": "H"}, headers=AUTH)
        await client.post("/api/events", json={"event": "play", "seat": "S", "card": "7S"}, headers=AUTH)
        undone = await client.post("/api/undo", headers=AUTH)
        assert undone.status == 200 and (await undone.json())["calls"][0]["call"] == "undo"
        ended = await (await client.post("/api/end-match", headers=AUTH)).json()
        assert ended["ended"] == 1
        state = await (await client.get("/api/state")).json()
        assert state["match"] is None and state["state"]["game"] is None
        again = await client.post("/api/next-deal", json={"dealer": "E", "turned": "8D"}, headers=AUTH)
        assert again.status == 200, await again.text()

    serve(box, test, tmp_path)
    assert [m.id for m in box.store.matches()] == [1, 2]
    assert box.store.events(2)[0]["turned"] == "8D"


def test_history_exports_exactly_the_record(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    got: dict[str, str] = {}

    async def test(client: Client, console: Console) -> None:
        await client.post("/api/events", json=DEAL, headers=AUTH)
        await client.post("/api/events", json={"event": "contract", "seat": "S", "trump": "H"}, headers=AUTH)
        listing = await (await client.get("/api/matches", headers=AUTH)).json()
        assert [m["id"] for m in listing["matches"]] == [1]
        got["events"] = await (await client.get("/api/matches/1.jsonl", headers=AUTH)).text()
        got["calls"] = await (await client.get("/api/matches/1.jsonl?calls=1", headers=AUTH)).text()
        got["csv"] = await (await client.get("/api/matches.csv", headers=AUTH)).text()
        assert (await client.get("/api/matches/9.jsonl", headers=AUTH)).status == 404

    serve(box, test, tmp_path)
    assert [json.loads(line) for line in got["events"].splitlines()] == box.store.events(1)
    assert [json.loads(line) for line in got["calls"].splitlines()] == box.store.calls(1)
    rows = got["csv"].splitlines()
    assert rows[0].startswith("match,game") and rows[1].startswith("1,belotta")


def test_setup_saves_table_number_and_names(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        saved = await client.post("/api/setup", json={"table": 7, "names": {"N": "Anna", "S": "Bruno"}}, headers=AUTH)
        assert saved.status == 200
        bad = await client.post("/api/setup", json={"table": 0}, headers=AUTH)
        assert bad.status == 400 and "'table'" in (await bad.json())["error"]
        state = await (await client.get("/api/state")).json()
        assert state["table"] == 7 and state["names"] == {"N": "Anna", "S": "Bruno"}

    serve(box, test, tmp_path)
    assert json.loads((tmp_path / "console.json").read_text())["table"] == 7


def test_pages_are_italian_by_default_and_english_on_request(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        assert "Tabellone" in await (await client.get("/")).text()
        assert "Scoreboard" in await (await client.get("/?lang=en")).text()
        english = await client.get("/operator", headers={"Accept-Language": "en-GB,en;q=0.9,it;q=0.5"})
        assert "Operator" in await english.text()
        assert (await client.get("/static/console.js")).status == 200
        assert (await client.get("/static/..%2Fpages.py")).status == 404

    serve(box, test, tmp_path)


def test_live_socket_gets_the_table_when_an_event_is_recorded(tmp_path: Path) -> None:
    box = make_box(tmp_path)

    async def test(client: Client, console: Console) -> None:
        loop = asyncio.get_running_loop()
        app = client.app
        assert app is not None

        def publish(snapshot: dict[str, Any]) -> None:  # what ConsoleServer does
            loop.call_soon_threadsafe(broadcast, app, snapshot)

        console.publish = publish
        ws = await client.ws_connect("/api/live")
        first = json.loads((await ws.receive()).data)
        assert first["match"] is None
        await client.post("/api/events", json=DEAL, headers=AUTH)
        while True:
            snap = json.loads((await asyncio.wait_for(ws.receive(), 5)).data)
            if snap["match"] is not None:
                break
        assert snap["state"]["game"] == "belotta"
        await ws.close()

    serve(box, test, tmp_path)
