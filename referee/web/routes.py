"""The console over HTTP (aiohttp): pages, the JSON API and the live WebSocket.

    GET  /                    scoreboard (anyone; Italian, ``?lang=en`` or Accept-Language)
    GET  /operator            operator view (its actions need the table PIN)
    GET  /history             match history, exports (needs the PIN)
    GET  /api/state           the table now (anyone)
    GET  /api/live            WebSocket: the table again whenever it changes (anyone)
    POST /api/login           {"pin": ...}: a session cookie; POST /api/logout
    POST /api/events          one event in the event-log schema -> {"calls": [...]} or 422 {"error"}
    POST /api/answer          {"question": id, "accept": bool, "card": code} -> {"calls"} or 409
    POST /api/undo | /api/next-deal | /api/end-match | /api/setup
    GET  /api/deal-card       the face-up card the camera reads now (offered first)
    GET  /api/matches | /api/matches.csv | /api/matches/{id}.jsonl[?calls=1]
    GET  /api/matches/{id}/frames | /api/matches/{id}/frames/{event}.jpg   frames for a dispute

Every change needs the PIN (header ``X-Referee-Pin`` or the login cookie): none is 401, a
wrong one 403, too many wrong ones from one client 429; nothing is recorded then. Every
request that reads or changes the table runs in the box's main loop (:mod:`referee.web.mailbox`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

from referee.jsonl import MAX_LINE_BYTES, JsonLineError, parse_line
from referee.table.answer import Answer, AnswerError
from referee.table.refused import Refused
from referee.web.console import Console
from referee.web.gate import Verdict
from referee.web.pages import language, render_page
from referee.web.setup import SetupError, TableSetup

log = logging.getLogger("referee.web")

CONSOLE = web.AppKey("console", Console)
LIVE: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("live")
COOKIE = "referee_session"
STATIC = Path(__file__).parent / "static"
T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def make_app(console: Console) -> web.Application:
    app = web.Application(client_max_size=MAX_LINE_BYTES + 1024, middlewares=[_headers])
    app[CONSOLE] = console
    app[LIVE] = set()
    app.add_routes([
        web.get("/", _page("scoreboard")),
        web.get("/operator", _page("operator")),
        web.get("/history", _page("history")),
        web.get("/static/{name}", static),
        web.get("/api/state", state),
        web.get("/api/live", live),
        web.post("/api/login", login),
        web.post("/api/logout", logout),
        web.post("/api/events", _guarded(events)),
        web.post("/api/answer", _guarded(answer)),
        web.post("/api/undo", _guarded(undo)),
        web.post("/api/next-deal", _guarded(next_deal)),
        web.post("/api/end-match", _guarded(end_match)),
        web.post("/api/setup", _guarded(setup)),
        web.get("/api/deal-card", _guarded(deal_card)),
        web.get("/api/matches", _guarded(matches)),
        web.get("/api/matches.csv", _guarded(matches_csv)),
        web.get("/api/matches/{id}.jsonl", _guarded(match_jsonl)),
        web.get("/api/matches/{id}/frames", _guarded(match_frames)),
        web.get("/api/matches/{id}/frames/{event}.jpg", _guarded(frame_jpeg)),
    ])
    app.on_shutdown.append(_close_live)
    return app


@web.middleware
async def _headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


async def _in_box(request: web.Request, job: Callable[[], T]) -> T:
    """Run ``job`` in the box's main loop and wait for it."""
    return await asyncio.wrap_future(request.app[CONSOLE].mailbox.post(job))


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


# -- the PIN ---------------------------------------------------------------------------
def _denied(request: web.Request) -> web.Response | None:
    """Why a change is not allowed (401, 403, 429), or None: it is."""
    gate = request.app[CONSOLE].gate
    pin = request.headers.get("X-Referee-Pin")
    if pin is not None:
        verdict = gate.check(pin, request.remote or "?")
        if verdict is Verdict.LIMITED:
            return _error(429, "too many wrong PINs from this device: wait a minute")
        if verdict is Verdict.WRONG:
            log.warning("wrong table PIN from %s", request.remote)
            return _error(403, "wrong table PIN")
        return None
    token = request.cookies.get(COOKIE)
    if token and gate.session_ok(token):
        return None
    return _error(401, "the table PIN is needed: header X-Referee-Pin, or POST /api/login first")


