"""``referee run``: the appliance's main loop (camera -> vision -> referee -> LEDs, display,
record), started by ``systemd/referee.service``.

    referee run --config /etc/referee/config.toml
    referee run --config hardware/config.toml --events game.jsonl --pace 0.2 --no-hardware

Exit status: 0 when the input ended or on SIGTERM, 2 for a bad config (the message names the
key), 3 when the match record cannot be written (full disk, read-only: the record stays
consistent and the restarted service resumes from it), 1 for an input that cannot be opened
(no camera, layout or recogniser model, an unreadable log: a fault screen stays lit).

Faults keep the match: no frames -> fault screen, red heartbeat, retries every
``camera.retry_s``; display or LEDs missing -> logged, the loop runs without them.
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from referee.box.app import Box
from referee.box.config import DEFAULT_PATH, BoxConfig, display_settings, load_config
from referee.box.display import NullDisplay, ScreenSink, open_display
from referee.box.feed import Feed, JsonlFeed
from referee.box.notify import Notifier
from referee.box.screens import FaultScreen, Screen, render
from referee.box.signals import NullSignals, open_signals
from referee.box.state import MatchStore, StateError
from referee.box.stock import stock_reader
from referee.errors import CameraError, ConfigError

log = logging.getLogger("referee.run")

EXIT_CONFIG, EXIT_STATE, EXIT_INPUT = 2, 3, 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=DEFAULT_PATH, help=f"TOML config (default {DEFAULT_PATH})")
    parser.add_argument("--events", type=Path, help="referee a JSON Lines event log instead of the camera")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between events of --events (default 0.5)")
    parser.add_argument("--sim-events", type=Path, help="with camera.source = 'sim': the event log the simulation acts out")
    parser.add_argument("--state-dir", type=Path, help="override state_dir of the config")
    parser.add_argument("--language", choices=("it", "en"), help="override the display language")
    parser.add_argument("--no-hardware", action="store_true", help="no LEDs, buzzer, buttons or display")
    parser.add_argument("--screens", type=Path, help="also save every screen shown as PNG in this folder")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


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
    ) -> None:
        self.cfg, self.box, self.feed, self.notifier = cfg, box, feed, notifier
        self.gestures = gestures or queue.Queue()
        self.clock, self.sleep = clock, sleep
        self.stopping = False
        self.retries = 0
        if box.stock_reader is None:  # the camera's read of the stock, when it has one
            box.stock_reader = stock_reader(feed)

    def run(self) -> int:
        self.feed.skip_to(self.box.start())
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
                if item.event is not None:
                    self.box.handle(item.event, item.pos)  # StateError ends the loop
                elif item.t is not None:  # a camera frame: questions that wait for quiet
                    self.box.frame(item.t, item.pos)
            deals = self.box.deals_started
            self._drain_gestures()
            if self.box.deals_started != deals and hasattr(self.feed, "new_deal"):
                self.feed.new_deal()  # a deal entered with the buttons
            self.box.tick()
            if self.feed.finished:
                log.info("input ended")
                break
        return 0

    def _frames_flowing(self) -> None:
        if self.retries or self.box.fault_screen is not None:
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

    def _drain_gestures(self) -> None:
        while True:
            try:
                button, kind = self.gestures.get_nowait()
            except queue.Empty:
                return
            self.box.gesture(button, kind)


def _open_feed(cfg: BoxConfig, args: argparse.Namespace, box: Box) -> Feed:
    if args.events is not None:
        return JsonlFeed(args.events, pace_s=args.pace)
    kind, _, rest = cfg.camera.source.partition(":")
    if kind == "events":
        return JsonlFeed(Path(rest), pace_s=args.pace)
    # imports OpenCV and the recogniser: only when a camera is configured
    from referee.box.vision_feed import LiveRules, open_vision_feed

    sim_events = None
    if args.sim_events is not None:
        try:
            lines = args.sim_events.read_text(encoding="utf-8").splitlines()
            sim_events = [json.loads(line) for line in lines if line.strip()]
        except (OSError, ValueError) as exc:
            raise CameraError(f"{args.sim_events}: cannot read the simulation's events: {exc}") from exc
    feed = open_vision_feed(cfg, LiveRules(lambda: box.referee), sim_events)
    # The box asks the same questions as `referee watch` (missed plays; out of turn asked
    # first unless thresholds.trust_after_tricks opts in): one PlayArbiter decides for both.
    feed.attach_to(box)
    return feed


def _hardware(cfg: BoxConfig, args: argparse.Namespace, gestures: queue.Queue[tuple[str, str]]) -> tuple[Any, ScreenSink, Any]:
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


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        _config_fault(args)
        return EXIT_CONFIG
    if args.state_dir is not None:
        cfg = replace(cfg, state_dir=args.state_dir)
    if args.language is not None:
        cfg = replace(cfg, language=args.language)
    gestures: queue.Queue[tuple[str, str]] = queue.Queue()
    signals, display, buttons = _hardware(cfg, args, gestures)
    if args.screens is not None:
        display = PngDisplay(display, args.screens, cfg.language)
    notifier = Notifier.from_env()
    try:
        with MatchStore.open(cfg.state_dir) as store:
            box = Box(cfg, store, signals, display)
            try:
                feed = _open_feed(cfg, args, box)
            except CameraError as exc:  # no camera, layout or model; an unreadable log
                print(f"referee run: {exc}", file=sys.stderr)
                box.fault("fault_start", 0)  # stays lit after exit: the box is not just blank
                return EXIT_INPUT
            runner = Runner(cfg, box, feed, notifier, gestures)
            _stop_on_sigterm(runner)
            try:
                return runner.run()
            except StateError:
                box.fault("fault_state", 0)
                raise
            finally:
                feed.close()
    except StateError as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        return EXIT_STATE
    finally:
        notifier.stopping()
        if buttons is not None:
            buttons.close()
        signals.close()
        display.close()


def _config_fault(args: argparse.Namespace) -> None:
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
