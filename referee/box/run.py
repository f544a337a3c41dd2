"""``referee run``'s work (its command line is :mod:`referee.cli.run`): the appliance's main loop
(camera -> vision -> referee -> LEDs, display, record), started by ``systemd/referee.service``.

    referee run --config /etc/referee/config.toml
    referee run --config hardware/config.toml --events game.jsonl --pace 0.2 --no-hardware

Exit status: 0 when the input ended or on SIGTERM, 2 for a bad config (the message names the
key), 3 when the match record cannot be written (full disk, read-only: the record stays
consistent and the restarted service resumes from it), 1 for an input that cannot be opened
(no camera, layout or recogniser model, an unreadable log: a fault screen stays lit) or that
is not the one the unfinished match was refereed from (``--new-match`` sets that match aside),
4 when another ``referee run`` holds the record (the message names its pid; nothing is
touched, not even the display).

The record keeps where each re-readable source was read to: a restart goes on after the last
recorded line, and a log read to its end (or a kill right after its ``match_end``) is not
refereed again as a new match. Event lines are read by the strict reader (:mod:`referee.jsonl`,
as in ``referee replay``); a rejected line is recorded as rejected and the referee goes on.

Faults keep the match: no frames -> fault screen, red heartbeat, retries every
``camera.retry_s``; display or LEDs missing -> logged, the loop runs without them.
"""

from __future__ import annotations

import logging
import queue
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from referee.box.app import Box
from referee.box.chosen_game import with_chosen_game
from referee.box.config import DEFAULT_PATH, BoxConfig, display_settings
from referee.box.deck_file import DeckFile
from referee.box.display import NullDisplay, ScreenSink, open_display
from referee.box.feed import Feed, JsonlFeed
from referee.box.notify import Notifier
from referee.box.salvage import salvage_if_damaged
from referee.box.screens import CalibrateScreen, FaultScreen, Screen, render
from referee.box.signals import NullSignals, open_signals
from referee.box.source import SourceRef, camera_source, describe_key, events_source
from referee.box.state import MatchStore, StateError
from referee.box.stock import stock_reader
from referee.errors import CameraError, RefereeError
from referee.jsonl import read_lines
from referee.tournament.messages import Assignment

log = logging.getLogger("referee.run")

EXIT_CONFIG, EXIT_STATE, EXIT_INPUT, EXIT_LOCKED = 2, 3, 1, 4
#: how long the fault screen of a salvaged record stays before flowing frames clear it
RECORD_FAULT_S = 15.0


@dataclass(frozen=True)
class RunOptions:
    """How ``referee run`` was asked to run (its command line is :mod:`referee.cli.run`)."""

    #: the TOML config
    config: Path = DEFAULT_PATH
    #: referee this JSON Lines event log instead of the camera
    events: Path | None = None
    #: seconds between events of ``events``
    pace: float = 0.5
    #: with camera.source = 'sim': the event log the simulation acts out
    sim_events: Path | None = None
    #: no LEDs, buzzer, buttons or display
    no_hardware: bool = False
    #: also save every screen shown as PNG in this folder
    screens: Path | None = None
    #: set any unfinished match aside and referee the source from its start as a new match
    new_match: bool = False


class PngDisplay:
    """Wraps a display and saves every screen it shows as ``NNNN.png`` (demos, reviews)."""

    def __init__(self, inner: ScreenSink, folder: Path, language: str) -> None:
        self.inner, self.folder, self.language = inner, folder, language
        self.count = 0
        self.last: Screen | None = None
        folder.mkdir(parents=True, exist_ok=True)

    def show(self, screen: Screen) -> None:
        if screen != self.last:
            self.count += 1
            render(screen, self.language).save(self.folder / f"{self.count:04d}.png")
        self.last = screen
        self.inner.show(screen)

    def close(self) -> None:
        self.inner.close()