def _guarded(handler: Handler) -> Handler:
    async def guarded(request: web.Request) -> web.StreamResponse:
        denied = _denied(request)
        return denied if denied is not None else await handler(request)

    guarded.__name__ = handler.__name__
    return guarded


async def login(request: web.Request) -> web.Response:
    body = await _json_body(request)
    if isinstance(body, web.Response):
        return body
    pin = body.get("pin")
    if not isinstance(pin, str):
        return _error(400, "key 'pin': the table PIN as a string")
    gate = request.app[CONSOLE].gate
    verdict = gate.check(pin, request.remote or "?")
    if verdict is Verdict.LIMITED:
        return _error(429, "too many wrong PINs from this device: wait a minute")
    if verdict is Verdict.WRONG:
        log.warning("wrong table PIN from %s", request.remote)
        return _error(403, "wrong table PIN")
    response = web.json_response({"ok": True})
    response.set_cookie(COOKIE, gate.open_session(), httponly=True, samesite="Strict", path="/")
    return response


async def logout(request: web.Request) -> web.Response:
    token = request.cookies.get(COOKIE)
    if token:
        request.app[CONSOLE].gate.close_session(token)
    response = web.json_response({"ok": True})
    response.del_cookie(COOKIE, path="/")
    return response


# -- reading ---------------------------------------------------------------------------
async def state(request: web.Request) -> web.Response:
    desk = request.app[CONSOLE].desk
    return web.json_response(await _in_box(request, desk.snapshot))


