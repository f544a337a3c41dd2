"""Every screen the box shows, as plain data with a ``paint`` method (128x64, one bit).

A screen holds only what it shows; :func:`render` turns it into a PIL image in a language.
Golden PNGs of each are in ``tests/data/box/`` (see ``tests/box/test_screens.py``).

>>> render(TrickScreen(number=3, winner="S", points=14), "it").size
(128, 64)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from PIL import Image

from referee.box.canvas import HEADER_H, HEIGHT, WIDTH, Canvas, font
from referee.box.i18n import card_long, card_short, declaration_name, rule_name, seat_text, tr
from referee.cards import parse_card
from referee.table.question import Question, QuestionKind


class Screen(ABC):
    inverted = False

    @abstractmethod
    def paint(self, c: Canvas, lang: str) -> None: ...


def render(screen: Screen, lang: str = "it") -> Image.Image:
    """The screen as a one-bit 128x64 image."""
    canvas = Canvas(inverted=screen.inverted)
    screen.paint(canvas, lang)
    return canvas.image


@dataclass(frozen=True)
class ScoreScreen(Screen):
    """The match's standing: one row per team (two teams: belotta's written score, briscola's
    card points), or one column per seat (3-5: binocolo's score, chiamata's credits); the
    header names what is counted (``target``: the score that wins, e.g. belotta's 151), the
    footer whose turn it is and the contract (trump, caller, bid or called card).

    Rows are kept 2 px apart and columns split by rules: digits that touch read as other
    digits (a 0 over a 0 is an 8 at arm's length)."""

    points: Sequence[tuple[str, int]]  # (team or seat, points) in display order
    turn: str | None = None
    games: str = ""  # match score, e.g. "1-0"
    contract: str = ""  # e.g. "♥ W", "N 20 ♠", "R Cop 71"
    target: int | None = None

    def paint(self, c: Canvas, lang: str) -> None:
        title = tr(lang, "score_to", n=self.target) if self.target else tr(lang, "score")
        c.header(title, self.games)
        footer = bool(self.turn or self.contract)
        bottom = HEIGHT - 13 if footer else HEIGHT
        if len(self.points) > 2:
            self._columns(c, lang, bottom)
        else:
            self._rows(c, lang, bottom)
        if footer:
            c.draw.line((0, HEIGHT - 12, WIDTH - 1, HEIGHT - 12), fill=c.ink)
            turn = tr(lang, "turn", seat=seat_text(lang, self.turn)) if self.turn else ""
            if turn and self.contract:
                c.text(turn, (1, HEIGHT - 11, 66, HEIGHT), largest=11, align="left")
                c.text(seat_text(lang, self.contract), (68, HEIGHT - 11, WIDTH - 1, HEIGHT), largest=11,
                       align="right")
            else:
                c.text(turn or seat_text(lang, self.contract), (1, HEIGHT - 11, WIDTH - 1, HEIGHT), largest=11)

    def _rows(self, c: Canvas, lang: str, bottom: int) -> None:
        rows = len(self.points) or 1
        gap = 2
        row_h = (bottom - HEADER_H - 1 - gap * (rows - 1)) // rows
        for i, (team, value) in enumerate(self.points):
            y0 = HEADER_H + 1 + i * (row_h + gap)
            c.text(seat_text(lang, team), (2, y0, 70, y0 + row_h), largest=16, align="left")
            c.text(str(value), (72, y0, WIDTH - 2, y0 + row_h), largest=row_h, align="right")

    def _columns(self, c: Canvas, lang: str, bottom: int) -> None:
        n = len(self.points)
        col_w = WIDTH // n
        for i, (seat, value) in enumerate(self.points):
            x0 = i * col_w
            c.text(seat_text(lang, seat), (x0 + 1, HEADER_H + 1, x0 + col_w - 2, HEADER_H + 13), largest=12)
            c.text(str(value), (x0 + 2, HEADER_H + 15, x0 + col_w - 3, bottom - 1), largest=20)
            if i:
                c.draw.line((x0 - 1, HEADER_H + 2, x0 - 1, bottom - 2), fill=c.ink)


@dataclass(frozen=True)
class TrickScreen(Screen):
    """Who took the trick (the seat fills the screen) and what it was worth."""

    number: int
    winner: str
    points: int

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "trick", n=self.number), tr(lang, "takes"))
        c.text(seat_text(lang, self.winner), (0, HEADER_H + 1, WIDTH, HEIGHT - 15), largest=34)
        c.text(tr(lang, "points", n=self.points), (0, HEIGHT - 14, WIDTH, HEIGHT), largest=13)