class Runner:
    """The loop: feed -> box, with fault handling and the systemd watchdog. Injectable parts
    (feed, box, notifier, clock, sleep) keep it testable without hardware or systemd."""

    def __init__(
        self,
        cfg: BoxConfig,
        box: Box,
        feed: Feed,
        notifier: Notifier,
        gestures: queue.Queue[tuple[str, str]] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        source: SourceRef | None = None,
        console: Any = None,
    ) -> None:
        self.cfg, self.box, self.feed, self.notifier = cfg, box, feed, notifier
        #: the phone console (``referee.web.console.Console``), pumped on every turn: its
        #: requests are run here, in this loop, like the buttons' gestures
        self.console = console
        #: what feeds the record: its position is kept with each step (see state.py)
        self.source = source
        self.gestures = gestures or queue.Queue()
        #: work other threads hand to this loop (the tournament's assignment): run in turn
        self.posted: queue.Queue[Callable[[], None]] = queue.Queue()
        self.clock, self.sleep = clock, sleep
        self.stopping = False
        self.retries = 0
        #: a fault found at start that does not stop the box (``fault_record``: a salvaged
        #: record), lit once the match is resumed, for RECORD_FAULT_S even while frames flow
        self.start_fault: str | None = None
        self.fault_until = 0.0
        if box.stock_reader is None:  # the camera's read of the stock, when it has one
            box.stock_reader = stock_reader(feed)

    def run(self) -> int:
        resumed = self.box.start()
        if self.source is not None:
            self.box.store.follow_source(self.source.key, positional=self.source.positional)
            if self.source.positional:
                kept = self.box.store.source_position(self.source.key)
                resumed = resumed if kept is None else kept  # None: a record older than sources
        self.feed.skip_to(resumed)
        if self.start_fault is not None:
            self.box.fault(self.start_fault, 0)
            self.fault_until = self.clock() + RECORD_FAULT_S
        last_frame = self.clock()
        while not self.stopping:
            try:
                items = self.feed.poll(timeout=0.05)
            except CameraError as exc:
                self._camera_lost(str(exc))
                continue
            now = self.clock()
            if items:
                last_frame = now
                self._frames_flowing()
            elif now - last_frame > self.cfg.camera.no_frame_timeout_s:
                self._camera_lost(f"no frame for {now - last_frame:.1f} s")
                last_frame = self.clock()
            for item in items:
                if item.rejected is not None:  # recorded, so a restart skips it
                    self.box.store.append_rejected(self.box.match_id, item.pos, item.rejected)
                elif item.event is not None:
                    self.box.handle(item.event, item.pos)  # StateError ends the loop
                elif item.t is not None:  # a camera frame: questions that wait for quiet
                    self.box.frame(item.t, item.pos)
            deals = self.box.deals_started
            self._drain_gestures()
            self._run_posted()
            if self.console is not None:
                self.console.pump()
            if self.box.deals_started != deals and hasattr(self.feed, "new_deal"):
                self.feed.new_deal()  # a deal entered with the buttons
            self.box.tick()
            if self.feed.finished:
                log.info("input ended")
                if self.source is not None and self.source.positional:
                    self.box.store.finish_source(self.source.key)
                break
        return 0

    def _frames_flowing(self) -> None:
        start_fault_lit = not self.retries and self.clock() < self.fault_until
        if (self.retries or self.box.fault_screen is not None) and not start_fault_lit:
            log.info("frames are back after %d retries", self.retries)
            self.retries = 0
            self.box.fault_cleared()
        self.notifier.ready(f"refereeing {self.cfg.game.name}")
        self.notifier.frames_flowing(self.clock())

    def _camera_lost(self, why: str) -> None:
        """Fault screen and pattern, wait, reopen; the watchdog is not pinged meanwhile."""
        self.retries += 1
        log.warning("camera fault (%s); retry %d in %.1f s", why, self.retries, self.cfg.camera.retry_s)
        self.box.fault("fault_camera", self.retries)
        self.notifier.status(f"camera fault: {why}")
        self.sleep(self.cfg.camera.retry_s)
        try:
            self.feed.reopen()
        except CameraError as exc:
            log.warning("reopen failed: %s", exc)

    def post(self, work: Callable[[], None]) -> None:
        """Run ``work`` in this loop, in turn (from any thread)."""
        self.posted.put(work)

    def _run_posted(self) -> None:
        while True:
            try:
                work = self.posted.get_nowait()
            except queue.Empty:
                return
            work()

    def _drain_gestures(self) -> None:
        while True:
            try:
                button, kind = self.gestures.get_nowait()
            except queue.Empty:
                return
            self.box.gesture(button, kind)


def not_calibrated(cfg: BoxConfig) -> bool:
    """A camera is configured but no table layout was calibrated for it yet (a new box)."""
    live = cfg.camera.source.partition(":")[0] in ("picamera2", "usb")
    return live and (cfg.layout is None or not cfg.layout.exists())


