"""The console's side of the box: what a request reads or changes, run in the box's main loop
(through the :class:`~referee.web.mailbox.Mailbox`, never from the web thread).

Every change goes the way of the buttons' events (:meth:`Box.submit
<referee.box.app.Box.submit>`: the rules core decides, the record commits, the table is told),
except that an event the rules core rejects is refused with its reason and nothing is recorded.
A :meth:`Desk.snapshot` whose ``seq`` grew is pushed to the live pages.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import logging
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.box.app import Box
from referee.box.config import GAMES
from referee.box.frames import play_frames
from referee.rules import get_game
from referee.table.answer import Answer
from referee.table.refused import Refused
from referee.web.call_words import say
from referee.web.setup import SetupError, TableSetup
from referee.web.texts import LANGUAGES

log = logging.getLogger("referee.web")

Call = dict[str, Any]
#: the calls a scoreboard lists (the newest last; ``turn`` calls left out: the turn is shown)
RECENT_CALLS = 12
#: default seats, in play order, per number of players (the box's configured game keeps its own)
SEATS_FOR = {2: ["N", "S"], 3: ["N", "W", "S"], 4: ["N", "W", "S", "E"], 5: ["A", "B", "C", "D", "E"]}


class Desk:
    """See the module docstring. ``setup_path``: where the table number and names are kept."""

    def __init__(self, box: Box, setup_path: Path | None = None) -> None:
        self.box = box
        self.setup_path = setup_path
        self.setup = TableSetup()
        if setup_path is not None:
            try:
                self.setup = TableSetup.load(setup_path)
            except SetupError as exc:  # names are a courtesy: the box goes on without them
                log.warning("%s; the table's names start empty", exc)
        self.seq = 0
        self._key: tuple[Any, ...] | None = None
        self._snapshot: dict[str, Any] = {}

    # -- reading -------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The table now, as ``GET /api/state`` gives it (see docs/design/console.md);
        ``seq`` grows whenever anything but the move timer changed."""
        box = self.box
        question = box.question  # the arbiter's, or the box's own about an event log's unsure play
        key = (box.match_id, box.events_seen, question.id if question else None,
               box.fault_screen is not None, self.setup)
        if key != self._key:
            self._key = key
            self.seq += 1
            self._snapshot = self._build()
        return {**self._snapshot, "timer": self._timer()}

    def _build(self) -> dict[str, Any]:
        box = self.box
        state = replace(box.session.state(), question=box.question).to_dict()
        steps = box.store.steps(box.match_id) if box.match_id is not None else []
        contract, calls = _contract_and_calls(steps)
        if state.get("contract") is None:
            state["contract"] = contract
        recent = [c for c in calls if c.get("call") != "turn"][-RECENT_CALLS:]
        return {
            "seq": self.seq, "match": box.match_id, "events": box.events_seen,
            "table": self.setup.table, "names": dict(self.setup.names),
            "configured": {"game": box.cfg.game.name, "seats": list(box.cfg.game.seats)},
            "fault": box.fault_screen.what_key if box.fault_screen is not None else None,
            "state": state, "calls": recent,
            "said": {lang: [say(c, lang) for c in recent] for lang in LANGUAGES},
            "contract_said": {lang: say(state["contract"], lang) for lang in LANGUAGES} if state["contract"] else None,
            "deal_over": box.referee.deal is not None and box.referee.deal.phase == "over",
            "next_dealer": box.referee.next_dealer,
            "goal": _goal(box),
        }

    def _timer(self) -> dict[str, float] | None:
        box = self.box
        seconds = box.move_timer_s()
        if seconds is None or box.turn_since is None or box.referee.turn is None:
            return None
        left = max(0.0, seconds - (box.clock() - box.turn_since))
        return {"seconds": seconds, "left": round(left, 1)}

    def deal_card_guess(self) -> str | None:
        """The card the camera reads face up in the stock zone now (offered first)."""
        reader = self.box.stock_reader
        if reader is None:
            return None
        try:
            return reader()
        except Exception as exc:  # the camera's guess is a convenience, never a fault
            log.warning("no stock card reading: %s", exc)
            return None

    # -- changing ------------------------------------------------------------------------
    def submit(self, event: Mapping[str, Any]) -> list[Call] | Refused:
        return self.box.submit(event)

    def answer(self, question_id: int, answer: Answer) -> list[Call] | Refused:
        return self.box.answer_question(question_id, answer)

    def next_deal(self, extra: Mapping[str, Any]) -> list[Call] | Refused:
        """The next deal of the match being played (its game, seats and options, the next
        dealer), with ``extra`` (``dealer``, ``trump_card``, ``turned``) entered on the page."""
        deal = self.box.referee.deal
        event = self.box.next_deal_event()
        if deal is not None:
            event.update(game=deal.game, seats=list(deal.seats))
            if deal.game != self.box.cfg.game.name:
                event.pop("options", None)  # the match's first deal set them
        event.update({k: v for k, v in extra.items() if v not in (None, "")})
        return self.box.submit(event)

    def end_match(self) -> int | None:
        return self.box.end_match()

    def set_setup(self, setup: TableSetup) -> TableSetup:
        self.setup = setup
        if self.setup_path is not None:
            self.setup.save(self.setup_path)
        return setup

    def rename(self, names: Mapping[str, str]) -> TableSetup:
        return self.set_setup(replace(self.setup, names=dict(names)))

    # -- history -------------------------------------------------------------------------
    def matches(self) -> list[dict[str, Any]]:
        """Each match in the record with its result (the ``match_end`` call's, if it ended so)."""
        out = []
        for m in self.box.store.matches():
            end = next((c for c in reversed(self.box.store.calls(m.id)) if c.get("call") == "match_end"), None)
            out.append({"id": m.id, "game": m.game, "started": m.started, "ended": m.ended,
                        "events": m.events, "calls": m.calls,
                        "winner": end.get("winner") if end else None,
                        "score": end.get("score") if end else None})
        return out

    def export(self, match_id: int, what: str) -> list[dict[str, Any]] | None:
        """The match's events (``referee history --export``) or calls (``--calls``); None:
        the record has no such match."""
        if match_id not in {m.id for m in self.box.store.matches()}:
            return None
        rows, unreadable = self.box.store.readable(match_id, what)
        for problem in unreadable:
            log.warning("export: unreadable, left out: %s", problem)
        return rows

    def frames(self, match_id: int) -> list[dict[str, Any]] | None:
        """The match's kept frames with the play each decided (deal, trick, seat, card), by
        event line; None: the record has no such match. A box without a camera keeps none."""
        if match_id not in {m.id for m in self.box.store.matches()}:
            return None
        keeper = self.box.frames
        if keeper is None:
            return []
        return [f.to_dict() for f in play_frames(self.box.store.events(match_id), keeper.frames(match_id))]

    def frame_jpeg(self, match_id: int, event: int) -> bytes | None:
        """The JPEG of the frame that decided ``match_id``'s event ``event`` (None: none kept)."""
        keeper = self.box.frames
        return keeper.read(match_id, event) if keeper is not None else None

    def summary_csv(self) -> str:
        """One row per match: id, game, started, ended, winner, score."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["match", "game", "started", "ended", "events", "winner", "score"])
        for m in self.matches():
            score = m["score"]
            score_text = " ".join(f"{k}={v}" for k, v in score.items()) if isinstance(score, dict) else ""
            writer.writerow([m["id"], m["game"], _iso(m["started"]), _iso(m["ended"]), m["events"],
                             m["winner"] or "", score_text])
        return out.getvalue()


def games() -> dict[str, dict[str, Any]]:
    """Each game the console can set up: its deck's cards and its usual seats."""
    out = {}
    for name, (_, counts) in GAMES.items():
        deck = get_game(name).deck
        out[name] = {"cards": list(dict.fromkeys(deck.codes)), "seats": SEATS_FOR[counts[-1]],
                     "counts": list(counts)}
    return out


def _contract_and_calls(steps: list[tuple[dict[str, Any], list[Call]]]) -> tuple[Call | None, list[Call]]:
    """The current deal's latest ``contract`` call, and the match's calls in order."""
    contract: Call | None = None
    calls: list[Call] = []
    for event, made in steps:
        if event.get("event") == "deal" and not any(c.get("call") == "error" for c in made):
            contract = None
        for call in made:
            if call.get("call") == "contract":
                contract = call
        calls.extend(made)
    return contract, calls


#: the options that say how long a match lasts (briscola's rounds, chiamata's deals, a target score)
GOAL_OPTIONS = ("rounds_to_win", "deals", "target")


def _goal(box: Box) -> dict[str, Any]:
    """How long the match lasts, from the game's options: ``{"target": 151}``..."""
    game = box.referee.game
    if game is None:
        return {}
    return {k: getattr(game.options, k) for k in GOAL_OPTIONS if isinstance(getattr(game.options, k, None), int)}


def _iso(t: float | None) -> str:
    return "" if t is None else dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
