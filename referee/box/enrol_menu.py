"""The box's "Registra mazzo" / "Enrol deck" (hold OK, then the last entry): the club's deck
enrolled with the buttons alone, from the box's own camera.

0. The plan: how many layouts the deck takes and how many cards each holds ("40 carte:
   2 disposizioni", "20 + 20"; one layout: "40 carte: 1 disposizione", "file da 10"), planned
   from the calibrated table's card size (:func:`referee.box.enrol_deck.grid_plan`). OK goes on.
1. The screen names the cards to lay out (the first and last, how many, rows of how many):
   the deck face up in its order, row by row (:mod:`referee.box.enrol_deck`). OK captures.
   A deck that takes two layouts (52 cards at the usual size): the screen then asks for the
   second.
2. A layout that cannot be read (a place with no card, two cards, a card where the order
   lists none) shows the places; OK shows the layout again to capture once it is mended.
   Nothing is written until every layout was read.
3. After the last layout the deck is enrolled, written and read back: the screen gives the
   cards read right and the time; right/left page through each card the box would still
   confuse (its pair and margin, its row and column). OK ends; the box reads with the new
   enrollment from the next frame on.

Hold left (back) or hold OK (cancel) on a layout's screen leaves without writing anything.
The enrolment itself is injected (``enrolment``: :class:`~referee.box.enrol_deck.TableEnrolment`
or a fake), so the menu is tested without camera or model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from referee.box.i18n import card_short, tr
from referee.box.menu import CANCELLED
from referee.box.screens import MenuScreen, MessageScreen, RefusedScreen, Screen
from referee.errors import ConfigError

if TYPE_CHECKING:
    from referee.box.enrol_deck import EnrolReport
    from referee.vision.enroll_grid import GridPlan

#: what :meth:`EnrolMenu.press` returns once the report was seen (the menu closes)
DONE = "done"


class Enrolling(Protocol):
    """What the menu drives (:class:`~referee.box.enrol_deck.TableEnrolment`)."""

    @property
    def plan(self) -> GridPlan: ...
    def layout_codes(self, layout: int) -> list[str]: ...
    def capture(self, layout: int) -> int: ...
    def finish(self) -> EnrolReport: ...


class EnrolMenu:
    """See the module docstring. ``show`` puts a screen up at once (the "please wait" before
    the camera and the recogniser work, which takes seconds)."""

    def __init__(self, enrolment: Enrolling, show: Callable[[Screen], None] = lambda screen: None,
                 lang: str = "it") -> None:
        self.enrolment, self.show, self.lang = enrolment, show, lang
        self.layout = 0
        self.refused: str | None = None  # why the layout could not be read (shown until OK)
        self.report: EnrolReport | None = None
        self.page = 0  # on the report: 0 the summary, i the i-th card still confused
        self.planned = False  # the plan was seen (OK on its screen)

    def press(self, action: str) -> str | None:
        if not self.planned:
            if action in ("back", "cancel"):
                return CANCELLED
            self.planned = action == "select"
            return None
        if self.report is not None:
            pages = 1 + len(self.report.readback.confused)
            if action in ("prev", "next"):
                self.page = (self.page + (1 if action == "next" else -1)) % pages
                return None
            return DONE if action in ("select", "back", "cancel") else None
        if self.refused is not None:
            if action in ("back", "cancel"):
                return CANCELLED
            if action == "select":
                self.refused = None
            return None
        if action in ("back", "cancel"):
            return CANCELLED
        if action == "select":
            self._capture()
        return None

    def _capture(self) -> None:
        self.show(MessageScreen("entry_enrol", tr(self.lang, "enrol_wait"), tr(self.lang, "enrol_reading")))
        try:
            self.enrolment.capture(self.layout)
            if self.layout + 1 < self.enrolment.plan.layouts:
                self.layout += 1
                return
            self.report = self.enrolment.finish()
        except ConfigError as exc:  # a layout not read, a card surely not where the order puts it
            self.refused = str(exc)
            if self.layout + 1 >= self.enrolment.plan.layouts and "not the card the order puts there" in str(exc):
                self.layout = 0  # the whole deck is laid out again

    def screen(self, lang: str) -> Screen:
        if self.report is not None:
            return self._report_screen(lang)
        if self.refused is not None:
            return RefusedScreen(self.refused)
        plan = self.enrolment.plan
        if not self.planned:
            if plan.layouts == 1:
                label = tr(lang, "enrol_plan_one", cards=plan.cards)
                value = tr(lang, "enrol_plan_rows", columns=plan.columns)
            else:  # how many cards each layout holds: "20 + 20"
                label = tr(lang, "enrol_plan", cards=plan.cards, layouts=plan.layouts)
                value = " + ".join(str(n) for n in plan.layout_sizes())
            return MenuScreen(title="enrol", label_key="", label=label, header_key="entry_enrol", value=value)
        codes = self.enrolment.layout_codes(self.layout)
        step = f"{self.layout + 1}/{plan.layouts}" if plan.layouts > 1 else ""
        return MenuScreen(title="enrol", label_key="", label=tr(lang, "enrol_rows", n=len(codes), columns=plan.columns),
                          value=f"{card_short(codes[0])} - {card_short(codes[-1])}", step=step,
                          header_key="entry_enrol")

    def _report_screen(self, lang: str) -> Screen:
        assert self.report is not None
        back = self.report.readback
        confused = back.confused
        if self.page == 0:
            return MenuScreen(title="enrol", label_key="", header_key="enrol_done",
                              label=tr(lang, "enrol_summary", confused=len(confused), seconds=f"{back.seconds:.0f}"),
                              value=f"{back.right}/{back.cards}")
        c = confused[self.page - 1]
        plan = self.enrolment.plan
        row, column = divmod(c.index % plan.per_layout, plan.columns)
        return MenuScreen(title="enrol", label_key="", header_key="entry_enrol", step=f"{self.page}/{len(confused)}",
                          label=tr(lang, "enrol_place", row=row + 1, column=column + 1, margin=f"{c.margin:+.2f}"),
                          value=f"{card_short(c.code)} / {card_short(c.other)}")

