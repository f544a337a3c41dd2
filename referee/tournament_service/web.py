"""The room page and the organiser's actions over HTTP (aiohttp: one package for the server,
the WebSocket that keeps the page live and the test client).

    GET  /                      the room page (Italian; ``?lang=en``), live over /ws
    GET  /state.json            tables, matches and standings as data (the phone console's feed)
    GET  /export/results.csv    the results
    GET  /export/records/table-N-match-M.jsonl   one box match's records
    GET  /organiser             the organiser's form (HTTP Basic auth, as below)
    POST /organiser/result      {"match", "winner", "score", "why"}: HTTP Basic auth, the user
                                name is who entered it; the password is checked in constant time
                                and never logged
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import re
from html import escape
from typing import Any

from aiohttp import WSMsgType, web

from referee.tournament import OrganiserResult, TournamentError
from referee.tournament_service.auth import check_password
from referee.tournament_service.export import match_records_jsonl, results_csv
from referee.tournament_service.room import render_page, render_room
from referee.tournament_service.service import LiveTable, Service, assignment_dict

log = logging.getLogger("referee.tournament.web")

SERVICE = web.AppKey("service", Service)
ORGANISER = web.AppKey("organiser", str)
LANGUAGE = web.AppKey("language", str)
SOCKETS: web.AppKey[set[tuple[web.WebSocketResponse, str]]] = web.AppKey("sockets")


def _language(request: web.Request) -> str:
    lang = request.query.get("lang", request.app[LANGUAGE])
    return lang if lang in ("it", "en") else "it"


async def page(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    with service.lock:
        html = render_page(service.tournament, service.live, _language(request))
    return web.Response(text=html, content_type="text/html")


async def state_json(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    with service.lock:
        t = service.tournament
        data: dict[str, Any] = {
            "started": t.format is not None,
            "finished": t.finished,
            "champion": t.champion.id if t.champion else None,
            "tables": [assignment_dict(a, a.table, t.format.game if t.format else None) | {
                "score": service.live[a.table].score if a.table in service.live else {},
                "online": service.live[a.table].online if a.table in service.live else None,
                "deck_file": _deck_report(service.live.get(a.table)),
            } for a in t.tables()],
            "matches": [{"id": m.id, "round": m.round, "table": m.table,
                         "entrants": t.entrants_of(m),
                         "winner": m.result.winner if m.result else None,
                         "score": dict(m.result.score) if m.result else None}
                        for m in t.matches.values()],
            "standings": [{"entrant": s.entrant.id, "name": s.entrant.name, "points": s.points,
                           "played": s.played, "won": s.won, "out_in_round": s.out_in_round}
                          for s in t.standings()],
            "rejected": dict(service.rejected),
        }
    return web.json_response(data)


def _deck_report(live: LiveTable | None) -> dict[str, Any] | None:
    """The box's word on the deck's enrolment file (``error`` None: it recognises with it)."""
    if live is None or live.deck is None:
        return None
    return {"sha256": live.deck.sha256, "error": live.deck.error}


async def export_csv(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    with service.lock:
        text = results_csv(service.tournament)
    return web.Response(text=text, content_type="text/csv", charset="utf-8",
                        headers={"Content-Disposition": 'attachment; filename="results.csv"'})


async def export_records(request: web.Request) -> web.Response:
    m = re.fullmatch(r"table-(\d+)-match-(\d+)\.jsonl", request.match_info["name"])
    if m is None:
        raise web.HTTPNotFound(text="expected table-N-match-M.jsonl")
    service = request.app[SERVICE]
    with service.lock:
        text = match_records_jsonl(service.store, int(m.group(1)), int(m.group(2)))
    if not text:
        raise web.HTTPNotFound(text=f"no records of table {m.group(1)} match {m.group(2)}")
    return web.Response(text=text, content_type="application/x-ndjson", charset="utf-8")


def _organiser(request: web.Request) -> str:
    """The organiser's name from HTTP Basic auth, once the password checks; else 401."""
    challenge = {"WWW-Authenticate": 'Basic realm="organiser", charset="UTF-8"'}
    header = request.headers.get("Authorization", "")
    scheme, _, encoded = header.partition(" ")
    try:
        user, sep, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        sep = ""
    if scheme.lower() != "basic" or not sep or not user.strip():
        raise web.HTTPUnauthorized(text="organiser login needed", headers=challenge)
    if not check_password(password, request.app[ORGANISER]):
        log.warning("organiser login refused for %r from %s", user, request.remote)
        raise web.HTTPUnauthorized(text="wrong organiser password", headers=challenge)
    return user.strip()


