// The console's pages: fill the server-rendered frame from /api/state, keep it live over the
// /api/live WebSocket, and send the operator's actions to the JSON API (the PIN travels once,
// to /api/login; the session cookie carries the rest). No framework, no build step.
"use strict";
const SETUP = JSON.parse(document.getElementById("setup").textContent);
const T = SETUP.t;
const GAMES = SETUP.games;
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
let snap = null;
let timerAt = 0;

const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const kid of kids.flat()) node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return node;
}
function card(code) {
  if (!code) return "\u2014";
  const m = /^(10|[2-9JQKA])([SHDC])$/.exec(code);
  if (m) return m[1] + SUITS[m[2]];
  return code.replace("_", " ");
}
function suit(s) { return s ? SUITS[s] || s : "\u2014"; }
function cardNode(code) {
  const red = /[HD]$/.test(code || "") ? " red" : "";
  return el("span", { class: "card" + red }, card(code));
}
function who(seat) {
  const name = snap && snap.names && snap.names[seat];
  return name ? `${seat} ${name}` : seat || "\u2014";
}
function fill(node, ...kids) { node.replaceChildren(...kids.flat()); }

// -- live state -------------------------------------------------------------------------
async function load() {
  const r = await fetch("/api/state");
  show(await r.json());
}
function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live");
  ws.onopen = () => { $("status").textContent = "\u25cf " + T.live; $("status").className = "status on"; };
  ws.onmessage = (m) => show(JSON.parse(m.data));
  ws.onclose = () => { $("status").textContent = T.offline; $("status").className = "status off"; setTimeout(connect, 1000); };
}
function show(s) {
  snap = s;
  timerAt = performance.now();
  window.refereeSeq = s.seq;
  if (SETUP.view === "scoreboard") scoreboard(s);
  if (SETUP.view === "operator") operator(s);
}