@dataclass(frozen=True)
class ViolationScreen(Screen):
    """A rule broken: inverted so the whole table notices; seat, rule, trick."""

    seat: str
    rule: str
    trick: int | None = None
    inverted = True
    #: the i18n key of the header over seat | rule
    header_key: ClassVar[str] = "violation"

    def paint(self, c: Canvas, lang: str) -> None:
        where = tr(lang, "in_trick", n=self.trick) if self.trick else ""
        c.header(tr(lang, self.header_key), where)
        c.text(seat_text(lang, self.seat), (0, HEADER_H + 1, 40, HEIGHT), largest=30)
        c.draw.line((40, HEADER_H + 3, 40, HEIGHT - 3), fill=c.ink)
        c.wrapped(rule_name(lang, self.rule), (42, HEADER_H + 2, WIDTH - 1, HEIGHT - 1), largest=16)


@dataclass(frozen=True)
class WithdrawnScreen(ViolationScreen):
    """A violation the table was told of no longer stands (the declaration that proved it was
    false, or its play was taken back): laid out as the violation was, under its own header,
    and not inverted: nothing to alarm anyone.  (A strike through the rule name was tried:
    on a two-line rule at 128x64 it made the words unreadable.)"""

    inverted = False
    header_key: ClassVar[str] = "withdrawn"


@dataclass(frozen=True)
class DeclarationScreen(Screen):
    """A declaration (belotta) or meld (binocolo) the referee accepted: who, what, its cards
    and points, e.g. "W: BELOTTA" over "K♥ Q♥"."""

    seat: str
    kind: str
    points: int
    cards: Sequence[str] = ()

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "declaration"), tr(lang, "points_short", n=self.points))
        bottom = HEIGHT - 16 if self.cards else HEIGHT
        c.text(f"{seat_text(lang, self.seat)}: {declaration_name(lang, self.kind)}", (1, HEADER_H + 1, WIDTH - 1, bottom), largest=22)
        if self.cards:
            c.text(self._cards_line(c), (1, HEIGHT - 15, WIDTH - 1, HEIGHT), largest=13)

    def _cards_line(self, c: Canvas) -> str:
        """The cards in rank order; a run too long to read in full (a cento of 8) as its
        first and last card."""
        cards = sorted(self.cards, key=_rank_index)
        shown = " ".join(card_short(code) for code in cards)
        if len(cards) > 3 and c.text_size(shown, font(10))[0] > WIDTH - 2:
            shown = f"{card_short(cards[0])} … {card_short(cards[-1])}"
        return shown


#: rank order for showing a run of French cards (7 or 9 up to the ace)
_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def _rank_index(code: str) -> tuple[str, int]:
    card = parse_card(code)
    return (card.suit, _RANKS.index(card.rank) if card.rank in _RANKS else -1)


@dataclass(frozen=True)
class LastTrickScreen(Screen):
    """The last trick's cards by seat (Belotta rule 2h: a player may ask to see it)."""

    number: int
    winner: str
    cards: Sequence[tuple[str, str]]  # (seat, card code) in play order

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "last_trick", n=self.number), f"→ {seat_text(lang, self.winner)}")
        n = len(self.cards)
        cols = 1 if n <= 3 else 2
        rows = (n + cols - 1) // cols
        row_h = (HEIGHT - HEADER_H - 1) // max(rows, 1)
        col_w = WIDTH // cols
        for i, (seat, code) in enumerate(self.cards):
            col, row = divmod(i, rows)
            x0, y0 = col * col_w, HEADER_H + 1 + row * row_h
            label = f"{seat_text(lang, seat)} {card_short(code)}"
            c.text(label, (x0 + 2, y0, x0 + col_w - 3, y0 + row_h), largest=15, align="left")
        if cols == 2:  # a rule between the columns keeps "N 3 Cop" and "S A Cop" apart
            c.draw.line((col_w - 1, HEADER_H + 2, col_w - 1, HEIGHT - 2), fill=c.ink)


@dataclass(frozen=True)
class DealerScreen(Screen):
    """The dealer chosen by the highest drawn card."""

    seat: str
    card: str | None = None

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "dealer"))
        bottom = HEIGHT - 15 if self.card else HEIGHT
        c.text(seat_text(lang, self.seat), (0, HEADER_H + 1, WIDTH, bottom), largest=34)
        if self.card:
            c.text(card_long(lang, self.card), (0, HEIGHT - 14, WIDTH, HEIGHT), largest=13)