async def live(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    desk = request.app[CONSOLE].desk
    request.app[LIVE].add(ws)
    try:
        await ws.send_str(json.dumps(await _in_box(request, desk.snapshot)))
        async for msg in ws:  # the page sends nothing; this waits for it to go
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        request.app[LIVE].discard(ws)
    return ws


def broadcast(app: web.Application, snapshot: dict[str, Any]) -> None:
    """Send ``snapshot`` to every live page (in the server's loop)."""
    text = json.dumps(snapshot)
    pages: set[web.WebSocketResponse] = app[LIVE]
    for ws in list(pages):
        if ws.closed:
            pages.discard(ws)
            continue
        task = asyncio.ensure_future(ws.send_str(text))
        task.add_done_callback(_sent)


def _sent(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("a live page went away: %s", task.exception())


async def _close_live(app: web.Application) -> None:
    pages: set[web.WebSocketResponse] = app[LIVE]
    for ws in list(pages):
        await ws.close()


def _page(view: str) -> Handler:
    async def page(request: web.Request) -> web.Response:
        return web.Response(text=render_page(view, language(request)), content_type="text/html")

    return page


async def static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    path = STATIC / name
    if "/" in name or name.startswith(".") or not path.is_file():
        raise web.HTTPNotFound()
    return web.FileResponse(path)


# -- changing --------------------------------------------------------------------------
async def _json_body(request: web.Request) -> dict[str, Any] | web.Response:
    """The request's JSON object, read by the strict reader of event logs (a bad body is 400
    naming what is wrong)."""
    try:
        data = await request.read()
    except web.HTTPRequestEntityTooLarge:
        return _error(413, f"body longer than {MAX_LINE_BYTES} bytes")
    try:
        body = parse_line(data, 1)
    except JsonLineError as exc:
        return _error(400, f"body: {str(exc).removeprefix('line 1: ')}")
    return body if body is not None else {}


def _result(done: list[dict[str, Any]] | Refused, refused_status: int = 422) -> web.Response:
    if isinstance(done, Refused):
        return web.json_response({"error": done.detail, "call": done.to_call()}, status=refused_status)
    return web.json_response({"calls": done})


async def events(request: web.Request) -> web.Response:
    event = await _json_body(request)
    if isinstance(event, web.Response):
        return event
    kind = event.get("event")
    if not isinstance(kind, str):
        return _error(400, "key 'event': the event's kind, e.g. \"play\", as a string")
    if kind == "confirm":
        return _error(400, "a 'confirm' answers a question: POST it to /api/answer with the question's id")
    desk = request.app[CONSOLE].desk
    return _result(await _in_box(request, lambda: desk.submit(event)))


async def answer(request: web.Request) -> web.Response:
    body = await _json_body(request)
    if isinstance(body, web.Response):
        return body
    question = body.pop("question", None)
    if isinstance(question, bool) or not isinstance(question, int):
        return _error(400, "key 'question': the id of the question answered (GET /api/state)")
    unknown = sorted(set(body) - {"accept", "card", "seat"})
    if unknown:
        return _error(400, f"confirm: unknown key {unknown[0]!r}")
    try:
        given = Answer.from_event(body)
    except AnswerError as exc:
        return _error(400, str(exc))
    desk = request.app[CONSOLE].desk
    return _result(await _in_box(request, lambda: desk.answer(question, given)), refused_status=409)


async def undo(request: web.Request) -> web.Response:
    desk = request.app[CONSOLE].desk
    return _result(await _in_box(request, lambda: desk.submit({"event": "undo"})))


async def next_deal(request: web.Request) -> web.Response:
    body = await _json_body(request)
    if isinstance(body, web.Response):
        return body
    unknown = sorted(set(body) - {"dealer", "trump_card", "turned"})
    if unknown:
        return _error(400, f"next deal: unknown key {unknown[0]!r} (dealer, trump_card, turned)")
    desk = request.app[CONSOLE].desk
    return _result(await _in_box(request, lambda: desk.next_deal(body)))


async def end_match(request: web.Request) -> web.Response:
    desk = request.app[CONSOLE].desk
    return web.json_response({"ended": await _in_box(request, desk.end_match)})


async def setup(request: web.Request) -> web.Response:
    body = await _json_body(request)
    if isinstance(body, web.Response):
        return body
    try:
        given = TableSetup.from_dict(body)
    except SetupError as exc:
        return _error(400, str(exc))
    desk = request.app[CONSOLE].desk
    try:
        saved = await _in_box(request, lambda: desk.set_setup(given))
    except OSError as exc:
        return _error(500, f"the table setup could not be saved: {exc.strerror or exc}")
    return web.json_response(saved.to_dict())


async def deal_card(request: web.Request) -> web.Response:
    desk = request.app[CONSOLE].desk
    return web.json_response({"card": await _in_box(request, desk.deal_card_guess)})


async def matches(request: web.Request) -> web.Response:
    desk = request.app[CONSOLE].desk
    return web.json_response({"matches": await _in_box(request, desk.matches)})


async def matches_csv(request: web.Request) -> web.Response:
    desk = request.app[CONSOLE].desk
    text = await _in_box(request, desk.summary_csv)
    return web.Response(text=text, content_type="text/csv",
                        headers={"Content-Disposition": 'attachment; filename="matches.csv"'})


async def match_jsonl(request: web.Request) -> web.Response:
    try:
        match_id = int(request.match_info["id"])
    except ValueError:
        raise web.HTTPNotFound() from None
    what = "call" if request.query.get("calls") else "event"
    desk = request.app[CONSOLE].desk
    rows = await _in_box(request, lambda: desk.export(match_id, what))
    if rows is None:
        return _error(404, f"no match {match_id} in the record")
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    name = f"match-{match_id}{'-calls' if what == 'call' else ''}.jsonl"
    return web.Response(text=text, content_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _number(request: web.Request, key: str) -> int:
    try:
        return int(request.match_info[key])
    except ValueError:
        raise web.HTTPNotFound() from None


async def match_frames(request: web.Request) -> web.Response:
    match_id = _number(request, "id")
    desk = request.app[CONSOLE].desk
    frames = await _in_box(request, lambda: desk.frames(match_id))
    if frames is None:
        return _error(404, f"no match {match_id} in the record")
    return web.json_response({"frames": frames})


async def frame_jpeg(request: web.Request) -> web.Response:
    match_id, event = _number(request, "id"), _number(request, "event")
    desk = request.app[CONSOLE].desk
    data = await _in_box(request, lambda: desk.frame_jpeg(match_id, event))
    if data is None:
        return _error(404, f"no frame kept for match {match_id}, event {event} (none, or evicted)")
    return web.Response(body=data, content_type="image/jpeg")