// -- scoreboard -------------------------------------------------------------------------
function teamsOf(st) { return st.teams && st.teams.length ? st.teams : (st.seats || []).map((x) => [x]); }
// the match score as the game keeps it: per team (briscola, belotta) or per seat (chiamata's
// credits, binocolo): one side per seat then, with its team's card points this deal
function sidesOf(st) {
  const teams = teamsOf(st);
  const perSeat = (st.seats || []).length > 0 && st.seats.every((x) => x in st.score) && !teams.every((t) => t.join("+") in st.score);
  return perSeat ? st.seats.map((x) => ({ seats: [x], team: teams.find((t) => t.includes(x)) || [x] }))
    : teams.map((t) => ({ seats: t, team: t }));
}
function scoreboard(s) {
  const st = s.state;
  const head = [];
  if (s.table) head.push(el("span", { class: "tag" }, `${T.table} ${s.table}`));
  if (st.game) head.push(el("span", { class: "tag game" }, st.game));
  const goal = s.goal || {};
  const of = goal.deals ? `/${goal.deals}` : "";
  if (st.game) head.push(el("span", { class: "tag" }, `${T.deal} ${st.deal}${of} \u00b7 ${T.tricks} ${st.tricks_done}`));
  if (goal.target) head.push(el("span", { class: "tag" }, `${T.target} ${goal.target}`));
  if (goal.rounds_to_win) head.push(el("span", { class: "tag" }, `${T.rounds_to_win} ${goal.rounds_to_win}`));
  if (st.match_over) head.push(el("span", { class: "tag over" }, T.match_over));
  else if (s.deal_over) head.push(el("span", { class: "tag over" }, T.deal_over));
  if (s.fault) head.push(el("span", { class: "tag fault" }, `${T.fault}: ${s.fault}`));
  if (!st.game) head.push(el("span", { class: "tag" }, T.no_match));
  fill($("head"), head);
  fill($("score"), sidesOf(st).map(({ seats, team }) => {
    const key = seats.join("+");
    const total = st.score[key] ?? seats.reduce((a, x) => a + (st.score[x] ?? 0), 0);
    const turn = seats.includes(st.turn) ? " turn" : "";
    const mates = team.length > seats.length ? ` (${team.join("+")})` : "";
    return el("div", { class: "side" + turn },
      el("div", { class: "who" }, seats.map(who).join(" + ")),
      el("div", { class: "digits" }, String(total)),
      el("div", { class: "small" }, `${T.points}${mates}: ${st.points[team.join("+")] ?? 0}`));
  }));
  fill($("trumpbox"), el("h2", {}, T.trump), el("div", { class: "big" + (/^[HD]$/.test(st.trump || "") ? " red" : "") }, suit(st.trump)),
    st.trump_card ? cardNode(st.trump_card) : "", contractText(st.contract, s.contract_said && s.contract_said[SETUP.lang]));
  fill($("turnbox"), el("h2", {}, T.turn), el("div", { class: "big" }, who(st.turn)), el("div", { id: "timer", class: "timer" }));
  fill($("trick"), el("h2", {}, T.trick), trickNode(st.trick));
  fill($("last"), el("h2", {}, T.last_trick), trickNode(st.last_trick));
  fill($("violations"), el("h2", {}, T.violations),
    st.violations.length ? el("ul", {}, st.violations.map((v) => el("li", {}, `${who(v[0])}: ${SETUP.rules[v[1]] || v[1]} (${T.trick_no} ${v[2]})`))) : "\u2014");
  const said = (s.said && s.said[SETUP.lang]) || [];
  fill($("calls"), el("h2", {}, T.calls), el("ol", {}, s.calls.map((c, i) => [c, said[i] || callText(c)])
    .reverse().map(([c, text]) => el("li", { class: "call-" + c.call }, text))));
  tickTimer();
}
function contractText(c, said) {
  if (!c) return "";
  if (said) return el("div", { class: "contract" }, said);
  const value = (k, v) => (k === "trump" ? suit(v) : k === "called" || k === "turned" ? card(v) : k === "seat" ? who(v)
    : typeof v === "object" ? JSON.stringify(v) : v);
  const parts = Object.entries(c).filter(([k]) => k !== "call" && k !== "t").map(([k, v]) => `${T["key_" + k] || k}: ${value(k, v)}`);
  return el("div", { class: "contract" }, `${T.contract} \u2014 ${parts.join(", ")}`);
}
function trickNode(tr) {
  if (!tr) return "\u2014";
  return el("div", { class: "trick" }, tr.plays.map(([seat, c]) =>
    el("span", { class: "play" + (tr.winner === seat ? " won" : "") }, el("small", {}, seat), cardNode(c))));
}
function callText(c) {
  const rest = Object.entries(c).filter(([k]) => k !== "call" && k !== "t").map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
  return `${c.call} ${rest.join(" ")}`;
}
function tickTimer() {
  const node = $("timer");
  if (!node || !snap) return;
  const t = snap.timer;
  if (!t) { node.textContent = ""; return; }
  const left = Math.max(0, t.left - (performance.now() - timerAt) / 1000);
  node.textContent = `${T.timer}: ${Math.ceil(left)} s`;
  node.className = "timer" + (left <= 5 ? " warn" : "");
}
setInterval(tickTimer, 250);

// -- operator ---------------------------------------------------------------------------
async function api(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
  let data = {};
  try { data = await r.json(); } catch (e) { data = { error: r.statusText }; }
  if (r.status === 401) { needLogin(); }
  $("error") && ($("error").textContent = r.ok ? "" : `${r.status}: ${data.error}`);
  return r.ok ? data : null;
}
function event(body) { return api("/api/events", body); }
function needLogin() { $("login").hidden = false; $("ops").hidden = true; }
async function checkLogin() {
  const r = await fetch("/api/matches");
  if (r.status === 200) { $("login").hidden = true; $("ops").hidden = false; return r; }
  needLogin();
  return null;
}
function options(select, values, chosen, labels) {
  // a live update must not rebuild a list the operator may be choosing from
  const same = select.options.length === values.length && values.every((v, i) => select.options[i].value === v);
  if (same) { if (chosen !== undefined && values.includes(chosen) && select.dataset.chosen !== chosen) { select.value = chosen; select.dataset.chosen = chosen; } return; }
  if (chosen !== undefined) select.dataset.chosen = chosen;
  const keep = chosen !== undefined ? chosen : select.value;
  fill(select, values.map((v, i) => el("option", { value: v }, labels ? labels[i] : v)));
  if (values.includes(keep)) select.value = keep;
}
function seatsNow() { return snap && snap.state.seats.length ? snap.state.seats : snap ? snap.configured.seats : []; }
function gameNow() {
  // no match in play: the game being set up (its deck's cards in the face-up card list)
  if (snap && snap.state.game && !snap.state.match_over) return snap.state.game;
  const chosen = $("setup-game") && $("setup-game").value;
  return chosen || (snap ? snap.state.game || snap.configured.game : "briscola-4");
}
function cardsOf(game) { return (GAMES[game] || GAMES["briscola-4"]).cards; }
function faceUpKey(game) { return game === "belotta" ? "turned" : game.startsWith("briscola") ? "trump_card" : null; }
function words(text) { return text.split(/[\s,]+/).filter(Boolean); }