@dataclass(frozen=True)
class TimerScreen(Screen):
    """The move timer: seconds left, big, and a bar; inverted in the warning window."""

    seat: str
    left_s: int
    total_s: int
    warning: bool = False

    @property
    def inverted(self) -> bool:  # type: ignore[override]
        return self.warning

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "turn", seat=seat_text(lang, self.seat)), tr(lang, "timer"))
        c.text(str(self.left_s), (0, HEADER_H + 1, WIDTH, HEIGHT - 12), largest=36)
        c.rect((2, HEIGHT - 10, WIDTH - 3, HEIGHT - 3))
        filled = round((WIDTH - 6) * max(0, self.left_s) / max(1, self.total_s))
        if filled > 0:
            c.rect((3, HEIGHT - 9, 3 + filled, HEIGHT - 4), filled=True)


@dataclass(frozen=True)
class ConfirmScreen(Screen):
    """The camera is unsure of a card: the table confirms it with OK or rejects it.

    ``missed``: the camera may have missed ``seat``'s play: "did <seat> play?" with its guess
    (OK = yes, that card; left = no; right = another card). ``violation``: the card, read
    surely, would break that rule (likelier a misread): the rule is named under the card.
    ``instead_of``: the card already played that this one would replace (a correction, or a
    premise question: an earlier camera read a violation would rest on).

    Right shows the next card offered (``▶=altra``); ``more``: this is the last one offered,
    so right opens the card picker, where any card of the deck can be named (``▶=tutte``).
    A missed-play screen's right always opens the picker (``▶=altra``)."""

    seat: str
    card: str
    missed: bool = False
    violation: str | None = None
    instead_of: str | None = None
    more: bool = False

    @classmethod
    def for_question(cls, question: Question, card: str, more: bool = False) -> ConfirmScreen:
        """The screen for ``question`` on ``card`` (its first card offered or the one the
        operator is on), saying why a sure read is asked; ``more``: the next right press opens
        the card picker. Written once for the box and the demo."""
        violation = question.violation
        if question.kind is QuestionKind.PREMISE:
            # "was that earlier card really X?": the card is what is asked, not the rule it
            # would break; the screen reads "<seat>: <guess> / instead of X?"
            violation = None
        missed = question.kind is QuestionKind.MISSED
        return cls(question.seat, card, missed=missed, violation=violation,
                   instead_of=question.correction, more=more and not missed)

    def reason(self, lang: str) -> str:
        """The line under the card: why a sure read is asked (the rule it would break, the card
        it would replace), else the card's long name."""
        if self.violation:
            return rule_name(lang, self.violation) + "?"
        if self.instead_of == self.card:
            # the card already recorded is one of the cards offered: OK keeps it (so does "no":
            # no correction), so the line states it rather than asking "A♠ instead of A♠?"
            return tr(lang, "as_recorded")
        if self.instead_of:
            return tr(lang, "instead_of", card=card_short(self.instead_of))
        return card_long(lang, self.card) + "?"

    def paint(self, c: Canvas, lang: str) -> None:
        if self.missed:
            c.header(tr(lang, "missed", seat=seat_text(lang, self.seat)))
            c.text(card_short(self.card), (0, HEADER_H + 1, WIDTH, 38), largest=24)
            c.text(card_long(lang, self.card) + "?", (0, 39, WIDTH, 51), largest=12)
            c.text(tr(lang, "missed_keys"), (0, 52, WIDTH, HEIGHT), largest=11)
            return
        c.header(tr(lang, "confirm"))
        c.text(f"{seat_text(lang, self.seat)}: {card_short(self.card)}", (0, HEADER_H + 1, WIDTH, 38), largest=24)
        c.text(self.reason(lang), (0, 39, WIDTH, 51), largest=12)
        c.text(tr(lang, "confirm_keys_more" if self.more else "confirm_keys"), (0, 52, WIDTH, HEIGHT), largest=11)


