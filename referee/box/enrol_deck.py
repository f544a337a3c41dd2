"""Enrolling the club's deck at the table, with the box's own camera: ``referee enroll --camera``
and the box's "Registra mazzo" / "Enrol deck" menu item both run one :class:`DeckEnrolment`.

The club lays the deck face up in the rows a :class:`~referee.vision.enroll_grid.GridPlan` asks
for (in the deck's order, row by row; several layouts one after the other when the frame cannot
hold the whole deck with every card at least 80 px tall). For each layout a few frames are
taken (:meth:`DeckEnrolment.capture`); the cards are found and named by their place in the grid.
A frame where a place holds no card, two cards, or a card lies where the order puts none is
refused naming the places, and nothing is written. Once every layout is in,
:meth:`DeckEnrolment.finish` checks the names (:func:`~referee.recognition.enroll_check.check_names`:
a card laid twice where the base model is sure of it is refused), enrols, writes the file
whole (or not at all), and reads every card back with the new enrollment
(:mod:`referee.recognition.enroll_readback`): the report names each card the box would still
confuse, its top-2 pair and margin, and the time it all took.

The file the box writes and then uses is :func:`enrollment_path`: ``<state_dir>/enrollment-<family>.npz``
(the state directory is the box's to write; ``/etc/referee`` is not). When it exists the box
reads it instead of the config's ``enrollment`` (:func:`enrollment_in_use`).

OpenCV, the finder and the recogniser are imported only when an enrolment starts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from referee.box.config import BoxConfig
from referee.cards import DECKS
from referee.errors import ConfigError

if TYPE_CHECKING:
    from referee.recognition.classifier import CardClassifier
    from referee.recognition.enroll_readback import ReadBack
    from referee.recognition.enrollment import Enrollment
    from referee.vision.enroll_grid import GridPlan
    from referee.vision.simulator.deck_grid import LaidOutDeck

log = logging.getLogger(__name__)

U8 = npt.NDArray[np.uint8]
#: frames taken of each layout: the first whose every place holds one card is enrolled, the
#: next such one is read back (a card read back from the very frame its prototype came from
#: would look surer than it is)
FRAMES_PER_LAYOUT = 3


def family_of(deck: str) -> str:
    """The recogniser family of a deck name (``italian-40`` -> ``italian``)."""
    if deck not in DECKS:
        raise ConfigError(f"unknown deck {deck!r}: expected one of {', '.join(DECKS)}")
    return "italian" if deck.startswith("italian") else "french"


def table_deck(cfg: BoxConfig) -> str:
    """The deck the box's game is played with (``italian-40``, ``french-32``, ``binocolo-48``):
    the cards the club lays out."""
    from referee.rules import get_game

    return get_game(cfg.game.name).deck.name


def enrollment_path(cfg: BoxConfig, family: str) -> Path:
    """Where an enrolment made at the table is written, and read by the box from then on."""
    return cfg.state_dir / f"enrollment-{family}.npz"


def enrollment_in_use(cfg: BoxConfig) -> Path | None:
    """The enrollment file the box loads for its game's deck: the one enrolled at the table
    when there is one (the club's latest), else the config's ``enrollment``."""
    made_here = enrollment_path(cfg, cfg.game.deck)
    if made_here.exists():
        if cfg.enrollment is not None and cfg.enrollment != made_here:
            log.info("using the deck enrolled at the table, %s, instead of the config's %s", made_here, cfg.enrollment)
        return made_here
    return cfg.enrollment


@dataclass(frozen=True)
class EnrolReport:
    """What an enrolment at the table did: the file written, the cards enrolled from how
    many layouts, the read-back (cards the box would still confuse, the time it took) and
    the name check's warnings."""

    path: Path
    deck: str
    enrolled: int
    layouts: int
    readback: ReadBack
    warnings: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [f"enrolled {self.enrolled} cards of {self.deck} from {self.layouts} layout(s) -> {self.path}",
                *(f"warning: {w}" for w in self.warnings), *self.readback.lines()]


@dataclass
class _Layout:
    crops: list[U8] = field(default_factory=list)  # enrolled, in order
    again: list[U8] = field(default_factory=list)  # read back (another frame where there is one)


class DeckEnrolment:
    """One enrolment: ``order`` (the codes as laid out, row by row) under ``plan``, enrolled on
    ``clf`` (the base classifier, no enrollment loaded) and written to ``out``. ``markers``:
    where the mat's corner markers lie in the frame (image px), when the table's layout is
    known; ``copies``: how often the deck holds each card (binocolo's two)."""

    def __init__(self, clf: CardClassifier, order: Sequence[str], plan: GridPlan, out: Path,
                 markers: Sequence[Sequence[float]] = (), sure: float = 0.80, copies: int = 1,
                 clock: Callable[[], float] = time.monotonic, keepalive: Callable[[], None] = lambda: None,
                 min_px: float | None = None) -> None:
        from referee.vision.enroll_grid import MIN_CARD_PX, check_order

        check_order(order, plan, clf.info.deck, copies)
        self.clf, self.order, self.plan, self.out = clf, list(order), plan, out
        self.markers, self.sure, self.clock = list(markers), sure, clock
        #: called between frames and after every batch the model reads: the box pings its
        #: service watchdog with it (the loop that pings it waits while the deck is enrolled)
        self.keepalive = keepalive
        #: the shortest card accepted (a benchmark may lower it to measure what is refused)
        self.min_px = MIN_CARD_PX if min_px is None else min_px
        self.layouts: dict[int, _Layout] = {}
        self.started: float | None = None
        self.busy_s = 0.0  # the box's own time: capturing, enrolling, reading back (not laying out)

    def layout_codes(self, layout: int) -> list[str]:
        return self.plan.layout_codes(self.order)[layout]

    def capture(self, layout: int, images: Sequence[U8]) -> int:
        """Find and name the cards of ``layout`` in ``images`` (frames of it); returns how many.
        Raises :class:`~referee.vision.enroll_grid.LayoutError` naming the places when no frame
        shows every card of the layout at its place, and
        :class:`~referee.vision.enroll_grid.CardsTooSmall` when the cards found lie under 80 px
        tall (the camera too far or its frames too small; no other frame would do better)."""
        from referee.vision.enroll_grid import LayoutError, card_quads, check_card_size, cut, locate

        start = self.clock()
        codes = self.layout_codes(layout)
        good: list[list[U8]] = []
        worst: list[str] | None = None
        for image in images:
            quads = card_quads(image, most=len(codes), markers=self.markers)
            self.keepalive()
            check_card_size(quads, (image.shape[1], image.shape[0]), self.min_px)
            at, problems = locate(quads, codes, self.plan.columns)
            if problems:
                worst = problems if worst is None or len(problems) < len(worst) else worst
                continue
            good.append([cut(image, quads[i]) for i in at])
            if len(good) == 2:
                break
        self.busy_s += self.clock() - start
        if not good:
            where = f"layout {layout + 1} of {self.plan.layouts}: " if self.plan.layouts > 1 else ""
            problems = worst or ["no frame"]
            shown = "; ".join(problems[:6]) + (f"; and {len(problems) - 6} more" if len(problems) > 6 else "")
            raise LayoutError(f"{where}{len(codes)} cards in rows of {self.plan.columns} expected, but {shown}. "
                              "Nothing was written: lay the cards out again and capture", problems)
        self.layouts[layout] = _Layout(good[0], good[-1])
        return len(codes)

    @property
    def missing_layouts(self) -> list[int]:
        return [k for k in range(self.plan.layouts) if k not in self.layouts]

    def position(self, n: int) -> str:
        """The n-th card of the order as the club finds it: layout (when several), row, column."""
        from referee.vision.enroll_grid import place_name

        return place_name(self.plan, n, self.order[n])

    def finish(self) -> EnrolReport:
        """Check the names, enrol, write :attr:`out`, read back; see the module docstring."""
        from referee.recognition.enroll import enroll
        from referee.recognition.enroll_check import check_names
        from referee.recognition.enroll_readback import read_back

        if self.missing_layouts:
            raise ConfigError(f"layout(s) {', '.join(str(k + 1) for k in self.missing_layouts)} not captured yet")
        start = self.clock()
        crops = [c for k in range(self.plan.layouts) for c in self.layouts[k].crops]
        again = [c for k in range(self.plan.layouts) for c in self.layouts[k].again]
        names = [self.position(n) for n in range(len(self.order))]
        check = check_names(self.clf, crops, self.order, names, expect=self.order, tick=self.keepalive)
        certain = check.certain
        if certain:
            raise ConfigError(f"{len(certain)} card(s) surely not the card the order puts there, nothing written: "
                              + "; ".join(f"{', '.join(f.names)} is {f.likely[0]}" for f in certain)
                              + ". Lay the cards out in the deck's order and capture again")
        enrollment = enroll(self.clf, crops, self.order, tick=self.keepalive)
        try:
            enrollment.save(self.out)
        except OSError as exc:  # a full disk, a read-only place: the old file stays whole
            raise ConfigError(f"cannot write the enrollment {self.out}: {exc.strerror or exc}") from exc
        report = read_back(_enrolled(self.clf, enrollment), again, self.order, names, sure=self.sure,
                           tick=self.keepalive)
        self.busy_s += self.clock() - start
        log.info("enrolled %d cards -> %s in %.1f s", len(crops), self.out, self.busy_s)
        return EnrolReport(self.out, self.clf.info.deck, len(set(self.order)), self.plan.layouts,
                           report.with_seconds(self.busy_s), tuple(f.message for f in check.findings))


def _enrolled(clf: CardClassifier, enrollment: Enrollment) -> CardClassifier:
    """``clf`` with ``enrollment`` blended in (a shallow copy: the base stays as it was)."""
    import copy

    out = copy.copy(clf)
    out.enrollment = enrollment
    return out


class TableFrames:
    """The frames of the laid-out deck: read from the box's camera (``source``, any frame
    source), or on a simulated box from a simulated table with the deck laid out (``table``:
    the game a ``sim`` source acts out has no deck to lay out). ``markers``: the mat's
    corner markers in the frame (image px), from the calibrated layout when there is one;
    ``count``: frames taken of each layout."""

    def __init__(self, source: Any = None, table: LaidOutDeck | None = None,
                 markers: Sequence[Sequence[float]] = (), count: int = FRAMES_PER_LAYOUT) -> None:
        if (source is None) == (table is None):
            raise ValueError("TableFrames: a camera source or a simulated table, one of them")
        self.source, self.table, self._markers, self.count = source, table, list(markers), count

    def lay_out(self, layout: int) -> None:
        """The club laid out ``layout`` (a simulated table puts its cards down)."""
        if self.table is not None:
            self.table.lay_out(layout)

    @property
    def markers(self) -> list[Sequence[float]]:
        return list(self.table.markers()) if self.table is not None else self._markers

    def grab(self) -> list[U8]:
        """Up to :attr:`count` frames (a live camera that gives none in a few tries gives fewer;
        the caller says so, naming the camera)."""
        count = self.count
        if self.table is not None:
            return [np.asarray(f.image, np.uint8) for f in self.table.frames(count)]
        from referee.vision.sources import EndOfSource

        out: list[U8] = []
        for _ in range(count * 4):
            try:
                frame = self.source.read()
            except EndOfSource:
                break
            if frame is not None:
                out.append(np.asarray(frame.image, np.uint8))
                if len(out) == count:
                    break
        return out


def grid_plan(cards: int, family: str, frame_size: tuple[int, int], layout_path: Path | None) -> GridPlan:
    """The grid the club lays the deck out in: planned from the calibrated table
    (``layout_path``, the box's ``layout``: the card size its scale gives, within the printed
    mat) when there is one, else from :data:`~referee.vision.enroll_grid.CARD_HEIGHT_FRAC`
    of the frame (a simulated table, a camera not calibrated yet). Cards that would lie under
    80 px tall are refused, saying what to change."""
    from referee.vision.enroll_grid import plan_for_table, plan_grid

    if layout_path is None or not layout_path.exists():
        return plan_grid(cards, family, frame_size)
    from referee.vision.layout import TableLayout

    return plan_for_table(cards, family, TableLayout.load(layout_path), frame_size)


def layout_markers(layout_path: Path | None) -> list[tuple[float, float]]:
    """The mat's corner markers in the frame from a calibrated layout file (none without one)."""
    if layout_path is None or not layout_path.exists():
        return []
    from referee.vision.layout import TableLayout, marker_centres

    layout = TableLayout.load(layout_path)
    points = layout.to_image(np.array(list(marker_centres().values()), np.float64))
    return [(float(x), float(y)) for x, y in points]


def sim_table(spec: str, order: Sequence[str], plan: GridPlan, frame_size: tuple[int, int]) -> TableFrames | None:
    """A simulated table for a ``sim`` or ``sim:SEED`` source spec (else ``None``)."""
    kind, _, seed = spec.partition(":")
    if kind != "sim":
        return None
    seed = seed.rpartition(":")[2]  # sim:GAME:SEED as the vision sources spell it
    if seed and not (seed.isascii() and seed.isdigit()):
        raise ConfigError(f"bad simulator seed in {spec!r} (expected sim or sim:SEED, SEED a whole number >= 0)")
    from referee.vision.simulator.deck_grid import LaidOutDeck

    return TableFrames(table=LaidOutDeck(order, plan, seed=int(seed or 0), frame_size=frame_size))


class TableEnrolment:
    """An enrolment and the frames it reads, one layout at a time: what the box's "Enrol deck"
    menu drives with the buttons and ``referee enroll --camera`` with Enter. ``keepalive`` is
    called between the long steps (the box pings the service watchdog with it)."""

    def __init__(self, session: DeckEnrolment, frames: TableFrames,
                 on_enrolled: Callable[[EnrolReport], None] = lambda report: None,
                 keepalive: Callable[[], None] = lambda: None) -> None:
        self.session, self.frames, self.on_enrolled, self.keepalive = session, frames, on_enrolled, keepalive

    @property
    def plan(self) -> GridPlan:
        return self.session.plan

    def layout_codes(self, layout: int) -> list[str]:
        return self.session.layout_codes(layout)

    def capture(self, layout: int) -> int:
        """Frames of ``layout`` as it lies now, its cards found and named; raises
        :class:`~referee.vision.enroll_grid.LayoutError` naming the places, or
        :class:`ConfigError` when the camera gives no frame."""
        self.frames.lay_out(layout)
        images = self.frames.grab()
        self.keepalive()
        if not images:
            raise ConfigError(f"no frame from the camera for layout {layout + 1}: is it connected?")
        self.session.markers = self.frames.markers
        return self.session.capture(layout, images)

    def finish(self) -> EnrolReport:
        """Enrol, write and read back (see :meth:`DeckEnrolment.finish`); then ``on_enrolled``."""
        self.keepalive()
        report = self.session.finish()
        self.keepalive()
        self.on_enrolled(report)
        return report


def run_enrolment(enrolment: TableEnrolment, ready: Callable[[int], None] = lambda k: None) -> EnrolReport:
    """Every layout in turn: ``ready(k)`` waits until the club laid out layout ``k`` (the
    command line asks for Enter; a simulated table lays itself out), then it is captured; then
    the enrolment is finished. A layout that cannot be read raises
    :class:`~referee.vision.enroll_grid.LayoutError` before anything is written."""
    for layout in range(enrolment.plan.layouts):
        ready(layout)
        enrolment.capture(layout)
    return enrolment.finish()


def box_enrolment(cfg: BoxConfig, feed: Any, keepalive: Callable[[], None] = lambda: None) -> TableEnrolment:
    """An enrolment of the box's game's deck from its own camera (``feed.source``; a simulated
    table on a simulated box), written to :func:`enrollment_path` and, once done, read with by
    the running box (``feed.use_enrollment``) as by every later start."""
    from referee.recognition import CardClassifier, Enrollment
    from referee.recognition.views import LIVE_VIEWS
    from referee.vision.enroll_grid import table_order

    deck, family = table_deck(cfg), cfg.game.deck
    order = table_order(family, deck)
    frame_size = (cfg.camera.width, cfg.camera.height)
    kind, _, rest = cfg.camera.source.partition(":")
    plan = grid_plan(len(order), family, frame_size, None if kind == "sim" else cfg.layout)
    out = enrollment_path(cfg, family)
    # single reads, whatever views the model names for a photo: the prototypes must be the
    # embeddings the box's live loop (views.LIVE_VIEWS) will compare with them
    session = DeckEnrolment(CardClassifier.load(family, threads=1, views=LIVE_VIEWS), order, plan, out,
                            sure=cfg.thresholds.confidence, copies=DECKS[deck].copies, keepalive=keepalive)
    frames = (sim_table(f"sim:{rest}", order, plan, frame_size) if kind == "sim" else None) or TableFrames(
        source=feed.source, markers=layout_markers(cfg.layout))

    def use(report: EnrolReport) -> None:
        feed.use_enrollment(Enrollment.load(report.path))
        for line in report.lines():  # the journal keeps what the screen pages through
            log.info("%s", line)

    return TableEnrolment(session, frames, on_enrolled=use, keepalive=keepalive)