function operator(s) {
  const st = s.state;
  const seats = seatsNow();
  const game = gameNow();
  fill($("mini"), el("b", {}, `${st.game || T.no_match}`), ` \u00b7 ${T.deal} ${st.deal} \u00b7 ${T.turn}: ${who(st.turn)} \u00b7 ${T.trump}: ${suit(st.trump)}`,
    st.trick ? el("span", {}, " \u00b7 ", trickNode(st.trick)) : "");
  for (const sel of document.querySelectorAll("select.seat")) options(sel, seats);
  for (const sel of document.querySelectorAll("select.card")) options(sel, cardsOf(game), undefined, cardsOf(game).map(card));
  options($("deal-dealer"), seats, s.next_dealer || undefined);
  const fk = faceUpKey(game);
  $("deal-card").disabled = !fk;
  if (!$("deal-card").options.length || $("deal-card").dataset.game !== game) {
    options($("deal-card"), ["", ...cardsOf(game)], "", ["\u2014", ...cardsOf(game).map(card)]);
    $("deal-card").dataset.game = game;
  }
  contractForms(game, seats);
  question(st.question, game);
}
function question(q, game) {
  const body = $("qbody");
  if (!q) { fill(body, T.no_question); $("question").className = "box question"; body.dataset.q = ""; return; }
  if (body.dataset.q === String(q.id)) return;  // the same question: the operator may be choosing a card
  body.dataset.q = String(q.id);
  $("question").className = "box question open";
  const offered = [q.card, ...(q.alternatives || [])].filter(Boolean);
  const pick = el("select", { id: "q-any" }, cardsOf(game).map((c) => el("option", { value: c }, card(c))));
  fill(body,
    el("p", {}, `${who(q.seat)}: ${T.is_it} ${q.violation ? "(" + q.violation + ")" : ""}`),
    el("p", {}, offered.map((c) => el("button", { class: "cardbtn", "data-card": c, onclick: () => api("/api/answer", { question: q.id, card: c }) }, card(c)))),
    el("p", {}, pick, el("button", { id: "q-other", onclick: () => api("/api/answer", { question: q.id, card: pick.value }) }, T.any_card)),
    el("p", {}, el("button", { id: "q-no", class: "danger", onclick: () => api("/api/answer", { question: q.id, accept: false }) }, T.no)));
}
let formsFor = "";
function contractForms(game, seats) {
  const key = game + seats.join();
  if (key === formsFor) return;
  formsFor = key;
  const seatSel = (id) => el("select", { class: "seat", id }, seats.map((x) => el("option", { value: x }, x)));
  const trumpSel = (id) => el("select", { id }, Object.entries(SUITS).map(([k, v]) => el("option", { value: k }, `${v} ${k}`)));
  const forms = [];
  if (game === "belotta") {
    forms.push(el("form", { id: "mando", onsubmit: (e) => { e.preventDefault(); event({ event: "contract", seat: $("mando-seat").value, trump: $("mando-trump").value }); } },
      el("label", {}, T.seat + " ", seatSel("mando-seat")), el("label", {}, T.trump + " ", trumpSel("mando-trump")), el("button", {}, T.mando)));
    forms.push(el("form", { id: "via", onsubmit: (e) => { e.preventDefault(); event({ event: "via", seat: $("via-seat").value }); } },
      el("label", {}, T.seat + " ", seatSel("via-seat")), el("button", {}, T.via)));
  } else if (game === "briscola-chiamata") {
    const called = el("select", { id: "called-card" }, cardsOf(game).map((c) => el("option", { value: c }, card(c))));
    forms.push(el("form", { id: "chiamata", onsubmit: (e) => {
      e.preventDefault();
      const body = { event: "contract", seat: $("chiamata-seat").value, called: called.value, points: Number($("chiamata-points").value) };
      if ($("chiamata-mano").checked) body.in_mano = true;
      event(body);
    } }, el("label", {}, T.seat + " ", seatSel("chiamata-seat")), el("label", {}, T.called + " ", called),
      el("label", {}, T.points_target + " ", el("input", { id: "chiamata-points", type: "number", min: "61", max: "120", value: "61" })),
      el("label", {}, el("input", { id: "chiamata-mano", type: "checkbox" }), " " + T.in_mano), el("button", {}, T.send)));
  } else if (game === "binocolo") {
    forms.push(el("form", { id: "bid", onsubmit: (e) => { e.preventDefault(); event({ event: "contract", seat: $("bid-seat").value, bid: Number($("bid-points").value), trump: $("bid-trump").value }); } },
      el("label", {}, T.seat + " ", seatSel("bid-seat")), el("label", {}, T.bid + " ", el("input", { id: "bid-points", type: "number", min: "1", value: "15" })),
      el("label", {}, T.trump + " ", trumpSel("bid-trump")), el("button", {}, T.send)));
    forms.push(el("form", { id: "discard", onsubmit: (e) => { e.preventDefault(); event({ event: "discard", seat: $("discard-seat").value, cards: words($("discard-cards").value) }); } },
      el("label", {}, T.seat + " ", seatSel("discard-seat")), el("label", {}, T.discard + " ", el("input", { id: "discard-cards", placeholder: "KC AD JH QS" })), el("button", {}, T.discard)));
  } else {
    forms.push(el("p", {}, "\u2014"));
  }
  fill($("contract-forms"), forms);
}
function setupForm() {
  const game = $("setup-game");
  options(game, Object.keys(GAMES), snap ? gameNow() : undefined);
  const seatsFor = () => (snap && game.value === snap.configured.game ? snap.configured.seats : GAMES[game.value].seats);
  const refresh = () => {
    $("setup-seats").value = seatsFor().join(" ");
    names();
    if (snap) operator(snap);  // the face-up card and contract forms of the game chosen
  };
  const names = () => {
    const seats = words($("setup-seats").value);
    options($("setup-dealer"), seats);
    fill($("setup-names"), el("legend", {}, T.names), seats.map((x) => el("label", {}, x + " ",
      el("input", { class: "name", "data-seat": x, id: "name-" + x, value: (snap && snap.names[x]) || "", maxlength: "40" }))));
  };
  game.onchange = refresh;
  $("setup-seats").onchange = names;
  refresh();
  if (snap && snap.table) $("setup-table").value = snap.table;
  const collect = () => {
    const names = {};
    for (const input of document.querySelectorAll("input.name")) names[input.dataset.seat] = input.value;
    const table = $("setup-table").value ? Number($("setup-table").value) : null;
    return { table, names };
  };
  $("save-names").onclick = () => api("/api/setup", collect());
  $("setupform").onsubmit = async (e) => {
    e.preventDefault();
    let opts = {};
    try { opts = JSON.parse($("setup-options").value || "{}"); } catch (err) { $("error").textContent = `${T.options}: ${err.message}`; return; }
    if (snap && snap.match !== null && !snap.state.match_over) {
      if (!window.confirm(T.confirm_end)) return;
      await api("/api/end-match");
    }
    if (!(await api("/api/setup", collect()))) return;
    const deal = { event: "deal", game: game.value, seats: words($("setup-seats").value), dealer: $("setup-dealer").value };
    if (Object.keys(opts).length) deal.options = opts;
    const fk = faceUpKey(game.value);
    if (fk && $("deal-card").value) deal[fk] = $("deal-card").value;
    await event(deal);
  };
}
function operatorWiring() {
  $("dealform").onsubmit = (e) => {
    e.preventDefault();
    const body = { dealer: $("deal-dealer").value };
    const fk = faceUpKey(gameNow());
    if (fk && $("deal-card").value) body[fk] = $("deal-card").value;
    api("/api/next-deal", body);
  };
  $("declareform").onsubmit = (e) => { e.preventDefault(); event({ event: "declare", seat: $("declare-seat").value, cards: words($("declare-cards").value) }); };
  $("forfaitform").onsubmit = (e) => { e.preventDefault(); event({ event: "forfait", seat: $("forfait-seat").value }); };
  $("playform").onsubmit = (e) => { e.preventDefault(); event({ event: "play", seat: $("play-seat").value, card: $("play-card").value }); };
  $("undo").onclick = () => api("/api/undo");
  $("endmatch").onclick = () => { if (window.confirm(T.confirm_end)) api("/api/end-match"); };
  $("logout").onclick = async () => { await api("/api/logout"); needLogin(); };
}
async function guessDealCard() {
  const r = await fetch("/api/deal-card");
  if (!r.ok) return;
  const { card: guess } = await r.json();
  if (guess) {
    $("deal-card").value = guess;
    $("deal-guess").textContent = `(${T.camera_reads} ${card(guess)})`;
  }
}