async def organiser_result(request: web.Request) -> web.Response:
    who = _organiser(request)
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="expected a JSON object") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="expected a JSON object")
    score = body.get("score", {})
    try:
        if not isinstance(score, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in score.values()
        ):
            raise TournamentError("score: expected an object of integer points per entrant")
        for key in ("match", "why"):
            if not isinstance(body.get(key), str):
                raise TournamentError(f"{key}: expected a string")
        winner = body.get("winner")
        if winner is not None and not isinstance(winner, str):
            raise TournamentError("winner: expected an entrant id or null")
        action = OrganiserResult(body["match"], winner, score, who, body["why"])
        request.app[SERVICE].apply([action])
    except TournamentError as exc:
        raise web.HTTPBadRequest(text=str(exc)) from None
    log.info("organiser %s: result for %s (%s)", who, action.match, action.why)
    return web.json_response({"ok": True, "match": action.match})


ORGANISER_PAGE = """<!doctype html>
<html lang="it"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Organizzatore</title>
<style>body {{ font-family: sans-serif; margin: 1em; }} label {{ display: block; margin: .5em 0; }}</style>
</head><body><h1>Risultato a mano o correzione</h1><p>Organizzatore: {who}</p>
<form id="f">
<label>Partita <select name="match">{matches}</select></label>
<label>Vincitore (id) <input name="winner" required></label>
<label>Punteggio (id=punti, separati da spazi) <input name="score"></label>
<label>Motivo <input name="why" required></label>
<button>Registra</button></form><p id="out"></p>
<script>
document.getElementById("f").onsubmit = async (e) => {{
  e.preventDefault();
  const f = new FormData(e.target), score = {{}};
  for (const part of (f.get("score") || "").split(/\\s+/).filter(Boolean)) {{
    const [k, v] = part.split("="); score[k] = parseInt(v, 10);
  }}
  const r = await fetch("/organiser/result", {{method: "POST", credentials: "same-origin",
    headers: {{"Content-Type": "application/json"}},
    body: JSON.stringify({{match: f.get("match"), winner: f.get("winner"), score, why: f.get("why")}})}});
  document.getElementById("out").textContent = r.ok ? "registrato" : await r.text();
}};
</script></body></html>
"""


async def organiser_page(request: web.Request) -> web.Response:
    who = _organiser(request)
    service = request.app[SERVICE]
    with service.lock:
        t = service.tournament
        options = "".join(
            f'<option value="{escape(m.id)}">{escape(m.id)}: '
            f'{escape(" - ".join(e or "?" for e in t.entrants_of(m)))}</option>'
            for m in t.matches.values())
    return web.Response(text=ORGANISER_PAGE.format(who=escape(who), matches=options),
                        content_type="text/html")


async def websocket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    language = _language(request)
    service = request.app[SERVICE]
    with service.lock:
        await ws.send_str(render_room(service.tournament, service.live, language))
    request.app[SOCKETS].add((ws, language))
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        request.app[SOCKETS].discard((ws, language))
    return ws


def make_app(service: Service, organiser_hash: str, language: str = "it") -> web.Application:
    app = web.Application()
    app[SERVICE], app[ORGANISER], app[LANGUAGE] = service, organiser_hash, language
    app[SOCKETS] = set()
    app.router.add_get("/", page)
    app.router.add_get("/state.json", state_json)
    app.router.add_get("/ws", websocket)
    app.router.add_get("/export/results.csv", export_csv)
    app.router.add_get("/export/records/{name}", export_records)
    app.router.add_get("/organiser", organiser_page)
    app.router.add_post("/organiser/result", organiser_result)

    async def live_updates(app: web.Application) -> Any:
        """Every change of the service (any thread) renders the room once per language and
        sends it to every open page."""
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def listener() -> None:
            loop.call_soon_threadsafe(changed.set)

        async def push() -> None:
            while True:
                await changed.wait()
                changed.clear()
                sockets = app[SOCKETS].copy()
                rendered: dict[str, str] = {}
                with service.lock:
                    for _, lang in sockets:
                        if lang not in rendered:
                            rendered[lang] = render_room(service.tournament, service.live, lang)
                for ws, lang in sockets:
                    if not ws.closed:
                        await ws.send_str(rendered[lang])
                await asyncio.sleep(0.2)  # at most five updates a second per page

        service.listeners.append(listener)
        task = asyncio.create_task(push())
        yield
        service.listeners.remove(listener)
        task.cancel()

    app.cleanup_ctx.append(live_updates)
    return app