def _open_feed(cfg: BoxConfig, args: RunOptions, box: Box) -> Feed:
    if args.events is not None:
        return JsonlFeed(args.events, pace_s=args.pace)
    kind, _, rest = cfg.camera.source.partition(":")
    if kind == "events":
        return JsonlFeed(Path(rest), pace_s=args.pace)
    # imports OpenCV and the recogniser: only when a camera is configured
    from referee.box.frames import FRAMES_DIR, FrameKeeper
    from referee.box.vision_feed import LiveRules, open_vision_feed

    sim_events = None if args.sim_events is None else _sim_events(args.sim_events)
    feed = open_vision_feed(cfg, LiveRules(lambda: box.referee), sim_events)
    # The box asks the same questions as `referee watch` (missed plays; out of turn asked
    # first unless thresholds.trust_after_tricks opts in): one PlayArbiter decides for both.
    feed.attach_to(box)
    # the frames that decided the plays, kept for a dispute (bounded; a fault never stops play)
    if cfg.camera.keep_frames_mb > 0:
        box.frames = feed.keeper = FrameKeeper(cfg.state_dir / FRAMES_DIR, cfg.camera.keep_frames_mb * 1024 * 1024)
    return feed


def _enroller(box: Box, feed: Feed, notifier: Notifier) -> Callable[[], Any]:
    """What the box's "Enrol deck" starts: an enrolment of its game's deck from the feed's
    camera, pinging the watchdog between its long steps (the loop waits for it)."""
    def start() -> Any:
        from referee.box.enrol_deck import box_enrolment

        return box_enrolment(box.cfg, feed, keepalive=notifier.frames_flowing)

    return start


def _sim_events(path: Path) -> list[dict[str, Any]]:
    """The event log a simulation acts out, read strictly: a rejected line stops the start
    (the simulation would act out another game), naming the file and the line."""
    try:
        with path.open("rb") as f:
            lines = list(read_lines(f))
    except OSError as exc:
        raise CameraError(f"{path}: cannot read the simulation's events: {exc.strerror or exc}") from exc
    for line in lines:
        if line.event is None:
            raise CameraError(f"{path}:{line.number}: cannot read the simulation's events: {line.error}")
    return [line.event for line in lines if line.event is not None]


def _hardware(cfg: BoxConfig, args: RunOptions, gestures: queue.Queue[tuple[str, str]]) -> tuple[Any, ScreenSink, Any]:
    if args.no_hardware:
        return NullSignals(), NullDisplay(), None
    signals = open_signals(cfg.pins, cfg.game.seats)
    display = open_display(cfg.display, cfg.language)
    buttons = None
    if not isinstance(signals, NullSignals):
        from referee.box.buttons import Buttons

        try:
            factory = signals.red.pin_factory
            buttons = Buttons(cfg.pins, lambda b, k: gestures.put((b, k)), pin_factory=factory)
        except Exception as exc:  # a missing button must not stop the referee
            log.warning("no buttons: %s; running without them", exc)
    return signals, display, buttons


def run_locked(cfg: BoxConfig, args: RunOptions) -> int:
    """The box's main loop on ``cfg``, its record locked by the caller; the exit status."""
    cfg = with_chosen_game(cfg)  # the game chosen on the box's menu, kept across restarts
    gestures: queue.Queue[tuple[str, str]] = queue.Queue()
    signals, display, buttons = _hardware(cfg, args, gestures)
    if args.screens is not None:
        display = PngDisplay(display, args.screens, cfg.language)
    notifier = Notifier.from_env()
    source = _source_of(cfg, args)
    try:
        salvage = salvage_if_damaged(cfg.state_dir)
        if salvage is not None:
            print(f"referee run: {salvage.summary()}", file=sys.stderr)
            notifier.status("match record damaged: salvaged")
        with MatchStore.open(cfg.state_dir) as store:
            box = Box(cfg, store, signals, display)
            try:
                _claim_source(store, cfg, source, args.new_match)
                feed = _open_feed(cfg, args, box)
                if hasattr(feed, "use_enrollment"):  # a camera: the deck can be enrolled at the table
                    box.enroller = _enroller(box, feed, notifier)
            except CameraError as exc:  # no camera, layout or model; an unreadable log
                print(f"referee run: {exc}", file=sys.stderr)
                if args.events is None and not_calibrated(cfg):  # a new box: nothing is broken
                    display.show(CalibrateScreen())  # stays lit after exit, like a fault
                else:
                    box.fault("fault_start", 0)  # stays lit after exit: the box is not just blank
                return EXIT_INPUT
            console, server = None, None
            if cfg.web is not None:  # the phone console: its own thread, its requests run here
                from referee.web.console import Console
                from referee.web.server import ConsoleError, ConsoleServer

                console = Console(box, cfg.web.pin, cfg.state_dir / "console.json")
                try:
                    server = ConsoleServer(console, cfg.web.host, cfg.web.port).start()
                except ConsoleError as exc:  # the port is taken: the table plays on without it
                    log.error("%s; running without the console", exc)
                    notifier.status(f"console not started: {exc}")
            runner = Runner(cfg, box, feed, notifier, gestures, source=source, console=console)
            if salvage is not None:
                runner.start_fault = "fault_record"
            _stop_on_sigterm(runner)
            publisher = None
            if cfg.tournament is not None:  # a club tournament: the record goes to its broker
                from referee.box.publish import start_publisher

                publisher = start_publisher(
                    cfg.tournament, store.path,
                    on_assignment=lambda a: runner.post(lambda: assigned(box, console, a)),
                    on_deck=lambda d: runner.post(lambda: use_deck(feed, publisher, d)))
            try:
                return runner.run()
            except StateError:
                box.fault("fault_state", 0)
                raise
            finally:
                feed.close()
                if publisher is not None:
                    publisher.stop()
                if server is not None:
                    server.stop()
    except StateError as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        return EXIT_STATE
    finally:
        notifier.stopping()
        if buttons is not None:
            buttons.close()
        signals.close()
        display.close()