// -- history ----------------------------------------------------------------------------
function when(t) { return t ? new Date(t * 1000).toLocaleString(SETUP.lang, { dateStyle: "short", timeStyle: "short" }) : "\u2014"; }
async function history(r) {
  const { matches } = await r.json();
  fill(document.querySelector("#matches tbody"), matches.slice().reverse().map((m) => el("tr", {},
    el("td", {}, m.id), el("td", {}, m.game), el("td", {}, when(m.started)), el("td", {}, when(m.ended)), el("td", {}, m.events),
    el("td", {}, m.winner || "\u2014"),
    el("td", {}, el("a", { href: `/api/matches/${m.id}.jsonl`, class: "export", "data-match": m.id }, T.export_jsonl), " ",
      el("a", { href: `/api/matches/${m.id}.jsonl?calls=1` }, T.export_calls), " ",
      el("button", { class: "framesbtn", id: `frames-${m.id}`, onclick: () => frames(m.id) }, T.frames)))));
}
async function frames(match) {
  // the frames that decided each play, grouped by deal and trick (for a dispute)
  const r = await fetch(`/api/matches/${match}/frames`);
  if (!r.ok) return;
  const { frames: kept } = await r.json();
  $("frames").hidden = false;
  $("frames-title").textContent = `${T.frames_of} ${match}`;
  const groups = new Map();
  for (const f of kept) {
    const key = `${T.deal} ${f.deal} \u00b7 ${T.trick_no} ${f.trick}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(f);
  }
  fill($("frames-body"), kept.length ? [...groups].map(([key, fs]) => el("div", { class: "trickframes" },
    el("h3", {}, key),
    el("div", { class: "shots" }, fs.map((f) => {
      const src = `/api/matches/${match}/frames/${f.event}.jpg`;
      return el("figure", {}, el("a", { href: src, target: "_blank" }, el("img", { src, loading: "lazy", alt: `${f.seat} ${f.card}` })),
        el("figcaption", {}, `${f.seat}: `, cardNode(f.card), ` (${T.frame_event} ${f.event})`));
    })))) : el("p", {}, T.no_frames));
  $("frames").scrollIntoView();
}

// -- start ------------------------------------------------------------------------------
async function start() {
  if (SETUP.view === "scoreboard") { await load(); connect(); return; }
  const login = $("login");
  login.onsubmit = async (e) => {
    e.preventDefault();
    const r = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: $("pin").value }) });
    $("pin").value = "";
    if (!r.ok) { $("login-error").textContent = r.status === 429 ? (await r.json()).error : T.wrong_pin; return; }
    $("login-error").textContent = "";
    start();
  };
  const ok = await checkLogin();
  if (!ok) return;
  if (SETUP.view === "history") { history(ok); return; }
  operatorWiring();
  await load();
  setupForm();
  guessDealCard();
  connect();
}
start();
