"""The console's pages: a server-rendered frame in the page's language, filled and kept live
by ``static/console.js`` from ``/api/state`` and ``/api/live`` (no build step, no CDN: all
served by the box)."""

from __future__ import annotations

import json
from html import escape

from aiohttp import web

from referee.box.i18n import RULES, rule_name
from referee.web.desk import games
from referee.web.texts import TEXTS, pick_language

VIEWS = ("scoreboard", "operator", "history")


def language(request: web.Request) -> str:
    return pick_language(request.query.get("lang"), request.headers.get("Accept-Language"))


def render_page(view: str, lang: str) -> str:
    t = TEXTS[lang]
    nav = " ".join(
        f'<a href="/{"" if v == "scoreboard" else v}?lang={lang}"{" class=on" if v == view else ""}>{escape(t[v])}</a>'
        for v in VIEWS
    )
    other = "en" if lang == "it" else "it"
    rules = {rule: rule_name(lang, rule) for rule in RULES}
    setup = json.dumps({"lang": lang, "view": view, "t": t, "games": games(), "rules": rules}).replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(t["title"])} · {escape(t[view])}</title>
<link rel="stylesheet" href="/static/console.css">
</head><body class="{view}">
<header><nav>{nav}</nav><span id="status" class="status"></span>
<a class="lang" href="?lang={other}">{other.upper()}</a></header>
<main id="main">{_BODIES[view](t)}</main>
<script id="setup" type="application/json">{setup}</script>
<script src="/static/console.js"></script>
</body></html>
"""


def _scoreboard(t: dict[str, str]) -> str:
    return f"""<section id="head" class="head"></section>
<section id="score" class="score"></section>
<section class="row"><div id="trumpbox" class="box"></div><div id="turnbox" class="box"></div></section>
<section class="row"><div id="trick" class="box"></div><div id="last" class="box"></div></section>
<section id="violations" class="box"></section>
<section id="calls" class="box calls" aria-label="{escape(t["calls"])}"></section>"""


def _login(t: dict[str, str]) -> str:
    return f"""<form id="login" class="box login" hidden>
<label>{escape(t["pin"])} <input id="pin" type="password" autocomplete="current-password" inputmode="numeric"></label>
<button type="submit">{escape(t["login"])}</button><span id="login-error" class="error"></span></form>"""


def _operator(t: dict[str, str]) -> str:
    e = {k: escape(v) for k, v in t.items()}
    return f"""{_login(t)}
<div id="ops" hidden>
<div id="error" class="error" role="alert"></div>
<section id="mini" class="box mini"></section>
<section id="question" class="box question"><h2>{e["question"]}</h2><div id="qbody"></div></section>
<section class="box"><h2>{e["deal_setup"]}</h2>
<form id="dealform"><label>{e["dealer"]} <select id="deal-dealer"></select></label>
<label>{e["face_up"]} <select id="deal-card"></select></label> <span id="deal-guess"></span>
<button type="submit">{e["next_deal"]}</button></form></section>
<section class="box"><h2>{e["contract"]}</h2><div id="contract-forms"></div></section>
<section class="box"><h2>{e["declarations"]}</h2>
<form id="declareform"><label>{e["seat"]} <select class="seat" id="declare-seat"></select></label>
<label>{e["cards"]} <input id="declare-cards" placeholder="KH QH"></label>
<button type="submit">{e["declare"]}</button></form>
<form id="forfaitform"><label>{e["seat"]} <select class="seat" id="forfait-seat"></select></label>
<button type="submit">{e["forfait"]}</button></form></section>
<section class="box"><h2>{e["manual"]}</h2>
<form id="playform"><label>{e["seat"]} <select class="seat" id="play-seat"></select></label>
<label>{e["card"]} <select class="card" id="play-card"></select></label>
<button type="submit">{e["play"]}</button></form>
<p class="actions"><button id="undo">{e["undo"]}</button> <button id="endmatch" class="danger">{e["end_match"]}</button></p></section>
<section class="box"><h2>{e["match_setup"]}</h2>
<form id="setupform">
<label>{e["game"]} <select id="setup-game"></select></label>
<label>{e["seats"]} <input id="setup-seats"></label>
<label>{e["dealer"]} <select id="setup-dealer"></select></label>
<label>{e["options"]} <input id="setup-options" value="{{}}"></label>
<label>{e["table_number"]} <input id="setup-table" type="number" min="1" max="999"></label>
<fieldset id="setup-names"><legend>{e["names"]}</legend></fieldset>
<button type="button" id="save-names">{e["save_names"]}</button>
<button type="submit">{e["start_match"]}</button></form></section>
<p><button id="logout">{e["logout"]}</button></p>
</div>"""


def _history(t: dict[str, str]) -> str:
    e = {k: escape(v) for k, v in t.items()}
    return f"""{_login(t)}
<div id="ops" hidden><section class="box"><h2>{e["history"]}</h2>
<p><a id="csv" href="/api/matches.csv">{e["export_csv"]}</a></p>
<div class="scroll"><table id="matches"><thead><tr><th>#</th><th>{e["game"]}</th><th>{e["started"]}</th><th>{e["ended"]}</th>
<th>{e["events"]}</th><th>{e["winner"]}</th><th></th></tr></thead><tbody></tbody></table></div></section>
<section id="frames" class="box frames" hidden><h2 id="frames-title"></h2><div id="frames-body"></div></section></div>"""


_BODIES = {"scoreboard": _scoreboard, "operator": _operator, "history": _history}
