"""The tournament service's logic: boxes' messages in, the tournament record and the room's
view out. Transport-free (``broker.py`` feeds it MQTT messages, ``web.py`` reads it), so the
tests drive it directly as well as through a real broker.

Every message is taken or rejected with a reason (logged, counted, the record untouched):

- a topic that is no table topic, or a payload that does not parse (strict JSON, every key
  checked): rejected;
- a record claiming another table than its topic's (a box publishing outside its own topic,
  which the broker's ACL already refuses): rejected;
- a table the tournament does not have: rejected;
- a sequence number already taken: ignored (a box republishes after a reconnect or a restart;
  taking each record once makes that harmless);
- a sequence number past the next one expected: rejected, and the box is asked to publish that
  match again from the gap (``resend``), as when its status shows a tail the service lacks.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.tournament import (
    Action,
    BoxResult,
    Entrant,
    TableAssignment,
    Tournament,
    TournamentError,
    WithdrawBoxResult,
)
from referee.tournament.messages import (
    DeckReport,
    MessageError,
    RecordMessage,
    ResendRequest,
    StatusMessage,
    dumps,
    parse_topic,
    topic,
)
from referee.tournament_service.deck_files import DeckFile, read_deck_file
from referee.tournament_service.store import StoreError, TournamentStore

log = logging.getLogger("referee.tournament")

#: a gap is asked for again after this long without the missing record
RESEND_AFTER_S = 2.0

Send = Callable[[str, bytes, bool], None]  # (topic, payload, retain)


@dataclass
class LiveTable:
    """A table's match in progress as the boxes report it (for the room page)."""

    box_match: int = 0
    seq: int = 0  # the last record taken of ``box_match``
    game: str = ""
    deals: int = 0
    score: dict[str, int] = field(default_factory=dict)  # by side: deals won, or points
    online: bool | None = None
    updated: float = 0.0
    deck: DeckReport | None = None  # the box's word on the deck's enrolment file


def running_score(game: str, score: dict[str, int], deal_end: Mapping[str, Any]) -> None:
    """Add one ``deal_end`` call to a match's running score: chiamata credits, belotta's
    scored points, binocolo points, briscola deals won."""
    if game == "briscola-chiamata":
        source = deal_end.get("credits", {})
    elif game == "belotta":
        source = deal_end.get("score", {})
    elif game == "binocolo":
        source = deal_end.get("points", {})
    else:
        winner = deal_end.get("winner")
        source = {winner: 1} if isinstance(winner, str) else {}
    for side in deal_end.get("points", {}):
        score.setdefault(side, 0)
    for side, value in source.items():
        if isinstance(value, int):
            score[side] = score.get(side, 0) + value


