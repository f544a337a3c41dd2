"""Which camera plays reach the referee, and which become questions for the operator.

Shared by ``referee watch``/``referee demo`` (:class:`referee.vision.watch.WatchLoop`) and the
box (``referee run``, :class:`referee.box.app.Box`), so the live decisions are written once:

* camera plays queue in order; an unsure one (``uncertain`` or confidence below
  ``confirm_below``) becomes a ``{"call": "confirm", ...}`` request and the plays after it wait;
* a play from a seat not on turn first asks whether the seat on turn played (the camera may
  have missed its card): ``{"call": "confirm", "seat": turn, "card": guess-or-None, "missed":
  true}``; the operator's "no" then calls out_of_turn.  By default the camera never calls
  out_of_turn on its own: out of turn forfeits a tournament briscola-4 deal, and a camera that
  missed the turn seat's card entirely (nothing still, nothing in its spot) would call it
  falsely (3 false calls in 10 simulated deals, ``vision_e2e.py --seeds 2``).  A table may opt
  in with ``trust_after`` (``--trust-after-tricks``, the box's ``trust_after_tricks``): a
  camera that saw that many whole tricks in a row, with no evidence of a missed card and the
  turn seat's spot clear, then calls out_of_turn without asking;
* a sure camera play that the rules would call a violation (other than out of turn: above) is
  asked first, ``{"call": "confirm", ..., "violation": rule}``: in a legal game it is far
  likelier a misread, and a misread taken as sure puts every later trick out of step;
* a trick gathered with fewer cards than seats asks about the seat on turn;
* after the deal is over nothing on the table is a play.

* a play about to be applied that the rules would call a violation (other than out of turn),
  the operator's own card included, first has the camera plays it rests on checked, if nobody
  confirmed them: ``{"call": "confirm", "seat", "card": a guess, "correction": X, "violation":
  rule, "premise": true}`` ("was that seat's X really X?").  A violation is only as sure as the
  cards it rests on: the other cards of its trick (the lead sets the suit), for a card already
  seen its earlier sightings; only those without which it would not be called.  A model can
  misread a suit surely in every frame (an ace of clubs read as the ace of spades); the correct
  cards named after it then look like revokes, the trick goes to the wrong seat and every later
  trick is out of step, and no read of the card itself can tell
  (``tests/vision/test_tracker_premises.py``).  Likewise a lead out of turn that the seat on turn says it did not forestall rests
  on who won the last trick: the leader's own card there and the winning card are asked about
  first.  The operator naming another card replaces that play (the plays after it are taken
  back and played again); "no" lets the violation stand;

* a camera play with ``"correction": X`` says a card already played as X, still lying in the
  trick in progress, now reads surely as another card: while X is still the trick's last play
  it is asked as ``{"call": "confirm", "seat", "card", "correction": X}`` and, if the operator
  agrees, the play of X is undone and the card named played instead; nothing changes otherwise.

Operator answers: ``{"event": "confirm"}`` (yes), ``{"event": "confirm", "card": C}`` (it was
C), ``{"event": "confirm", "accept": false}`` (no play; after a missed question the next play
stands, out of turn or not; after a correction the play stays as it was).

The arbiter applies plays through ``apply`` (the caller's: the watch loop's referee, the box's
record) and must be told of every applied event with :meth:`PlayArbiter.note`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.cards import FRENCH_SUITS, ITALIAN_SUITS, Card, parse_card
from referee.errors import BadCardError, ConfigError
from referee.rules import Referee
from referee.rules.calls import ViolationCall
from referee.rules.events import PlayEvent
from referee.rules.state import DealState
from referee.table.answer import Answer
from referee.table.camera import CameraTracker
from referee.table.proposal import ProposedPlay
from referee.table.waiting import WaitingPlay

Event = dict[str, Any]
#: the usual ``trust_after`` for a table that opts in to out-of-turn calls from the camera:
#: whole tricks in a row it must have seen before it calls out_of_turn without asking
TRUSTED_AFTER = 2
#: ``trust_after`` by default: never trusted, an out-of-turn play is always asked about first
NEVER_TRUSTED = 0
#: what a play event tells the referee; and what the arbiter keeps beside it
_PLAY_KEYS = ("event", "seat", "card", "confidence", "confirmed")
_META_KEYS = ("track", "alternatives", "verified")


class PlayArbiter:
    """Camera plays + operator answers in; applied plays' calls and confirm requests out.

    ``tracker``: the play tracker's questions (``missed_since``, ``best_guess``,
    ``trick_on_table``, ``spot_clear``, ``settle``, ``config.long_gone_s``).
    ``apply(event) -> calls``: sends a play to the referee, returns its calls as dicts.
    ``trust_after``: whole tricks in a row after which the camera calls out_of_turn without
    asking (:data:`NEVER_TRUSTED`, the default: always ask).
    """

    def __init__(
        self,
        tracker: CameraTracker,
        referee_of: Callable[[], Referee],
        apply: Callable[[Event], list[Event]],
        confirm_below: float = 0.8,
        trust_after: int = NEVER_TRUSTED,
    ) -> None:
        if trust_after < 0:
            raise ConfigError(f"trust_after: expected 0 (never) or a number of tricks, got {trust_after}")
        self.tracker = tracker
        self.referee_of = referee_of
        self.apply = apply
        self.confirm_below = confirm_below
        self.trust_after = trust_after
        self.queue: list[WaitingPlay] = []  # camera plays not yet applied, in order
        self.asked = False  # the queue's head is waiting for the operator
        self.t = 0.0
        self.last_play_t = 0.0  # when the referee last got a play (or the deal)
        self.trick_start_t = 0.0  # when the referee's current trick began (deal or last trick)
        #: tricks in a row the camera saw whole (no missed card named by the operator): only a
        #: camera with such a record is trusted to call an out-of-turn play without asking
        self.clean_tricks = 0
        self._named_missed = False
        self.asked_gathered = -1  # the trick whose short gathering was already asked about
        #: the deal's plays as applied (their events: camera plays carry ``confidence`` and
        #: ``track``, the operator's ``confirmed``), kept by :meth:`note`; a premise question
        #: marks one ``verified`` (the operator said it is right)
        self.applied: list[Event] = []

    @property
    def question(self) -> WaitingPlay | None:
        """The play waiting for the operator's answer, if any."""
        return self.queue[0] if self.asked and self.queue else None

    def clear(self) -> None:
        """Forget queued plays and the open question (a new deal, the deal is over)."""
        self.queue.clear()
        self.asked = False

    def deal_over(self) -> bool:
        deal = self.referee_of().deal
        return deal is not None and deal.phase == "over"

    def camera(self, plays: Sequence[ProposedPlay], t: float) -> list[Event]:
        """The camera's new plays at frame time ``t`` (none: still checks a short gathering)."""
        self.t = t
        if self.deal_over():  # between deals nothing on the table is a play
            self.clear()
            return []
        self.queue.extend(WaitingPlay.of(p) for p in plays)
        out = self._drain()
        if not self.queue:
            out += self._gathered_short()
        return out

    @property
    def named_missed(self) -> bool:
        """Whether the operator named a card the camera missed in the trick in progress."""
        return self._named_missed

    @property
    def trusted(self) -> bool:
        """Whether an out-of-turn play seen clearly is called without asking (opted in, and
        enough whole tricks in a row seen)."""
        return self.trust_after > 0 and self.clean_tricks >= self.trust_after

    def forget_trust(self) -> None:
        """Back to a fresh arbiter's record: no whole tricks seen, no missed card named."""
        self.clean_tricks, self._named_missed = 0, False

    def note(
        self, event: Mapping[str, Any], calls: Sequence[Mapping[str, Any]], named_missed: bool = False
    ) -> None:
        """An event the referee accepted (from here or from the operator), with its calls.

        ``named_missed``: the event is a play the operator named after a "did <seat> play?"
        question (the camera missed that card, so its trick does not count as whole).  The
        arbiter's own :meth:`answer` knows it already; a caller replaying a record (the box
        after a restart) says so here."""
        if named_missed and event.get("event") == "play":
            self._named_missed = True
        if event.get("event") in ("deal", "play"):
            self.last_play_t = self.t
        if event.get("event") == "deal":
            self.applied = []
        elif event.get("event") == "play":
            self.applied.append(dict(event))
        elif event.get("event") == "undo" and self.applied and any(
                c.get("call") == "undo" and c.get("card") for c in calls):
            self.applied.pop()  # a play taken back (not a declaration)
        if event.get("event") == "deal":  # trick numbers start again: the last deal's
            self.asked_gathered = -1  # "trick k was asked about" must not silence this deal's
        if event.get("event") == "deal" or any(c.get("call") == "trick" for c in calls):
            self.trick_start_t = self.t
            whole = event.get("event") != "deal" and not self._named_missed
            self.clean_tricks = self.clean_tricks + 1 if whole else 0
            self._named_missed = False

    # -- operator ------------------------------------------------------------------------
    def answer(self, answer: Answer) -> list[Event]:
        """The operator's answer to the open question."""
        if not self.queue:
            return [{"call": "error", "detail": "confirm: no play is waiting for confirmation"}]
        head = self.queue.pop(0)
        self.asked = False
        out: list[Event] = []
        if head.missed and not answer.accept and self.queue:
            self.queue[0].checked = True  # the seat on turn did not play: the next play stands
        if head.premise:
            return out + self._premise_answer(head, answer) + self._drain()
        if head.correction is not None:
            if answer.accept:
                out += self._correct(head.seat, head.correction, str(_named(answer, head)), head.track)
            return out + self._drain()
        if answer.accept:
            card = _named(answer, head)
            seat = answer.seat if answer.seat is not None else head.seat
            if card is None:
                self.queue.insert(0, head)
                self.asked = True
                return [{"call": "error", "detail": f"confirm: name the card {seat} played (\"card\": ...)"}]
            self.tracker.settle(head.track, str(card), seat)
            if head.missed:
                self._named_missed = True  # the camera missed a card: not trusted for a while
                # A trick still short after this (two cards missed) is not asked about again on
                # the frame tick: the next camera play asks about the seat on turn. Asking as soon
                # as the table is quiet cost a wrong trick winner and a false revoke on the held-out
                # Knoll print (belotta seed 3), where the tracker often cannot see the trick's cards.
            # The camera's own play of that card may already be queued (it settled in the same
            # frame as a later card that forced the question): it is the card just named, not a
            # second play (else the seat "plays" it again, a phantom out of turn).
            self.queue = [q for q in self.queue if (q.seat, q.card) != (seat, str(card))]
            # The named play goes first, through the premise check (_drain) before it is applied.
            self.queue.insert(0, WaitingPlay(seat, str(card), named=True, was_missed=head.missed))
        return out + self._drain()

    # -- camera plays ----------------------------------------------------------------------
    def _drain(self) -> list[Event]:
        out: list[Event] = []
        while self.queue and not self.asked:
            head = self.queue[0]
            if head.named:  # the operator's card: applied unless a premise must be checked first
                premise = self._premise_question(head)
                if premise is None:
                    self.queue.pop(0)
                    named = {"event": "play", "seat": head.seat, "card": head.card, "confirmed": True}
                    if head.was_missed:  # the record says so even when a premise came between
                        named["missed"] = True  # (ignored by the rules core; the box's trust count)
                    out += self.apply(named)
                    continue
                self.queue.insert(0, premise)
                head = premise
            if head.premise and not self._still_applied(head):
                self.queue.pop(0)  # taken back meanwhile: nothing to ask
                continue
            if head.correction is not None and not head.premise and not self._correctable(head.seat, head.correction):
                self.queue.pop(0)  # its trick is over (or the play was undone): too late to ask
                continue
            missed = None if head.missed or head.correction or head.premise else self._missed_question(head)
            if missed is not None:
                self.queue.insert(0, missed)
                head = missed
            if head.checked and not head.uncertain:
                premise = self._turn_premise(head)
                if premise is not None:
                    self.queue.insert(0, premise)
                    head = premise
            if not head.uncertain and head.sureness >= self.confirm_below:
                rule = self._violation_if_played(head)
                if rule is not None:  # a sure read the rules call a violation: likelier a misread
                    head.uncertain, head.violation = True, rule
            if head.uncertain or head.sureness < self.confirm_below:
                self.asked = True
                call = {"call": "confirm", "seat": head.seat, "card": head.card, "confidence": head.confidence,
                        "alternatives": list(head.alternatives), "t": round(self.t, 2)}
                if head.missed:
                    call["missed"] = True  # "did this seat play?": the camera saw no clear card
                if head.correction is not None:
                    call["correction"] = head.correction  # "was it this card, not that one?"
                if head.violation:
                    call["violation"] = head.violation  # "really this card? it breaks a rule"
                if head.premise:
                    call["premise"] = True  # "was that earlier card really X?" (a violation rests on it)
                    call["index"] = head.index  # which play of the deal (0 = the first card)
                out.append(call)
                break
            self.queue.pop(0)
            out += self._apply_play({"event": "play", "seat": head.seat, "card": head.card,
                                     "confidence": head.confidence, "track": head.track,
                                     "alternatives": list(head.alternatives)})
        return out

    def _violation_if_played(self, head: WaitingPlay) -> str | None:
        """The rule a sure camera play would break (on a copy of the referee), out of turn
        aside (the missed-card questions above decide that one), else None.  Binocolo seed 1
        (Knoll print): E's 9C, read as 9S at ~0.87 for a second, went in as a revoke (E had
        melded 9C) and put every later trick out of step; a question costs less."""
        calls = self._trial(head)
        return str(calls[0].rule) if calls else None

    def _trial(self, head: WaitingPlay) -> list[ViolationCall]:
        """The violations (out of turn aside) ``head`` would be called, tried on a copy."""
        events = self.referee_of().deal_events  # the deal so far, replayable
        if not events:
            return []
        try:
            trial = Referee.from_events(events)  # the deal alone: enough to judge one play
            calls = trial.apply({"event": "play", "seat": head.seat, "card": head.card})
        except Exception:  # a trial must never stop the live loop: the real apply reports errors
            return []
        return [c for c in calls if isinstance(c, ViolationCall) and c.rule != "out_of_turn"]

    def _premise_question(self, head: WaitingPlay) -> WaitingPlay | None:
        """A question about a camera play nobody confirmed that the violation ``head`` would be
        called (the operator's card, or a camera play the operator let stand) rests on; None:
        no violation, or every such play was named or checked by the operator (it stands).

        What a violation rests on: the other cards of the trick it is called in (the lead sets
        the suit; a revoke proven later is called in its own trick), lead first; for a card
        "already seen", the earlier plays of that card, least sure first; either only where
        the violation would not be called without that play (:meth:`_rests_on`).  A sure
        misread of one of those is likelier than a violation in a club's game."""
        calls = self._trial(head)
        deal = self.referee_of().deal
        if not calls or deal is None:
            return None
        if not self._aligned():
            return None  # the arbiter did not see every play of this deal (a resumed box): never guess
        plays = _deal_plays(deal)
        call = calls[0]
        same = sorted((k for k, (_, _, c) in enumerate(plays) if call.rule == "duplicate_card" and c == call.card),
                      key=lambda k: float(self.applied[k].get("confidence") or 1.0))  # least sure first
        trick = [k for k, (n, s, c) in enumerate(plays) if n == call.trick and (s, c) != (call.seat, call.card)]
        for k in [*same, *trick]:
            play = self.applied[k]
            if play.get("confirmed") or play.get("verified") or not self._rests_on(k, head, call):
                continue
            return self._premise_about(k, call.rule)
        return None

    def _turn_premise(self, head: WaitingPlay) -> WaitingPlay | None:
        """A question about the last trick's camera plays nobody confirmed when ``head`` would
        lead out of turn although the seat on turn said it had not played: who leads rests on
        who won that trick, i.e. on ``head``'s seat's own card there and the winning card: a
        sure misread of either gives the trick to the wrong seat, and the rightful winner's
        next lead then looks out of turn."""
        referee = self.referee_of()
        deal, turn = referee.deal, referee.turn
        if deal is None or turn is None or head.seat == turn or not deal.tricks:
            return None
        if deal.trick is not None and deal.trick.plays:
            return None  # mid-trick: the order of the seats, not the lead, is in question
        if not self._aligned():
            return None
        last = deal.tricks[-1].plays
        start = len(self.applied) - len(last)
        for seat in (head.seat, turn):
            k = next((start + i for i, (s, _) in enumerate(last) if s == seat), None)
            if k is None or self.applied[k].get("confirmed") or self.applied[k].get("verified"):
                continue
            return self._premise_about(k, "out_of_turn")
        return None

    def _aligned(self) -> bool:
        """Whether :attr:`applied` holds exactly the deal's plays (the arbiter saw them all)."""
        deal = self.referee_of().deal
        if deal is None:
            return False
        return [(s, c) for _, s, c in _deal_plays(deal)] == [(p.get("seat"), p.get("card")) for p in self.applied]

    def _premise_about(self, k: int, rule: str) -> WaitingPlay:
        """The question about the deal's ``k``-th play that a ``rule`` call would rest on."""
        play = self.applied[k]
        card = str(play["card"])
        guesses = [str(c) for c in play.get("alternatives", []) if str(c) != card]
        # Offered first: the camera's own guesses, then the same rank in the other suits (the
        # Knoll print's sure misreads were suits: AC read AS, JC read JS), so the true card is
        # usually among them; any other card is named in the box's card picker.
        guesses += [c for c in _other_suits(card) if c not in guesses]
        track, confidence = play.get("track"), play.get("confidence")
        return WaitingPlay(str(play["seat"]), guesses[0] if guesses else card, confidence, track,
                           (card, *guesses[1:]), uncertain=True, correction=card, premise=True, index=k,
                           violation=rule)

    def _rests_on(self, k: int, head: WaitingPlay, call: ViolationCall) -> bool:
        """Whether ``call`` rests on the deal's ``k``-th play: without it, ``head`` would not
        break that rule (the lead of a revoke; not a card played after the lead)."""
        events = list(self.referee_of().deal_events)
        at = [i for i, e in enumerate(events) if isinstance(e, PlayEvent)]
        if k >= len(at):
            return False
        del events[at[k]]
        try:
            trial = Referee.from_events(events)
            calls = trial.apply({"event": "play", "seat": head.seat, "card": head.card})
        except Exception:  # a deal that does not replay without it: it mattered
            return True
        return not any(isinstance(c, ViolationCall) and (c.rule, c.seat) == (call.rule, call.seat) for c in calls)

    def _still_applied(self, head: WaitingPlay) -> bool:
        """Whether the play a premise question is about is still where it was."""
        k = head.index if head.index is not None else -1
        return 0 <= k < len(self.applied) and (self.applied[k].get("seat"), self.applied[k].get("card")) == (
            head.seat, head.correction)

    def _premise_answer(self, head: WaitingPlay, answer: Answer) -> list[Event]:
        """The operator's answer about an earlier play a violation rests on: another card
        named replaces it; "no" (or the same card) marks it verified."""
        if not self._still_applied(head):
            return []
        assert head.index is not None  # a premise names the play it is about
        k = head.index
        card = _named(answer, head) if answer.accept else None
        if card is None or str(card) == str(head.correction):
            self.applied[k]["verified"] = True
            return []
        return self._amend(k, str(card), head.track)

    def _amend(self, k: int, card: str, track: int | None) -> list[Event]:
        """Replace the ``k``-th play of the deal by ``card``: the plays after it are taken back
        and played again as they were (the referee's undo retracts the last play)."""
        later = [dict(p) for p in self.applied[k + 1:]]
        seat = str(self.applied[k]["seat"])
        out: list[Event] = []
        for _ in range(len(later) + 1):
            out += self.apply({"event": "undo"})
        if len(self.applied) != k:
            return [*out, {"call": "error", "detail": f"correction: could not take back {seat}'s play"}]
        self.tracker.settle(track, card, seat)
        out += self.apply({"event": "play", "seat": seat, "card": card, "confirmed": True})
        for play in later:
            out += self._apply_play(play)
        return out

    def _apply_play(self, play: Mapping[str, Any]) -> list[Event]:
        """Apply a play; its record in :attr:`applied` keeps what the referee does not need
        (the camera's track and alternatives, whether the operator verified it)."""
        out = self.apply({k: play[k] for k in _PLAY_KEYS if k in play})
        if self.applied and (self.applied[-1].get("seat"), self.applied[-1].get("card")) == (
                play.get("seat"), play.get("card")):
            self.applied[-1].update({k: play[k] for k in _META_KEYS if k in play})
        return out

    def _correctable(self, seat: str, was: str) -> bool:
        """Whether the play a correction is about is still the last play of the trick in
        progress (later plays would have to be taken back and played again: not done)."""
        deal = self.referee_of().deal
        trick = deal.trick if deal is not None else None
        return trick is not None and bool(trick.plays) and (trick.plays[-1][0], trick.plays[-1][1].code) == (seat, was)

    def _correct(self, seat: str, was: str, card: str, track: int | None) -> list[Event]:
        """Replace ``seat``'s play of ``was``, the last of the trick in progress, by ``card``."""
        if not self._correctable(seat, was):
            return [{"call": "error", "detail": f"correction: {seat}'s {was} is no longer the last play"}]
        out = self.apply({"event": "undo"})
        if not any(c.get("call") == "undo" and c.get("card") == was for c in out):
            return [*out, {"call": "error", "detail": f"correction: undo did not take back {seat}'s {was}"}]
        self.tracker.settle(track, card, seat)
        return out + self.apply({"event": "play", "seat": seat, "card": card, "confirmed": True})

    def _missed_question(self, head: WaitingPlay) -> WaitingPlay | None:
        """A play from a seat not on turn: when the camera may have missed the turn seat's card
        (a still card it could not read, the trick already gathered, or a card lying where that
        seat's card would be) ask about that seat instead of calling out_of_turn (which loses a
        tournament deal).  Only a trusted camera (opted in, whole tricks seen) that saw it
        clearly with nothing missed calls it out of turn without asking."""
        referee = self.referee_of()
        turn, deal = referee.turn, referee.deal
        if turn is None or deal is None or head.checked:
            return None
        trick = deal.trick
        # The referee's trick was gathered short: even the seat on turn's new card belongs to
        # the next trick, and that seat's card of this one was missed.
        gathered = trick is not None and bool(trick.plays) and not self.tracker.trick_on_table(
            [card.code for _, card in trick.plays])
        if head.seat == turn and not gathered:
            return None
        evidence = self.tracker.missed_since(self.trick_start_t)
        if self.trusted and evidence is None and not gathered and self.tracker.spot_clear(turn, self.t):
            return None
        return self._question_about(turn, evidence)

    def _gathered_short(self) -> list[Event]:
        """The trick's cards were gathered with fewer cards than seats: ask about the seat on turn."""
        referee = self.referee_of()
        deal, turn = referee.deal, referee.turn
        if deal is None or turn is None or deal.trick is None or not deal.trick.plays or self.asked:
            return []
        number = deal.trick_number
        quiet = self.t - self.last_play_t > self.tracker.config.long_gone_s
        if number == self.asked_gathered or not quiet or self.tracker.trick_on_table(
                [c.code for _, c in deal.trick.plays]):
            return []
        self.asked_gathered = number
        self.queue.append(self._question_about(turn, self.tracker.missed_since(self.trick_start_t)))
        return self._drain()

    def _question_about(self, seat: str, evidence: Any) -> WaitingPlay:
        """"Did ``seat`` play?", with the still card the camera could not settle as its guess."""
        guess = self.tracker.best_guess(evidence) if evidence is not None else None
        return WaitingPlay(seat, guess, 0.0, evidence.id if evidence is not None else None, uncertain=True, missed=True)


def _named(answer: Answer, head: WaitingPlay) -> str | None:
    """The card an answer names: its own, else (a plain yes) the one asked about."""
    return answer.card if answer.card is not None else head.card


def _other_suits(code: str) -> list[str]:
    """The same rank in the other suits of its deck (none for a code that is not a card)."""
    try:
        card = parse_card(code)
    except BadCardError:
        return []
    suits = ITALIAN_SUITS if card.italian else FRENCH_SUITS
    return [Card(suit, card.rank).code for suit in suits if suit != card.suit]


def _deal_plays(deal: DealState) -> list[tuple[int, str, str]]:
    """(trick number, seat, card code) of every play of ``deal`` so far, in order."""
    tricks = [*deal.tricks, *([deal.trick] if deal.trick else [])]
    return [(t.number, s, c.code) for t in tricks for s, c in t.plays]
