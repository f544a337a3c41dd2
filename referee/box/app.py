"""The box's brain: events in -> rules core -> match record -> LEDs, buzzer and display.

Single-threaded on purpose: button gestures (gpiozero threads) are queued by the caller and
handed in through :meth:`Box.gesture` from the main loop, so the referee state, the record and
the screens change in one place, in order.

Order per event: the rules core decides, the record commits the event with its calls (one
transaction), only then the table is told. If the record cannot be written, the rules core is
rebuilt from the record, so memory never gets ahead of the disk, and :class:`StateError`
propagates (``referee run`` shows the fault and exits non-zero; the service restarts it).

>>> box = Box(cfg, MatchStore.open(tmp), NullSignals(), NullDisplay())  # doctest: +SKIP
>>> box.start()                                                         # resumes a match
>>> box.handle({"event": "play", "seat": "N", "card": "coppe_3"}, source_pos=12)
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.box import chosen_game
from referee.box.answers import no_play_answer, restore_answers
from referee.box.buttons import GESTURES, MENU_GESTURES
from referee.box.config import GAMES, BoxConfig
from referee.box.deal_card_menu import DealCardMenu, PlayedCardMenu, missing_deal_card
from referee.box.display import ScreenSink
from referee.box.enrol_menu import DONE, EnrolMenu
from referee.box.entry_menu import ENROL_DECK, EntryMenu, GameChoice
from referee.box.frames import FrameKeeper
from referee.box.home import home_screen
from referee.box.i18n import tr
from referee.box.menu import CANCELLED, ContractMenu
from referee.box.screens import (
    AssignmentScreen,
    ConfirmScreen,
    DeclarationScreen,
    FaultScreen,
    LastTrickScreen,
    MessageScreen,
    RefusedScreen,
    ScoreScreen,
    Screen,
    TimerScreen,
    ViolationScreen,
    screen_for_call,
)
from referee.box.state import MatchStore, StateError
from referee.box.trust import MISSED_KEY, resume_trust
from referee.errors import RefereeError
from referee.rules import Referee, get_game
from referee.rules.calls import ErrorCall
from referee.table.answer import Answer
from referee.table.arbiter import PlayArbiter
from referee.table.proposal import ProposalError, ProposedPlay
from referee.table.question import Question, QuestionKind
from referee.table.refused import Refused
from referee.table.session import TableSession, Told
from referee.tournament.messages import Assignment

log = logging.getLogger(__name__)

#: screens every one of which is shown, in order, however many queue up (others: the newest
#: of a kind): calls the table must hear. A withdrawal drops its own violation's screen while
#: that still waits (see ``Box._flash``); nothing else drops them, not even an undo.
EACH_SHOWN = frozenset({"violation", "withdrawn", "declaration"})
#: how long a screen about something that just happened stays before the score comes back
SHOW_S = {"trick": 2.5, "violation": 5.0, "refused": 8.0, "withdrawn": 5.0, "declaration": 3.0, "deal_end": 8.0,
          "match_end": 15.0, "info": 3.0}


class Box:
    """See the module docstring. ``signals`` is a :class:`~referee.box.signals.Signals` or
    ``NullSignals``; ``display`` any :class:`~referee.box.display.ScreenSink`."""

    def __init__(
        self,
        cfg: BoxConfig,
        store: MatchStore,
        signals: Any,
        display: ScreenSink,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cfg, self.store, self.signals, self.display, self.clock = cfg, store, signals, display, clock
        self.lang = cfg.language
        #: the table: the rules core and, once :meth:`attach_vision` gave it the camera's
        #: tracker, the arbiter; the box applies each event itself (decide, record, tell)
        self.session = TableSession(referee=Referee())
        self.match_id: int | None = None
        self.events_seen = 0  # events recorded in this match: the next one's export line
        self.pending: dict[str, Any] | None = None  # a play the camera is unsure of
        self.pending_pos: int | None = None
        self.candidates: list[str] = []  # the unsure play's card, then the tracker's alternatives
        self.candidate_at = 0  # the candidate the question shows now (right: the next one)
        self.menu: ContractMenu | DealCardMenu | EntryMenu | EnrolMenu | None = None
        #: starts an enrolment of the club's deck from the camera (``referee run`` sets it
        #: where there is a camera: :func:`referee.box.enrol_deck.box_enrolment`)
        self.enroller: Callable[[], Any] | None = None
        #: the camera's plays go through the table session's arbiter (as in ``referee watch``)
        #: once :meth:`attach_vision` gave the box the play tracker; until then they are
        #: applied as they come, unsure ones confirmed with the buttons
        #: the question open now (the arbiter's, or the box's own about an unsure play from an
        #: event log): on the display and the console; answered by id
        self.question: Question | None = None
        self.own_questions = itertools.count(1)  # the box's own questions' ids (no arbiter)
        self.arbiter_pos: int | None = None  # source position of the camera play being decided
        #: answering "did <seat> play?": the card the operator names is recorded as missed by
        #: the camera, so the camera's trust can be derived from the record after a restart
        self.naming_missed = False
        self.menu_pos: int | None = None  # source position of a deal event the menu completes
        self.menu_counted = False
        #: the card the camera reads face up in the stock zone now (briscola's trump, belotta's
        #: turned card), when the feed offers one (``Feed.stock_card``); the menu starts on it
        self.stock_reader: Callable[[], str | None] | None = None
        self.fault_screen: FaultScreen | None = None
        #: the camera frames that decided the plays, kept for a dispute (a box with a camera)
        self.frames: FrameKeeper | None = None
        self.transient: tuple[Screen, float] | None = None  # (screen, until) shown now
        self.queued: list[tuple[Screen, str]] = []  # (screen, kind) waiting their turn
        self.deals_started = 0  # the camera feed forgets the old table when this changes
        self.turn_since: float | None = None
        self.last_tick: float | None = None
        self.warned = False
        self.timed_out = False
        #: what the club's tournament service told this table to play (``[tournament]``):
        #: shown until the match's first deal, its players' names go into the next match
        self.assignment: Assignment | None = None
        self.players: dict[str, str] = {}  # seat -> player, from the assignment

    @property
    def referee(self) -> Referee:
        """The rules core of the table (replaced when the record is replayed)."""
        return self.session.referee

    @referee.setter
    def referee(self, referee: Referee) -> None:
        self.session.restore(referee)

    @property
    def arbiter(self) -> PlayArbiter | None:
        """The camera's arbiter, once :meth:`attach_vision` gave the box the play tracker."""
        return self.session.arbiter

    # -- match record ------------------------------------------------------------------
    def start(self) -> int | None:
        """Resume the unfinished match of this game, if any; returns the source position to go
        on from (``None``: from the start / live)."""
        match = self.store.current_match(self.cfg.game.name)
        if match is None:
            self._show_home()
            self.display.show(MessageScreen("ready", self.cfg.game.name, " ".join(self.cfg.game.seats)))
            return None
        self.match_id = match
        events = self.store.events(match)
        self.referee = _rebuild(events)
        self.events_seen = len(events)
        self._resume_trust()
        log.info("resumed match %d of %s after %d events", match, self.cfg.game.name, len(events))
        self.signals.turn(self.referee.turn)
        self.turn_since = self.clock()
        self._show_home()
        return self.store.last_source_pos(match)

    def _match_config(self, event: Mapping[str, Any], referee: Referee) -> tuple[str, dict[str, Any]]:
        """The game a new match is filed under, and its config (with the players' names per
        seat when a tournament assigned them)."""
        game, config = self._game_config(event, referee)
        if self.players:
            config["players"] = dict(self.players)
        return game, config

    def _game_config(self, event: Mapping[str, Any], referee: Referee) -> tuple[str, dict[str, Any]]:
        """The game a new match is filed under, and its config: the configured game's, unless
        its first deal (set up on the console) is of another game: then that deal's."""
        g = self.cfg.game
        game, deal = referee.game, referee.deal
        if game is None or deal is None or game.name == g.name:
            return g.name, {"game": g.name, "deck": g.deck, "seats": list(g.seats),
                            "teams": [list(t) for t in g.teams], "options": dict(g.options)}
        options = event.get("options")
        return game.name, {"game": game.name, "deck": GAMES.get(game.name, (g.deck,))[0], "seats": list(deal.seats),
                           "teams": [list(t) for t in game.teams(deal) or ()],
                           "options": dict(options) if isinstance(options, Mapping) else {}}

    def assigned(self, assignment: Assignment) -> None:
        """The tournament's assignment for this table (from the main loop; the publisher hears
        it): the next match is of its game, with its players' names per seat, and the screen
        says who sits down ("Tavolo 3: Rossi/Bianchi - Verdi/Neri") until the first deal. A
        match in play is left alone: it is told for a while, and counts from the next one."""
        if assignment == self.assignment or (assignment.match is None and self.assignment is None):
            return  # the same, heard again after a reconnect
        self.assignment = assignment if assignment.match is not None else None
        if self.assignment is None:
            self.players = {}
            self._show_home()
            return
        game = assignment.game
        if game and game != self.cfg.game.name and self.match_id is None:
            log.info("the tournament plays %s here: chosen for the next match", game)
            self._choose_game(GameChoice(game, {}))
        elif game and game != self.cfg.game.name:
            log.warning("the tournament plays %s here; the match of %s in play goes on", game,
                        self.cfg.game.name)
        self.players = assignment.seat_names(self.cfg.game.seats)
        log.info("assigned %s: %s", assignment.match, assignment.caption)
        if self.match_id is None:
            self._show_home()
        else:
            self._flash(self.assignment_screen(), "info")

    def assignment_screen(self) -> AssignmentScreen:
        assert self.assignment is not None
        return AssignmentScreen(self.assignment.table, tuple(name for _, name in self.assignment.sides),
                                self.assignment.round)

    def _filing(self, event: Mapping[str, Any], referee: Referee) -> tuple[str, dict[str, Any]] | None:
        """A match's first deal, of a game other than the one the match is filed under (it
        was begun by a dealer draw, which names no game): the game and config to file it
        under now."""
        deal = referee.deal
        if event.get("event") != "deal" or deal is None or deal.number != 1 or self.match_id is None:
            return None
        filed = self._match_config(event, referee)
        if self.store.match_config(self.match_id).get("game") == filed[0]:
            return None
        return filed

    def attach_vision(self, tracker: Any) -> None:
        """Camera plays from now on are decided by a :class:`PlayArbiter` over ``tracker`` (the
        vision feed's play tracker): questions about missed plays, out of turn called without
        asking only where the config opts in (``thresholds.trust_after_tricks``) and after that
        many whole tricks, nothing after the deal is over."""
        self.session = TableSession(tracker, referee=self.referee, confirm_below=self.cfg.thresholds.confidence,
                                    trust_after=self.cfg.thresholds.trust_after_tricks, apply=self._arbiter_apply)
        self._resume_trust()

    def _resume_trust(self) -> None:
        """A resumed match: the camera keeps the trust it had earned before the restart, and
        a short trick the operator said "no" about is not asked about again."""
        if self.arbiter is not None and self.match_id is not None:
            resume_trust(self.arbiter, self.store.steps(self.match_id))
            restore_answers(self.arbiter, self.referee, self.store.answers(self.match_id))

    # -- events ------------------------------------------------------------------------
    def handle(self, event: Mapping[str, Any], source_pos: int | None = None) -> list[dict[str, Any]]:
        """One event from the camera, a log or the buttons: decide, record, then tell the table."""
        confidence = event.get("confidence")
        unsure = event.get("uncertain") is True or (
            isinstance(confidence, int | float) and confidence < self.cfg.thresholds.confidence
        )
        if event.get("event") == "play" and isinstance(self.menu, EnrolMenu):
            log.info("a play seen while the deck is laid out for enrolment: not a play")
            return []
        if event.get("event") == "play" and self.arbiter is not None:
            return self._camera_play(dict(event), source_pos)
        if event.get("event") == "play" and unsure:
            return self._ask_confirm(dict(event), source_pos)
        event = self._with_config_options(event)
        if missing_deal_card(dict(event)):  # never referee a deal without its trump: ask
            self._ask_deal_card(dict(event), source_pos)
            return []
        return self._apply(dict(event), source_pos)

    def _with_config_options(self, event: Mapping[str, Any]) -> Mapping[str, Any]:
        """A deal of the configured game that names no options gets ``[game.options]`` (the
        camera and the operator's log do not repeat them); options it names win."""
        g = self.cfg.game
        if event.get("event") != "deal" or "options" in event or not g.options or event.get("game") != g.name:
            return event
        return {**event, "options": dict(g.options)}

    def _apply(self, event: dict[str, Any], source_pos: int | None, from_menu: bool = False,
               refuse: bool = False) -> list[dict[str, Any]]:
        """Decide, record, tell. ``refuse``: an event the rules core rejects raises its
        :class:`RefereeError` and nothing is recorded (not even a new match begun), where
        the camera's, a log's and the buttons' are recorded as rejected."""
        referee = Referee() if self.match_id is None else self.referee
        line = (0 if self.match_id is None else self.events_seen) + 1
        try:
            calls = [c.to_dict() for c in referee.apply(event)]
        except RefereeError as exc:  # malformed or out of phase: recorded, like replay's error lines
            if refuse:
                raise
            log.warning("event %d rejected: %s", line, exc)
            calls = [ErrorCall(line, str(exc)).to_dict()]
        if self.match_id is None:
            self.match_id = self.store.begin_match(*self._match_config(event, referee))
            self.referee, self.events_seen = referee, 0
        ends = any(c["call"] == "match_end" for c in calls)
        accepted = not any(c["call"] == "error" for c in calls)
        filed_as = self._filing(event, referee) if accepted else None
        try:
            self.store.append(self.match_id, event, calls, source_pos, ends_match=ends, filed_as=filed_as)
        except StateError:
            self.referee = _rebuild(self.store.events(self.match_id))  # memory = disk again
            raise
        self.events_seen += 1
        if self.frames is not None and event.get("event") == "play" and accepted:
            self._keep_frame(source_pos)
        if self.arbiter is not None and accepted:
            self._arbiter_saw(event, calls)
        if event.get("event") == "deal" and accepted:  # a refused deal leaves the table as it is
            if isinstance(self.menu, DealCardMenu) and not isinstance(self.menu, PlayedCardMenu) and not from_menu:
                self.menu = self.menu_pos = None  # the deal came from elsewhere (camera, log)
            if not from_menu:  # a menu's deal was counted when the button opened the menu
                self.deals_started += 1
        self._present(_with_drawn_card(event, calls))
        if ends:
            self.match_id = None
        return calls

    def _keep_frame(self, source_pos: int | None) -> None:
        """The frame the play just recorded came from, kept under its line in the export; a
        frame that cannot be kept never stops the refereeing (:mod:`referee.box.frames`)."""
        assert self.frames is not None and self.match_id is not None
        try:
            self.frames.keep(self.match_id, self.events_seen, source_pos)
        except Exception as exc:  # a courtesy to disputes: the play stands whatever happens here
            log.warning("the play's frame was not kept: %s", exc)

    def _ask_confirm(self, event: dict[str, Any], source_pos: int | None) -> list[dict[str, Any]]:
        """Hold an unsure play (the box has no arbiter: an event log's play) as the box's own
        :class:`Question`, asked on the display and the console alike: OK accepts it, right
        shows the next candidate (after the last, the card picker), left drops it."""
        if not isinstance(event.get("card"), str) or not isinstance(event.get("seat"), str):
            return self._apply(event, source_pos)  # nothing to ask about: the rules core says why
        alternatives = event.get("alternatives")
        t = event.get("t")
        self.question = Question(
            next(self.own_questions), QuestionKind.UNSURE, event["seat"], event["card"],
            confidence=float(event["confidence"]) if isinstance(event.get("confidence"), int | float) else None,
            alternatives=tuple(str(c) for c in alternatives) if isinstance(alternatives, list) else (),
            t=float(t) if isinstance(t, int | float) else 0.0)
        self._offer(self.question)
        self.pending, self.pending_pos = event, source_pos
        self.signals.unsure(self.question.seat)
        self.display.show(self._question_screen())
        return []

    def _offer(self, question: Question) -> None:
        """The cards a question offers, in order: the camera's, then its alternatives."""
        self.candidates, self.candidate_at = list(question.offered), 0

    # -- camera plays through the arbiter -----------------------------------------------
    def _camera_play(self, event: dict[str, Any], source_pos: int | None) -> list[dict[str, Any]]:
        assert self.arbiter is not None
        try:
            play = ProposedPlay.from_event(event)
        except ProposalError:  # not a play the camera could propose: the rules core says why
            return self._apply(event, source_pos)
        self.arbiter_pos = source_pos
        t = event.get("t")
        return self._told(self.session.camera([play], float(t) if isinstance(t, int | float) else self.arbiter.t))

    def frame(self, t: float, pos: int | None = None) -> list[dict[str, Any]]:
        """A camera frame at time ``t`` (after its plays were handled): the arbiter's checks
        that need no play (a trick gathered with fewer cards than seats and nothing played
        since: "did <seat> play?"), as ``referee watch`` runs them on every frame. Returns the
        referee's calls (none unless a queued play could go on)."""
        if self.arbiter is None:
            return []
        self.session.tick(t)  # events entered meanwhile (a deal) are noted at camera time
        if self.pending is not None or self.menu is not None or self.fault_screen is not None:
            return []  # the operator is busy with a question or a menu: one at a time
        self.arbiter_pos = pos
        return self._told(self.session.camera([], t))

    def _arbiter_apply(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        if self.naming_missed and event.get("confirmed"):  # the card the operator named
            self.naming_missed = False
            event = {**event, MISSED_KEY: True}
        return self._apply(event, self.arbiter_pos)

    def _arbiter_saw(self, event: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]) -> None:
        assert self.arbiter is not None
        if event.get("event") == "deal":  # nothing queued or asked belongs to the new deal
            self.session.clear()
            if self.pending is not None and self.pending.get("call") == "confirm":
                self.pending = self.pending_pos = None
                self.question = None
                if isinstance(self.menu, PlayedCardMenu):
                    self.menu = None
        self.session.noted(event, calls)

    def _told(self, told: Told | Refused) -> list[dict[str, Any]]:
        """The referee's calls from the session's output; its question goes to the display."""
        if isinstance(told, Refused):
            log.warning("%s", told.detail)
            return []
        calls = []
        for call in told.calls:
            if call["call"] == "error" and "line" not in call:  # an answer it could not use
                log.warning("%s", call.get("detail"))
            else:
                calls.append(call)
        if told.question is not None:
            self._ask_question(told.question)
        return calls

    def _ask_question(self, question: Question) -> None:
        """The arbiter asks about a play: an unsure card, or "did <seat> play?" (with the
        camera's guess, or, having none, the card menu: back out of it = no play)."""
        self.question = question
        self.pending, self.pending_pos = question.to_call(), self.arbiter_pos
        self.signals.unsure(question.seat)
        if question.card is None:
            self._pick_played_card(question.seat, None)
            return
        self._offer(question)
        self.display.show(self._question_screen())

    def _question_screen(self) -> ConfirmScreen:
        """The open question on the display, on its current candidate card, saying why a
        sure read is asked (the rule it would break, the card it would replace) and whether
        right opens the card picker next."""
        assert self.question is not None
        last = self.candidate_at == len(self.candidates) - 1
        return ConfirmScreen.for_question(self.question, self.candidates[self.candidate_at], more=last)

    def _next_candidate(self) -> None:
        """Right on a question: the next card offered; after the last one (a missed play's
        guess is the only one) the card picker, on the first: the operator can name any card
        of the deck, e.g. a rank the camera never offered (it read 7C, it was 9C)."""
        assert self.pending is not None
        if self.candidate_at + 1 < len(self.candidates):
            self.candidate_at += 1
            self.display.show(self._question_screen())
        else:
            self._pick_played_card(str(self.pending.get("seat")), self.candidates[0])

    def _pick_played_card(self, seat: str, guess: str | None) -> None:
        self.menu = PlayedCardMenu(seat, get_game(self.cfg.game.name).deck, guess)
        self.display.show(self.menu.screen(self.lang))

    def _answer(self, answer: Answer) -> list[dict[str, Any]]:
        """The operator's answer to the arbiter's question; the calls it caused."""
        assert self.arbiter is not None
        self.arbiter_pos = self.pending_pos
        question, asked = self.pending, self.question
        self.naming_missed = question is not None and bool(question.get("missed"))
        self.pending = self.pending_pos = None
        self.question = None
        self.signals.confirmed()
        if question is not None and self.naming_missed and not answer.accept:
            self._record_no_play(str(question.get("seat")))
        try:
            calls = self._told(self.session.answer(asked.id if asked is not None else None, answer))
        finally:
            self.naming_missed = False
        self._show_home()
        return calls

    def _record_no_play(self, seat: str) -> None:
        """Record "no, ``seat`` did not play": it is no event, so it goes to the record's
        answers, else a restart would ask about the same short trick again
        (``referee.box.answers``)."""
        answer = no_play_answer(self.referee, seat)
        if answer is not None and self.match_id is not None:
            self.store.append_answer(self.match_id, answer)

    # -- calls -> the table ------------------------------------------------------------
    def _present(self, calls: Sequence[Mapping[str, Any]]) -> None:
        for call in calls:
            kind = call["call"]
            if kind == "turn":
                self.signals.turn(call["seat"])
                self.turn_since, self.warned, self.timed_out = self.clock(), False, False
            elif kind in ("deal_end", "match_end"):
                self._result(call)
            shown = screen_for_call(call)
            if kind == "undo":  # the operator's own action: at once, and older news is stale
                self._drop_stale_news(undone=call)
            if shown is not None:
                self._flash(*shown, now=kind == "undo")
            if kind == "trick":
                self.signals.trick_winner(call["winner"])
            elif kind == "violation":
                self.signals.violation()
            elif kind == "withdrawn" and not any(c["call"] == "violation" for c in calls):
                self.signals.withdrawn()  # with a new violation, its red LED and beeps stand
        if not self.transient:
            self._show_home()

    def _result(self, call: Mapping[str, Any]) -> None:
        winner = call.get("winner")
        self.signals.turn(None)
        self.turn_since = None
        if winner:
            self.signals.team_won(str(winner).split("+"))

    def _flash(self, screen: Screen, kind: str, now: bool = False) -> None:
        """Show ``screen`` for a while; if another is up, queue it (a violation is not hidden by
        the deal end it caused). A newer screen of the same kind replaces a queued one, except
        for news that does not go stale (:data:`EACH_SHOWN`: each violation, withdrawal and
        declaration is shown, in order)."""
        if not now and self.transient is not None and self.transient[1] > self.clock():
            keep = kind in EACH_SHOWN
            if kind == "withdrawn":
                self._drop_withdrawn_violation(screen)
            self.queued = [(s, k) for s, k in self.queued if keep or k != kind] + [(screen, kind)]
            return
        self.transient = (screen, self.clock() + SHOW_S[kind])
        if self.fault_screen is None:
            self.display.show(screen)

    def _drop_withdrawn_violation(self, withdrawn: Screen) -> None:
        """A violation withdrawn before its screen came up: that screen is not shown. Its
        buzzer and red LED already told the table, and the withdrawal's screen names the same
        seat, rule and trick, so the table learns what it heard and that it no longer stands,
        without five seconds of a call that is void (and all later news five seconds late)."""
        assert isinstance(withdrawn, ViolationScreen)
        same = (withdrawn.seat, withdrawn.rule, withdrawn.trick)
        for i, (s, k) in enumerate(self.queued):
            if k == "violation" and isinstance(s, ViolationScreen) and (s.seat, s.rule, s.trick) == same:
                del self.queued[i]
                return

    def _drop_stale_news(self, undone: Mapping[str, Any] | None = None) -> None:
        """Waiting screens an operator's action (undo, the score button) makes stale: all but
        the calls the table must hear (:data:`EACH_SHOWN`), less the declaration an ``undo``
        call took back (its violations are withdrawn by calls of their own)."""
        taken_back = None
        if undone is not None and undone.get("cards"):
            taken_back = (undone.get("seat"), sorted(undone["cards"]))
        self.queued = [(s, k) for s, k in self.queued if k in EACH_SHOWN and not (
            isinstance(s, DeclarationScreen) and (s.seat, sorted(s.cards)) == taken_back)]

    def home_screen(self) -> ScoreScreen:
        """The running score (per game: :mod:`referee.box.home`), the contract, whose turn."""
        return home_screen(self.referee, self.cfg.game.name, self.cfg.game.teams)

    def _show_home(self) -> None:
        """What stays on the screen when no call's screen is up: the open menu, else the
        question waiting for the operator, else the fault screen while a fault lasts, else the
        score (a call's screen or a closed menu must not be left up over any of them)."""
        if self.menu is not None:
            self.display.show(self.menu.screen(self.lang))
        elif self.pending is not None:
            self.display.show(self._question_screen())
        elif self.fault_screen is None and self.match_id is None and self.assignment is not None:
            self.display.show(self.assignment_screen())
        else:
            self.display.show(self.fault_screen or self.home_screen())

    # -- the phone console (referee.web): called from the main loop, like gesture() ------
    def submit(self, event: Mapping[str, Any]) -> list[dict[str, Any]] | Refused:
        """An event from the phone console, in the event-log schema: decided and recorded as
        a button's is, except that one the rules core rejects is refused with its reason
        and nothing is recorded. An ``undo`` may reopen the match before (as the button's)."""
        event = self._with_config_options(event)
        try:
            if event.get("event") == "undo":
                return self._undo(refuse=True)
            calls = self._apply(dict(event), None, refuse=True)
            deal = self.referee.deal
            if event.get("event") == "deal" and deal is not None and deal.number == 1:  # a match's first
                self._keep_console_game(event)
            return calls
        except StateError:
            raise  # the record cannot be written: the box's fault, not the event's
        except RefereeError as exc:
            return Refused(str(exc))

    def answer_question(self, question_id: int, answer: Answer) -> list[dict[str, Any]] | Refused:
        """The console's answer to the open question ``question_id``, the arbiter's or the
        box's own (an answer to a question no longer open, answered by the buttons or another
        phone first, is refused)."""
        if self.question is None or self.question.id != question_id or self.pending is None:
            return Refused(f"confirm: question {question_id} is not open")
        if self.menu is not None:  # the card picker the buttons opened for it
            self.menu = self.menu_pos = None
        if self.arbiter is None:
            return self._resolve_pending(answer.accept, answer.card, seat=answer.seat)
        return self._answer(answer)

    def end_match(self) -> int | None:
        """Set the unfinished match aside (kept in the record, marked abandoned): the next
        deal starts a new match. Returns the match set aside, if any."""
        ended = self.match_id
        if ended is not None:
            self.store.abandon_match(ended)
            log.info("match %d set aside by the console", ended)
        self._forget_match()
        self._show_home()
        return ended

    def _forget_match(self) -> None:
        """No match in play: the next deal starts one (the record keeps the old one)."""
        self.match_id, self.referee, self.events_seen = None, Referee(), 0
        self.session.clear()
        self.pending = self.pending_pos = self.question = self.menu = None
        self.turn_since = None
        self.signals.turn(None)

    # -- buttons -----------------------------------------------------------------------
    def gesture(self, button: str, kind: str) -> None:
        """A button gesture, from the main loop (see :mod:`referee.box.buttons`)."""
        if self.menu is not None:
            self._menu_action(MENU_GESTURES[(button, kind)])
            return
        action = GESTURES[(button, kind)]
        if self.pending is not None and action in ("confirm", "last_trick", "score"):
            if action == "score":  # right: another card
                self._next_candidate()
            else:
                self._resolve_pending(accept=action == "confirm")
        elif self.pending is not None and action == "next_deal":
            # A hold of right while paging the question's cards with right presses: a new deal
            # now would drop the play being asked about. Answer the question first.
            log.info("next deal held while a question is open: ignored")
            self.display.show(self._question_screen())
        elif action == "undo":
            self._undo()
        elif action == "last_trick":
            trick = self.referee.last_trick
            if trick is not None:
                winner = self._last_trick_winner()
                self._flash(LastTrickScreen(trick.number, winner, list(trick.codes())), "info", now=True)
        elif action == "score":
            self._drop_stale_news()
            self._flash(self.home_screen(), "info", now=True)  # also over the move timer
        elif action == "menu":  # everything besides the cards: contract, declarations, game...
            self.menu = EntryMenu(self.cfg.game.name, self.cfg.game.seats, declarer=self._declarer(),
                                  options=self.cfg.game.options, enrol=self.enroller is not None)
            self.display.show(self.menu.screen(self.lang))
        elif action == "next_deal":
            event = self.next_deal_event()
            if missing_deal_card(event):
                # Between deals the table is being redealt: the camera forgets it now. Held
                # by mistake mid-deal, it forgets nothing unless the menu's deal is accepted.
                between = self.referee.deal is None or self.referee.deal.phase == "over"
                if between:
                    self.deals_started += 1
                self._ask_deal_card(event, None, counted=between)
            else:
                self._apply(event, None)

    def _ask_deal_card(self, event: dict[str, Any], source_pos: int | None, counted: bool = False) -> None:
        """Open the face-up card menu for ``event``, on the camera's reading when it has one."""
        guess = None
        if self.stock_reader is not None:
            try:
                guess = self.stock_reader()
            except Exception as exc:  # the camera's guess is a convenience, never a fault
                log.warning("no stock card reading: %s", exc)
        self.menu, self.menu_pos = DealCardMenu(event, guess), source_pos
        self.menu_counted = counted  # its deal was counted in deals_started already
        self.display.show(self.menu.screen(self.lang))

    def _undo(self, refuse: bool = False) -> list[dict[str, Any]]:
        """Undo the last play; right after a match ended (even once the next match's deal was
        entered) that is the ended match's last play: its record is reopened first."""
        if self.match_id is None or not _can_undo(self.store.events(self.match_id)):
            game = self.referee.game  # the match just ended: maybe a game chosen on the console
            previous = self.store.previous_match(game.name if game else self.cfg.game.name, self.match_id)
            if previous is not None and _can_undo(self.store.events(previous)):
                self.store.reopen_match(previous, abandon=self.match_id)
                events = self.store.events(previous)
                self.match_id, self.referee, self.events_seen = previous, _rebuild(events), len(events)
                self._resume_trust()
                log.info("undo reopens match %d", previous)
        return self._apply({"event": "undo"}, None, refuse=refuse)

    def _last_trick_winner(self) -> str:
        game, deal, trick = self.referee.game, self.referee.deal, self.referee.last_trick
        if game is None or deal is None or trick is None:
            return "?"
        return trick.plays[game.trick_winner(deal, trick)][0]

    def _resolve_pending(self, accept: bool, card: str | None = None,
                         seat: str | None = None) -> list[dict[str, Any]]:
        """Answer the open question: ``accept`` the card on screen (or ``card``, named in
        the picker or on the console: the same answer as an offered one; ``seat``: the seat
        that played, when not the one asked about), or not. Returns the calls it caused."""
        if accept and card is None:
            card = self.candidates[self.candidate_at]
        if self.arbiter is not None and self.pending is not None and self.pending.get("call") == "confirm":
            return self._answer(Answer.named(str(card)) if accept else Answer.no())
        event, pos = self.pending, self.pending_pos
        self.pending = self.pending_pos = self.question = None
        self.signals.confirmed()
        if accept and event is not None:
            for key in ("confidence", "uncertain", "alternatives"):
                event.pop(key, None)
            return self._apply({**event, "card": card, "seat": seat or event.get("seat"), "confirmed": True}, pos)
        self._show_home()
        return []

    def _menu_action(self, action: str) -> None:
        assert self.menu is not None
        result = self.menu.press(action)
        if result is None:
            self.display.show(self.menu.screen(self.lang))
            return
        menu, pos, counted = self.menu, self.menu_pos, self.menu_counted
        self.menu = self.menu_pos = None
        if isinstance(menu, PlayedCardMenu):
            self._picked(result)
        elif result in (CANCELLED, DONE):
            self._show_home()
        elif result == ENROL_DECK:
            self._enrol_deck()
        elif isinstance(result, GameChoice):
            self._choose_game(result)
        elif isinstance(result, dict) and isinstance(menu, EntryMenu):
            self._enter(result)
        elif isinstance(result, dict):
            self._apply(result, pos, from_menu=isinstance(menu, DealCardMenu) and counted)

    def _enter(self, event: dict[str, Any]) -> None:
        """An event entered on the entry menu: applied as any other; one the rules core
        rejects shows its reason and records nothing."""
        try:
            self._apply(event, None, refuse=True)
        except RefereeError as exc:
            log.info("entry refused: %s", exc)
            self._flash(RefusedScreen(str(exc)), "refused", now=True)

    def _enrol_deck(self) -> None:
        """Open the deck enrolment (the camera and the recogniser it needs are loaded now; one
        that cannot be had shows why)."""
        assert self.enroller is not None
        try:
            enrolment = self.enroller()
        except RefereeError as exc:
            log.warning("cannot enrol the deck: %s", exc)
            self._flash(RefusedScreen(str(exc)), "refused", now=True)
            return
        self.menu = EnrolMenu(enrolment, self.display.show, self.lang)
        self.display.show(self.menu.screen(self.lang))

    def _declarer(self) -> str | None:
        """Binocolo's declarer once the contract is in: the discard's seat."""
        deal = self.referee.deal
        return getattr(deal.data, "declarer", None) if deal is not None else None

    def _choose_game(self, choice: GameChoice) -> None:
        """The game (and options) chosen on the menu: kept for restarts, played from the next
        match. A match of the same game in progress keeps its options: changing them needs
        it finished first (one of another game stays in the record, resumed when chosen)."""
        same = choice.game == self.cfg.game.name
        if same and self.match_id is not None and dict(choice.options) != dict(self.cfg.game.options):
            self._flash(RefusedScreen(tr(self.lang, "game_busy")), "refused", now=True)
            return
        try:
            chosen_game.save(self.cfg.state_dir, choice)
        except OSError as exc:
            self._flash(RefusedScreen(f"{chosen_game.path_of(self.cfg.state_dir)}: {exc}"), "refused", now=True)
            return
        log.info("game chosen on the menu: %s %s", choice.game, dict(choice.options))
        self.cfg = chosen_game.applied(self.cfg, choice)
        self._forget_match()
        self.start()

    def _keep_console_game(self, event: Mapping[str, Any]) -> None:
        """A match the console began with a game (or options) other than the box's: that game
        is kept for restarts, as one chosen on the menu is (the match is resumed, the buttons'
        next deal deals it). Keeping it is a courtesy: a file that cannot be written is logged."""
        game = self.referee.game
        options = event.get("options")
        choice = GameChoice(str(event.get("game")), dict(options) if isinstance(options, Mapping) else {})
        if game is None or game.name != choice.game or (
                choice.game == self.cfg.game.name and dict(choice.options) == dict(self.cfg.game.options)):
            return
        try:
            chosen_game.save(self.cfg.state_dir, choice)
        except OSError as exc:
            log.warning("%s: the game set up on the console is not kept for a restart: %s",
                        chosen_game.path_of(self.cfg.state_dir), exc)
            return
        log.info("game set up on the console: %s %s", choice.game, dict(choice.options))
        self.cfg = chosen_game.applied(self.cfg, choice)

    def _picked(self, result: dict[str, Any] | str) -> None:
        """The card picker closed: the card named answers the question as an offered one
        would; backed out, a missed play's question is answered "no play", any other
        question is asked again (its reject is left on the question screen)."""
        if isinstance(result, dict):
            self._resolve_pending(accept=True, card=str(result["card"]))
        elif self.pending is not None and not self.pending.get("missed"):
            self.candidate_at = 0
            self._show_home()
        else:
            self._resolve_pending(accept=False)

    def next_deal_event(self) -> dict[str, Any]:
        """A ``deal`` event for the configured table (the camera adds what it sees, e.g. the
        face-up briscola, when it sends its own)."""
        g = self.cfg.game
        event: dict[str, Any] = {"event": "deal", "game": g.name, "seats": list(g.seats)}
        if self.referee.next_dealer:
            event["dealer"] = self.referee.next_dealer
        if g.options:
            event["options"] = dict(g.options)
        return event

    # -- time and faults ---------------------------------------------------------------
    def tick(self) -> None:
        """Called every loop: the move timer and the end of transient screens."""
        now = self.clock()
        since, self.last_tick = self.last_tick, now
        if self.turn_since is not None and since is not None and (self.pending is not None or self.menu is not None):
            self.turn_since += now - since  # the operator is being asked: the player's time stands
        if self.transient and now >= self.transient[1]:
            self.transient = None
            if self.queued:
                self._flash(*self.queued.pop(0))
            else:
                self._show_home()
        seconds = self.move_timer_s()
        if seconds is None or self.turn_since is None or self.referee.turn is None:
            return
        warning_s = min(self.cfg.timer.warning_s, seconds / 4)  # a short timer still counts down
        left = seconds - (now - self.turn_since)
        if left <= warning_s and not self.warned:
            self.warned = True
            self.signals.warning_beep()
        if left <= 0 and not self.timed_out:
            self.timed_out = True
            self.signals.time_up()
            self._flash(ViolationScreen(self.referee.turn, "move_timer"), "violation")
        elif not self.transient and self.fault_screen is None and self.menu is None and self.pending is None:
            shown = max(0, int(left + 0.999))
            total = int(seconds + 0.999)
            self.display.show(TimerScreen(self.referee.turn, shown, total, left <= warning_s))

    def move_timer_s(self) -> float | None:
        """Seconds per move, or ``None`` for no timer. The game's ``move_timer_s`` option (its
        document's default: briscola-2 20 s, briscola-4 none) decides; ``[timer] enabled =
        false`` switches it off, ``true`` runs ``[timer] seconds`` where the game sets none."""
        game = self.referee.game
        option = getattr(game.options, "move_timer_s", None) if game is not None else None
        timer = self.cfg.timer
        if timer.enabled is False:
            return None
        if isinstance(option, int | float) and option > 0:
            return float(option)
        return float(timer.seconds) if timer.enabled is True else None

    def fault(self, what_key: str, retries: int) -> None:
        """A fault the table must see (camera gone, record not writable); state is kept."""
        first = self.fault_screen is None
        self.fault_screen = FaultScreen(what_key, retries)
        if first:
            self.signals.fault()
        self.display.show(self.fault_screen)

    def fault_cleared(self) -> None:
        if self.fault_screen is None:
            return
        self.fault_screen = None
        self.signals.fault_cleared()
        if self.turn_since is not None:
            self.turn_since = self.clock()  # the player's time did not run while the camera was out
        self._redraw()

    def _redraw(self) -> None:
        """Show again what the fault screen covered: an open menu, the question waiting for
        an answer, a call's screen still in its time, else the score (a question left under
        a stale FAULT would wait for an answer nobody knows is asked)."""
        # (the menu and the question come before a call's screen: the operator is at them)
        if self.menu is None and self.pending is None and self.transient is not None and (
                self.transient[1] > self.clock()):
            self.display.show(self.transient[0])
        else:
            self._show_home()


def _rebuild(events: Sequence[Mapping[str, Any]]) -> Referee:
    """A Referee that has seen ``events``; rejected ones are rejected again, harmlessly."""
    ref = Referee()
    for event in events:
        with contextlib.suppress(RefereeError):
            ref.apply(event)
    return ref


def _can_undo(events: Sequence[Mapping[str, Any]]) -> bool:
    """Whether an undo has something to retract within this recorded match alone (the record
    is per match, so an undo reaching into the match before must reopen that one)."""
    try:
        _rebuild(events).apply({"event": "undo"})
    except RefereeError:
        return False
    return True


def _with_drawn_card(event: Mapping[str, Any], calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dealer call names the seat; the box also shows the card that won the draw."""
    drawn = event.get("cards") if event.get("event") == "draw" else None
    if not isinstance(drawn, dict):
        return calls
    return [{**c, "card": drawn.get(c["seat"])} if c["call"] == "dealer" else c for c in calls]