@dataclass(frozen=True)
class ResultScreen(Screen):
    """End of a deal or of the match: the winner, what each team or seat scored (belotta's
    written points, chiamata's credits) and a note (binocolo: the declarer in bestia)."""

    match: bool
    winner: str | None
    points: Sequence[tuple[str, int]] = field(default_factory=tuple)
    note: str = ""

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "match_end" if self.match else "deal_end"))
        line = tr(lang, "winner", team=seat_text(lang, self.winner)) if self.winner else tr(lang, "draw")
        top_bottom = 28 if self.note else 40
        c.text(line, (0, HEADER_H + 1, WIDTH, top_bottom), largest=22)
        if self.note:
            c.text(seat_text(lang, self.note), (0, top_bottom + 1, WIDTH, 40), largest=12)
        if len(self.points) > 2:  # one column per seat, split by rules
            col_w = WIDTH // len(self.points)
            for i, (seat, value) in enumerate(self.points):
                x0 = i * col_w
                c.text(seat_text(lang, seat), (x0 + 1, 41, x0 + col_w - 2, 51), largest=11)
                c.text(str(value), (x0 + 1, 52, x0 + col_w - 2, HEIGHT), largest=12)
                if i:
                    c.draw.line((x0 - 1, 42, x0 - 1, HEIGHT - 1), fill=c.ink)
            return
        summary = "  ".join(f"{seat_text(lang, team)} {value}" for team, value in self.points)
        if summary:
            c.text(summary, (0, 42, WIDTH, HEIGHT), largest=16)


@dataclass(frozen=True)
class RefusedScreen(Screen):
    """An entry the rules core refused (nothing was recorded): its reason, in its words,
    on as many lines as it needs (the core's messages name the key, card or seat)."""

    reason: str
    inverted = True

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "refused"))
        lines = _wrap(c, self.reason, WIDTH - 2, font(10))
        line_h = max(9, min(12, (HEIGHT - HEADER_H - 1) // max(1, len(lines))))
        for i, line in enumerate(lines[: (HEIGHT - HEADER_H - 1) // line_h]):
            y0 = HEADER_H + 1 + i * line_h
            c.text(line, (1, y0, WIDTH - 1, y0 + line_h), largest=10, align="left")


def _wrap(c: Canvas, text: str, width: int, f: Any) -> list[str]:
    """``text`` split at spaces into lines no wider than ``width`` in font ``f``."""
    lines: list[str] = []
    for word in text.split():
        if lines and c.text_size(f"{lines[-1]} {word}", f)[0] <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


@dataclass(frozen=True)
class CalibrateScreen(Screen):
    """A new box, no table layout calibrated yet: what to do, not a fault (nothing is
    broken, the box is waiting to be set up). Stays lit after ``referee run`` exits."""

    stays_lit: ClassVar[bool] = True

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "calibrate_title"))
        c.wrapped(tr(lang, "calibrate"), (1, HEADER_H + 1, WIDTH - 1, 40), largest=14)
        c.wrapped(tr(lang, "calibrate_how"), (1, 41, WIDTH - 1, HEIGHT), largest=11)


@dataclass(frozen=True)
class MenuScreen(Screen):
    """One field of the contract entry menu: its label, the value between arrows, the keys."""

    title: str  # game name
    label_key: str  # i18n key of the field
    value: str
    step: str = ""  # e.g. "2/3"
    header_key: str = "contract"  # i18n key of the header (deal_card: the deal's face-up card)
    seat: str = ""  # the seat a label names (which card a missed play was)
    seats: bool = False  # the value is a seat (shown as the language names it: O for W)
    label: str = ""  # the label itself, instead of ``label_key`` (e.g. the cards chosen so far)

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, self.header_key), self.step)
        label = seat_text(lang, self.label) if self.label else tr(lang, self.label_key, seat=seat_text(lang, self.seat))
        c.text(label, (0, HEADER_H + 1, WIDTH, HEADER_H + 14), largest=12)
        c.text("◀", (0, 29, 14, 51), largest=16)
        c.text("▶", (WIDTH - 14, 29, WIDTH, 51), largest=16)
        c.text(seat_text(lang, self.value) if self.seats else self.value, (17, 28, WIDTH - 17, 52), largest=24)
        c.text(tr(lang, "menu_keys"), (0, HEIGHT - 11, WIDTH, HEIGHT), largest=10)


@dataclass(frozen=True)
class FaultScreen(Screen):
    """A fault (camera gone, record not writable, the input could not be opened at start):
    what, the retry count (none shown at 0: the service restarts the box), the match is safe."""

    what_key: str  # i18n key: fault_camera, fault_state, fault_start
    retries: int = 0
    kept: bool = True
    inverted = True

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "fault"))
        c.wrapped(tr(lang, self.what_key), (1, HEADER_H + 1, WIDTH - 1, 40), largest=13)
        if self.retries:
            c.text(tr(lang, "fault_retry", n=self.retries), (1, 40, WIDTH - 1, 52), largest=12)
        if self.kept:
            c.text(tr(lang, "fault_kept"), (1, 52, WIDTH - 1, HEIGHT), largest=12)


