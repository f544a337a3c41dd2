"""The room page, the export and the organiser's actions over HTTP (aiohttp's test client),
and the ``referee tournament`` command's config and export."""

from __future__ import annotations

import asyncio
import base64
import csv
import io
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from referee.cli import main
from referee.tournament import Entrant, Knockout, Register, Start
from referee.tournament.messages import topic
from referee.tournament_service.auth import hash_password
from referee.tournament_service.service import Service
from referee.tournament_service.store import TournamentStore
from referee.tournament_service.web import make_app
from tournament.boxes import box_store, messages, record_match

Client = TestClient[web.Request, web.Application]
PASSWORD = "arbitro-2026"
HASH = hash_password(PASSWORD, salt=b"0123456789abcdef")


def service_with_one_result(tmp: Path) -> Service:
    service = Service(TournamentStore.open(tmp / "t"))
    service.apply([Register(Entrant(f"p{i}", (f"Rossi{i}", f"Bianchi{i}"))) for i in range(4)]
                  + [Start(Knockout(2), seed=1)])
    store = box_store(tmp, 1)
    for m in messages(store, 1, record_match(store, "briscola-4", 11)):
        service.handle(topic(1, "record"), m.to_bytes())
    return service


def with_client(service: Service, body: Callable[[Client], Awaitable[None]]) -> None:
    async def go() -> None:
        async with TestClient(TestServer(make_app(service, HASH))) as client:
            await body(client)

    asyncio.run(go())


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def test_room_page_is_italian_by_default_and_english_on_request(tmp_path: Path) -> None:
    service = service_with_one_result(tmp_path)

    async def body(client: Client) -> None:
        page = await (await client.get("/")).text()
        assert "Tavoli in gioco" in page and "Tabellone" in page and "Classifica" in page
        assert "Tavolo 2" in page and "Tavolo 1<" not in page  # table 1 is done, the final waits
        assert "vincente R1-2" in page  # the other semi-final is still being played
        english = await (await client.get("/?lang=en")).text()
        assert "Tables in play" in english and "Bracket" in english

    with_client(service, body)


def test_page_gets_the_new_room_over_the_websocket(tmp_path: Path) -> None:
    service = service_with_one_result(tmp_path)

    async def body(client: Client) -> None:
        ws = await client.ws_connect("/ws")
        first = await ws.receive_str(timeout=5)
        assert "Tavolo 2" in first
        store = box_store(tmp_path, 2)
        for m in messages(store, 2, record_match(store, "briscola-4", 12)):
            service.handle(topic(2, "record"), m.to_bytes())
        update = await ws.receive_str(timeout=5)
        assert "vincente R1-2" not in update
        await ws.close()

    with_client(service, body)


def test_each_push_names_the_last_record_it_reflects_per_table(tmp_path: Path) -> None:
    """The room's live channel says which box record it shows, table by table (what the
    benchmark measures the delay to): a record taken is in the next push."""
    service = service_with_one_result(tmp_path)
    store = box_store(tmp_path, 2)
    msgs = messages(store, 2, record_match(store, "briscola-4", 12, upto=5))

    async def body(client: Client) -> None:
        ws = await client.ws_connect("/ws")
        first = await ws.receive_str(timeout=5)
        assert f'data-records="1:1:{len(messages(box_store(tmp_path, 1), 1, 1))}"' in first
        service.handle(topic(2, "record"), msgs[0].to_bytes())
        update = await ws.receive_str(timeout=5)
        assert f" 2:{msgs[0].match}:1\"" in update
        for m in msgs[1:]:
            service.handle(topic(2, "record"), m.to_bytes())
        while f" 2:{msgs[0].match}:{msgs[-1].seq}\"" not in update:
            update = await ws.receive_str(timeout=5)
        await ws.close()

    with_client(service, body)


def test_organiser_result_needs_the_password_and_records_who_and_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = service_with_one_result(tmp_path)
    match = service.tournament.matches["R1-2"]
    winner = service.tournament.entrants_of(match)[1]
    form: dict[str, object] = {"match": "R1-2", "winner": winner, "score": {}, "why": "tavolo senza box"}

    async def body(client: Client) -> None:
        assert (await client.post("/organiser/result", json=form)).status == 401
        wrong = await client.post("/organiser/result", json=form, headers=basic("Mario", "nope"))
        assert wrong.status == 401
        bad = await client.post("/organiser/result", json={**form, "winner": "p99"},
                                headers=basic("Mario", PASSWORD))
        assert bad.status == 400 and "p99" in await bad.text()
        ok = await client.post("/organiser/result", json=form, headers=basic("Mario", PASSWORD))
        assert ok.status == 200
        assert (await client.get("/organiser")).status == 401
        page = await client.get("/organiser", headers=basic("Mario", PASSWORD))
        assert page.status == 200 and 'value="R2-1"' in await page.text()

    with caplog.at_level(logging.INFO):
        with_client(service, body)
    correction = service.tournament.corrections[-1]
    assert (correction.who, correction.why, correction.after.winner) == ("Mario", "tavolo senza box", winner)
    assert PASSWORD not in caplog.text and "nope" not in caplog.text
    again = Service(TournamentStore.open(tmp_path / "t"))  # recorded, not just in memory
    assert again.tournament.corrections[-1].who == "Mario"


def test_results_export_and_match_records(tmp_path: Path) -> None:
    service = service_with_one_result(tmp_path)

    async def body(client: Client) -> None:
        rows = list(csv.DictReader(io.StringIO(await (await client.get("/export/results.csv")).text())))
        assert [r["match"] for r in rows] == ["R1-1", "R1-2", "R2-1"]
        assert rows[0]["source"] == "box" and rows[0]["winner"] and rows[1]["winner"] == ""
        records = await (await client.get("/export/records/table-1-match-1.jsonl")).text()
        lines = [json.loads(line) for line in records.splitlines()]
        assert lines[0]["seq"] == 1 and lines[-1]["body"]["call"] == "match_end"
        assert (await client.get("/export/records/table-7-match-1.jsonl")).status == 404
        state = await (await client.get("/state.json")).json()
        assert [t["table"] for t in state["tables"]] == [2]

    with_client(service, body)


def write_config(tmp: Path, extra: str = "") -> Path:
    (tmp / "organiser.hash").write_text(HASH + "\n")
    cfg = tmp / "tournament.toml"
    entrants = "".join(f'[[entrants]]\nid = "p{i}"\nmembers = ["A{i}", "B{i}"]\n' for i in range(3))
    cfg.write_text(f'state_dir = "state"\n[web]\norganiser_password_file = "organiser.hash"\n'
                   f'[format]\nkind = "knockout"\ntables = 2\n{extra}{entrants}')
    return cfg


def test_cli_export_draws_the_tournament_and_writes_the_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = write_config(tmp_path)
    assert main(["tournament", "--config", str(cfg), "--export", str(tmp_path / "out")]) == 0
    rows = (tmp_path / "out" / "results.csv").read_text().splitlines()
    assert rows[0].startswith("match,round,table") and len(rows) == 3  # 3 pairs: 2 matches


def test_cli_bad_config_key_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path, extra="rounds = 3\n")
    assert main(["tournament", "--config", str(cfg), "--export", str(tmp_path / "out")]) == 2
    assert "format.rounds: unknown key" in capsys.readouterr().err
