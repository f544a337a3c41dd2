"""The room page's content: bracket, tables in progress with their scores, standings. Italian
by default (``en`` on request). Pure rendering of the service's state to an HTML fragment."""

from __future__ import annotations

from html import escape

from referee.tournament import Evening, Knockout, Tournament
from referee.tournament_service.service import LiveTable

WORDS: dict[str, dict[str, str]] = {
    "it": {"title": "Torneo", "tables": "Tavoli in gioco", "bracket": "Tabellone",
           "standings": "Classifica", "round": "Turno", "table": "Tavolo", "deals": "mani",
           "deck": "mazzo di", "offline": "non collegato", "waiting": "in attesa",
           "winner_of": "vincente", "champion": "Campioni", "points": "punti",
           "played": "giocate", "won": "vinte", "none": "nessun tavolo in gioco",
           "not_started": "Iscrizioni aperte: il torneo non è ancora iniziato",
           "out": "eliminati al turno", "by_hand": "inserito a mano"},
    "en": {"title": "Tournament", "tables": "Tables in play", "bracket": "Bracket",
           "standings": "Standings", "round": "Round", "table": "Table", "deals": "deals",
           "deck": "deck of", "offline": "offline", "waiting": "waiting",
           "winner_of": "winner of", "champion": "Champions", "points": "points",
           "played": "played", "won": "won", "none": "no table in play",
           "not_started": "Registration open: the tournament has not started",
           "out": "out in round", "by_hand": "entered by hand"},
}


def render_room(t: Tournament, live: dict[int, LiveTable], language: str = "it") -> str:
    w = WORDS.get(language, WORDS["it"])
    if t.format is None:
        return f"<p>{escape(w['not_started'])}</p>"
    parts = [_tables(t, live, w)]
    if isinstance(t.format, Knockout):
        parts.append(_bracket(t, w))
    parts.append(_standings(t, w))
    return "\n".join(parts)


def _tables(t: Tournament, live: dict[int, LiveTable], w: dict[str, str]) -> str:
    rows = []
    for a in t.tables():
        lt = live.get(a.table)
        score = ""
        if lt is not None and lt.score:
            score = " · ".join(f"{escape(name)} {lt.score.get(side, 0)}"
                               for side, e in a.sides for name in [e.name])
            score += f" ({lt.deals} {w['deals']})"
        state = f' <em class="off">{w["offline"]}</em>' if lt is not None and lt.online is False else ""
        deck = f' <small>{w["deck"]} {escape(a.deck.name)}</small>' if a.deck else ""
        names = " – ".join(escape(e.name) for _, e in a.sides)
        rows.append(f'<li><b>{w["table"]} {a.table}</b>: {names}{deck}{state}'
                    f'<div class="score">{score}</div></li>')
    body = "\n".join(rows) or f"<li>{w['none']}</li>"
    # the last record the page reflects, per table ("table:box match:seq"): how fresh it is
    seen = " ".join(f"{n}:{lt.box_match}:{lt.seq}" for n, lt in sorted(live.items()) if lt.box_match)
    return (f'<section id="tables" data-records="{seen}"><h2>{w["tables"]}</h2>'
            f'<ul>{body}</ul></section>')


def _bracket(t: Tournament, w: dict[str, str]) -> str:
    rounds: dict[int, list[str]] = {}
    for m in t.matches.values():
        names = []
        for slot, e in zip(m.slots, t.entrants_of(m), strict=True):
            if e is not None:
                name = escape(t.entrants[e].name)
                won = m.result is not None and m.result.winner == e
                names.append(f"<b>{name}</b>" if won else name)
            else:
                names.append(f"<i>{w['winner_of']} {escape(slot.winner_of or '')}</i>")
        where = f" ({w['table']} {m.table})" if m.table and m.result is None else ""
        hand = f" <small>{w['by_hand']}</small>" if m.result and m.result.source == "organiser" else ""
        rounds.setdefault(m.round, []).append(
            f'<li id="{escape(m.id)}">{" – ".join(names)}{where}{hand}</li>')
    cols = "".join(f'<div class="round"><h3>{w["round"]} {r}</h3><ul>{"".join(items)}</ul></div>'
                   for r, items in sorted(rounds.items()))
    champion = t.champion
    crown = f'<p class="champion">{w["champion"]}: {escape(champion.name)}</p>' if champion else ""
    return f'<section id="bracket"><h2>{w["bracket"]}</h2><div class="rounds">{cols}</div>{crown}</section>'


def _standings(t: Tournament, w: dict[str, str]) -> str:
    evening = isinstance(t.format, Evening)
    head = (f"<tr><th>#</th><th></th><th>{w['points']}</th><th>{w['played']}</th><th>{w['won']}</th></tr>"
            if evening else f"<tr><th>#</th><th></th><th>{w['won']}</th><th></th></tr>")
    rows = []
    for i, s in enumerate(t.standings(), start=1):
        if evening:
            rows.append(f"<tr><td>{i}</td><td>{escape(s.entrant.name)}</td><td>{s.points}</td>"
                        f"<td>{s.played}</td><td>{s.won}</td></tr>")
        else:
            out = f"{w['out']} {s.out_in_round}" if s.out_in_round else ""
            rows.append(f"<tr><td>{i}</td><td>{escape(s.entrant.name)}</td><td>{s.won}</td>"
                        f"<td>{out}</td></tr>")
    return (f'<section id="standings"><h2>{w["standings"]}</h2>'
            f'<table>{head}{"".join(rows)}</table></section>')


PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; background: #f6f3ea; }}
section {{ margin-bottom: 1.5em; }} .rounds {{ display: flex; gap: 2em; }}
.score {{ font-size: 1.3em; }} .off {{ color: #b00; }} .champion {{ font-size: 1.5em; }}
table {{ border-collapse: collapse; }} td, th {{ padding: 0.2em 0.8em; text-align: left; }}
</style></head>
<body><h1>{title}</h1><div id="room">{room}</div>
<script>
(function connect() {{
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host
                           + "/ws" + location.search);
  ws.onmessage = (m) => {{ document.getElementById("room").innerHTML = m.data; }};
  ws.onclose = () => setTimeout(connect, 2000);
}})();
</script></body></html>
"""


def render_page(t: Tournament, live: dict[int, LiveTable], language: str = "it") -> str:
    w = WORDS.get(language, WORDS["it"])
    return PAGE.format(lang=language, title=escape(w["title"]), room=render_room(t, live, language))