@dataclass(frozen=True)
class MessageScreen(Screen):
    """A title and a short line: ready, undone, partner revealed."""

    title_key: str
    big: str
    line: str = ""

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, self.title_key))
        bottom = HEIGHT - 15 if self.line else HEIGHT
        c.text(seat_text(lang, self.big), (0, HEADER_H + 1, WIDTH, bottom), largest=30)
        if self.line:
            c.text(seat_text(lang, self.line), (0, HEIGHT - 14, WIDTH, HEIGHT), largest=12)


@dataclass(frozen=True)
class AssignmentScreen(Screen):
    """What the tournament service told this table to play ("Tavolo 3: Rossi/Bianchi -
    Verdi/Neri"): the table, the round, who sits down; shown until the match's first deal."""

    table: int
    sides: Sequence[str]  # each side's name: a pair "Rossi/Bianchi" or one player
    round: int | None = None

    def paint(self, c: Canvas, lang: str) -> None:
        c.header(tr(lang, "table_n", n=self.table), tr(lang, "round_n", n=self.round) if self.round else "")
        top = HEADER_H + 2
        if len(self.sides) == 2:  # one side per line, "contro" between
            c.text(self.sides[0], (1, top, WIDTH - 1, top + 18), largest=16)
            c.text(tr(lang, "versus"), (1, top + 18, WIDTH - 1, top + 29), largest=10)
            c.text(self.sides[1], (1, top + 29, WIDTH - 1, HEIGHT - 1), largest=16)
            return
        rows = max(1, (len(self.sides) + 1) // 2)  # players two to a line
        row_h = (HEIGHT - top) // rows
        for i in range(rows):
            line = " · ".join(self.sides[2 * i:2 * i + 2])
            c.text(line, (1, top + i * row_h, WIDTH - 1, top + (i + 1) * row_h), largest=14)


def screen_for_call(call: Mapping[str, Any]) -> tuple[Screen, str] | None:
    """The screen the box shows for a referee call and its kind (how long it stays; see
    ``referee.box.app.SHOW_S``), or ``None`` for calls with no screen of their own (``turn``).
    ``referee demo`` uses it to render a game's screens without a box."""
    kind = call.get("call")
    if kind == "trick":
        return TrickScreen(call["number"], call["winner"], call["points"]), "trick"
    if kind == "violation":
        return ViolationScreen(call["seat"], call["rule"], call.get("trick")), "violation"
    if kind == "withdrawn":
        return WithdrawnScreen(call["seat"], call["rule"], call.get("trick")), "withdrawn"
    if kind == "declaration" and "kind" in call and "seat" in call:
        points = call.get("points")
        return DeclarationScreen(call["seat"], call["kind"], points if isinstance(points, int) else 0,
                                 tuple(call.get("cards") or ())), "declaration"
    if kind == "deal_end":
        return _deal_end(call), "deal_end"
    if kind == "match_end":
        return ResultScreen(True, call.get("winner"), _ordered(call["score"])), "match_end"
    if kind == "dealer":
        return DealerScreen(call["seat"], call.get("card")), "info"
    if kind == "redraw":  # a tie for the highest card: these seats draw again
        return MessageScreen("redraw", " ".join(call["seats"])), "info"
    if kind == "partner":
        card = call.get("card")
        return MessageScreen("partner", call["seat"], card_short(card) if card else ""), "info"
    if kind == "undo":  # a play (card) or a declaration (cards) retracted
        codes = [call["card"]] if call.get("card") else list(call.get("cards") or [])
        return MessageScreen("undo", f"{call['seat']}: " + " ".join(card_short(c) for c in codes)), "info"
    return None


def _ordered(values: Mapping[str, int]) -> list[tuple[str, int]]:
    """Two teams in name order (as the score screen shows them); seats in play order."""
    items = list(values.items())
    return sorted(items) if len(items) <= 2 else items


def _deal_end(call: Mapping[str, Any]) -> ResultScreen:
    """What a deal's end shows: belotta's written score (tens, toward the target) rather
    than raw card points, chiamata's credits per seat, binocolo's bestia."""
    shown = call.get("score") if isinstance(call.get("score"), dict) else None  # belotta
    if shown is None and isinstance(call.get("credits"), dict):  # chiamata
        shown = call["credits"]
    note = ""
    declarer, delta = call.get("declarer"), call.get("delta")
    if call.get("bestia") and declarer:
        lost = delta.get(declarer) if isinstance(delta, dict) else None
        note = f"{declarer}: BESTIA" + (f" {lost}" if isinstance(lost, int) else "")
    return ResultScreen(False, call.get("winner"), _ordered(shown if shown is not None else call["points"]), note)