class Service:
    """The tournament, its record and its live view; thread-safe (one lock)."""

    def __init__(self, store: TournamentStore, send: Send | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store, self.clock = store, clock
        self.send: Send = send or (lambda t, p, r: None)
        self.lock = threading.RLock()
        self.tournament = Tournament.replay(store.actions())
        self.expected = store.next_seqs()
        self.live: dict[int, LiveTable] = {}
        self.asked: dict[tuple[int, int], tuple[int, float]] = {}
        self.rejected: Counter[str] = Counter()
        self.duplicates = 0
        self.taken = 0
        self.listeners: list[Callable[[], None]] = []
        self._rebuild_live()
        self._pushed: dict[int, bytes] = {}
        self._pushed_deck: dict[int, str] = {}  # table -> sha256 of the enrolment file sent
        self._deck_files: dict[str, DeckFile | None] = {}  # by path; None: cannot be sent

    # --- organiser and set-up ------------------------------------------------------------
    def apply(self, actions: Sequence[Action]) -> None:
        """Apply organiser actions, all or none; recorded before they count."""
        with self.lock:
            trial = copy.deepcopy(self.tournament)
            for action in actions:
                trial.apply(action)  # TournamentError: nothing recorded, nothing changed
            self.store.append_actions(actions)
            for action in actions:
                self.tournament.apply(action)
        self.changed()

    # --- boxes ---------------------------------------------------------------------------
    def handle(self, topic_name: str, payload: bytes) -> str:
        """Take one message; returns what happened (``taken``, ``duplicate``, ``status`` or
        ``rejected: reason``), logged when it is not taken."""
        return self.handle_batch([(topic_name, payload)])[0]

    def handle_batch(self, messages: Sequence[tuple[str, bytes]]) -> list[str]:
        """Take messages in order, recorded in one transaction; what happened to each. If the
        record cannot be written, none of them counts (the boxes are asked again later)."""
        outcomes: list[str] = []
        with self.lock:
            try:
                with self.store.batch():
                    for topic_name, payload in messages:
                        outcomes.append(self._handle_one(topic_name, payload))
            except StoreError as exc:  # memory = disk again; the boxes' status brings them back
                self._reload()
                outcomes = [f"rejected: not recorded: {exc}"] * len(messages)
                log.error("%s", outcomes[0])
        if any(o in ("taken", "status") for o in outcomes):
            self.changed()
        return outcomes

    def _handle_one(self, topic_name: str, payload: bytes) -> str:
        try:
            outcome = self._handle(topic_name, payload)
        except (MessageError, TournamentError) as exc:
            outcome = f"rejected: {exc}"
        if outcome.startswith("rejected"):
            reason = outcome.removeprefix("rejected: ")
            self.rejected[reason.split(":")[0]] += 1
            log.warning("%s: %s", topic_name, outcome)
        return outcome

    def _reload(self) -> None:
        self.tournament = Tournament.replay(self.store.actions())
        self.expected = self.store.next_seqs()
        self.live = {}
        self._rebuild_live()

    def _handle(self, topic_name: str, payload: bytes) -> str:
        table, leaf = parse_topic(topic_name)
        if leaf == "status":
            status = StatusMessage.parse(payload)
            self._check_table(table, status.table)
            live = self.live.setdefault(table, LiveTable())
            live.online = status.online
            if status.deck is not None and status.deck != live.deck:
                if status.deck.error:
                    log.warning("table %d kept the enrolment it had, not the deck's file %s: %s",
                                table, status.deck.sha256[:12], status.deck.error)
                else:
                    log.info("table %d recognises with the deck's file %s", table, status.deck.sha256[:12])
            live.deck = status.deck or live.deck
            for match, last in status.last.items():
                if self.expected.get((table, match), 1) <= last:
                    self._ask(table, match, self.expected.get((table, match), 1))
            return "status"
        if leaf != "record":
            return "ignored"  # the service's own requests to the boxes
        msg = RecordMessage.parse(payload)
        self._check_table(table, msg.table)
        key = (table, msg.match)
        expected = self.expected.get(key, 1)
        if msg.seq < expected:
            self.duplicates += 1
            return "duplicate"
        if msg.seq > expected:
            self._ask(table, msg.match, expected)
            return f"rejected: gap: table {table} match {msg.match} sent {msg.seq}, expected {expected}"
        action = self._result(msg)
        self.store.append_record(msg, action)
        if action is not None:
            self.tournament.apply(action)
        self.expected[key] = msg.seq + 1
        self.asked.pop(key, None)
        self.taken += 1
        self._live(msg)
        return "taken"

    def _check_table(self, topic_table: int, claimed: int) -> None:
        if claimed != topic_table:
            raise MessageError(f"outside its topic: table {claimed} published as table {topic_table}")
        form = self.tournament.format
        if form is None or not 1 <= topic_table <= form.tables:
            known = f"1..{form.tables}" if form else "none (not started)"
            raise MessageError(f"unknown table: {topic_table} (tables {known})")

    def _result(self, msg: RecordMessage) -> Action | None:
        """The result a box's ``match_end`` carries, when the tournament takes it (else it is
        logged: the organiser enters it by hand, and the box record is kept all the same); or
        its withdrawal, when the box undid a play of a match whose result was taken."""
        if msg.kind == "call" and msg.body.get("call") == "undo" and (
                (msg.table, msg.match) in self.tournament.applied):
            return self._trial(WithdrawBoxResult(msg.table, msg.match), "result not withdrawn")
        if msg.kind != "call" or msg.body.get("call") != "match_end":
            return None
        current = self.tournament.at_table(msg.table)
        if msg.assigned is not None and (current is None or msg.assigned != current.id):
            log.warning("table %d: box match %d was begun for %s, the table plays %s: not its "
                        "result (enter it by hand if it is)", msg.table, msg.match,
                        msg.assigned or "no tournament match", current.id if current else "nothing")
            return None
        winner, score = msg.body.get("winner"), msg.body.get("score")
        if not isinstance(score, dict):
            log.warning("table %d match %d: match_end without a score", msg.table, msg.match)
            return None
        action = BoxResult(msg.table, msg.match, winner if isinstance(winner, str) else None,
                           {str(k): int(v) for k, v in score.items() if isinstance(v, int)})
        return self._trial(action, "result not taken")

    def _trial(self, action: Action, refused: str) -> Action | None:
        """``action`` when the tournament can take it; else logged (the organiser enters or
        corrects the result by hand) and ``None``: the box's record is kept all the same."""
        trial = copy.deepcopy(self.tournament)
        try:
            trial.apply(action)
        except TournamentError as exc:
            log.warning("%s (the organiser corrects it by hand): %s", refused, exc)
            return None
        if isinstance(action, WithdrawBoxResult):
            log.warning("table %d: box match %d undone after its end: its result is withdrawn",
                        action.table, action.box_match)
        return action

    def _ask(self, table: int, match: int, from_seq: int) -> None:
        key = (table, match)
        last = self.asked.get(key)
        now = self.clock()
        if last is not None and last[0] == from_seq and now - last[1] < RESEND_AFTER_S:
            return
        self.asked[key] = (from_seq, now)
        log.info("asking table %d for match %d again from %d", table, match, from_seq)
        self.send(topic(table, "resend"), ResendRequest(match, from_seq).to_bytes(), False)

    def _live(self, msg: RecordMessage) -> None:
        live = self.live.setdefault(msg.table, LiveTable())
        if msg.match != live.box_match:
            if msg.match < live.box_match:
                return  # an older match sent again: the table has moved on
            live.box_match, live.game, live.deals, live.score = msg.match, msg.game, 0, {}
            live.seq = 0
        live.seq = max(live.seq, msg.seq)
        if msg.kind == "call" and msg.body.get("call") == "deal_end":
            live.deals += 1
            running_score(msg.game, live.score, msg.body)
        live.updated = time.time()

    def _rebuild_live(self) -> None:
        """After a restart: each table's latest box match, from the record."""
        latest: dict[int, tuple[int, str]] = {}
        for bm in self.store.box_matches():  # ordered by table, then box match
            latest[bm.table] = (bm.box_match, bm.game)
        for table, (box_match, game) in latest.items():
            for seq, kind, body in self.store.records(table, box_match):
                self._live(RecordMessage(table, box_match, seq, kind, game, body))

    # --- what the room and the boxes are told ---------------------------------------------
    def changed(self, repush: bool = False) -> None:
        if repush:
            self._pushed.clear()
            self._pushed_deck.clear()
        self.push_assignments()
        for listener in list(self.listeners):
            listener()

    def push_assignments(self) -> None:
        """Each table's assignment, retained on its ``assign`` topic (sent when it changes)."""
        with self.lock:
            form = self.tournament.format
            if form is None:
                return
            now = {a.table: a for a in self.tournament.tables()}
            for table in range(1, form.tables + 1):
                a = now.get(table)
                deck = self.deck_file(a.deck) if a is not None and a.deck is not None else None
                payload = dumps(assignment_dict(a, table, form.game, deck))
                if self._pushed.get(table) != payload:
                    if deck is not None and self._pushed_deck.get(table) != deck.sha256:
                        # the file first: a box that hears the assignment finds it, or soon will
                        self.send(topic(table, "deck"), deck.data, True)
                        self._pushed_deck[table] = deck.sha256
                    self._pushed[table] = payload
                    self.send(topic(table, "assign"), payload, True)

    def deck_file(self, owner: Entrant) -> DeckFile | None:
        """The enrolment file of ``owner``'s deck, read and checked once; ``None`` when it has
        none, or it can no longer be read (logged: the table plays with the enrolment it has)."""
        if owner.enrollment is None:
            return None
        if owner.enrollment not in self._deck_files:
            try:
                self._deck_files[owner.enrollment] = read_deck_file(Path(owner.enrollment), owner.id)
            except ConfigError as exc:
                log.error("not sent to the tables: %s", exc)
                self._deck_files[owner.enrollment] = None
        return self._deck_files[owner.enrollment]


def assignment_dict(a: TableAssignment | None, table: int, game: str | None = None,
                    deck_file: DeckFile | None = None) -> dict[str, Any]:
    if a is None:
        return {"table": table, "match": None}
    deck: dict[str, Any] | None = None
    if a.deck is not None:
        deck = {"owner": a.deck.id, "name": a.deck.name, "enrollment": a.deck.enrollment}
        if deck_file is not None:
            deck |= {"sha256": deck_file.sha256, "size": deck_file.size}
    return {
        "table": a.table, "match": a.match, "round": a.round, "caption": a.caption(), "game": game,
        "sides": [[side, e.id, e.name] for side, e in a.sides],
        "deck": deck,
    }