def assigned(box: Box, console: Any, assignment: Assignment) -> None:
    """The tournament's assignment, in the main loop: the box sets up the next match, the
    phone console shows the table's number and the same names."""
    box.assigned(assignment)
    if console is None or assignment.match is None:
        return
    from referee.web.setup import TableSetup

    try:
        console.desk.set_setup(TableSetup(assignment.table, dict(box.players)))
    except OSError as exc:  # the names are a courtesy: the match is set up all the same
        log.warning("cannot keep the table's names for the console: %s", exc)


def use_deck(feed: Feed, publisher: Any, deck: DeckFile) -> None:
    """The deck's enrolment file the tournament sent, taken (in the main loop, between two
    frames): the recogniser switches to it, or keeps the one it has when the model refuses it;
    either way the service is told."""
    switch = getattr(feed, "use_enrollment", None)
    error = None
    if switch is None:
        log.info("the deck's enrolment file %s is kept; this source has no recogniser", deck.path)
    else:
        try:
            switch(deck.enrollment)
            log.info("recognising with the enrolment of %s's deck (%s)", deck.owner or "?", deck.path)
        except RefereeError as exc:
            error = str(exc)
            log.error("the deck's enrolment file %s: %s; the box keeps the one it has", deck.path, exc)
    if publisher is not None:
        publisher.report_deck(deck.sha256, error)


def _source_of(cfg: BoxConfig, args: RunOptions) -> SourceRef:
    if args.events is not None:
        return events_source(args.events)
    kind, _, rest = cfg.camera.source.partition(":")
    if kind == "events":
        return events_source(Path(rest))
    return camera_source(cfg.camera.source, args.sim_events)


class SourceConflict(CameraError):
    """The unfinished match was refereed from another source (the message names both)."""


def _claim_source(store: MatchStore, cfg: BoxConfig, source: SourceRef, new_match: bool) -> None:
    """Refuse to resume a match from a source other than the one that fed it; with
    ``new_match``, set any unfinished match aside and read the source from its start."""
    current = store.current_match(cfg.game.name)
    owner = None if current is None else store.match_source(current)
    if new_match:
        if current is not None:
            store.abandon_match(current)
            log.warning("match %d set aside unfinished (--new-match)", current)
        store.restart_source(source.key)
        return
    if current is not None and owner is not None and owner != source.key:
        raise SourceConflict(
            f"match {current} of {cfg.game.name} is unfinished and was refereed from "
            f"{describe_key(owner)}{_other_file(owner, source)}; this run reads {source.describe()}. "
            "Run it again on that source to finish the match, or pass --new-match to set "
            f"match {current} aside (it is kept) and referee {source.describe()} as a new match"
        )
    if current is None and source.positional and store.source_finished(source.key) is not None:
        log.info("%s was already refereed to its end: only lines added since are read", source.describe())


def _other_file(owner: str, source: SourceRef) -> str:
    same_path = describe_key(owner) == source.describe()
    return " (a different file at the same path: its first line differs)" if same_path else ""


def show_config_fault(args: RunOptions) -> None:
    """A config that does not validate: say so on the display (its part of the config may
    still be sound), lit after exit, rather than leave the box blank while systemd retries."""
    settings = display_settings(args.config)
    if settings is None:
        return
    display_cfg, language = settings
    display: ScreenSink = NullDisplay() if args.no_hardware else open_display(display_cfg, language)
    if args.screens is not None:
        display = PngDisplay(display, args.screens, language)
    try:
        display.show(FaultScreen("fault_config"))
    finally:
        display.close()


def _stop_on_sigterm(runner: Runner) -> None:
    def stop(signum: int, frame: FrameType | None) -> None:
        runner.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
