"""``referee run`` end to end: faults injected, exit statuses, systemd notify, and the crash test."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from box.helpers import FakeClock, RecordingSignals, write_jsonl
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.display import NullDisplay
from referee.box.feed import FeedItem, JsonlFeed
from referee.box.notify import Notifier
from referee.box.run import Runner
from referee.box.screens import FaultScreen, ScoreScreen, render
from referee.box.state import MatchStore
from referee.cli import main
from referee.errors import CameraError
from referee.paths import REPO_ROOT
from referee.replay import replay_lines
from referee.rules.playout import random_deal_events, random_match_events

CONFIG = REPO_ROOT / "hardware" / "config.toml"


class FlakyFeed:
    """Delivers ``events``, but the camera is 'unplugged' for the first ``lost`` polls."""

    def __init__(self, events: list[dict[str, Any]], lost: int = 0, silent: int = 0) -> None:
        self.events, self.lost, self.silent = list(events), lost, silent
        self.finished = False
        self.reopened = 0
        self.pos = 0

    def poll(self, timeout: float) -> list[FeedItem]:
        if self.lost > 0:
            self.lost -= 1
            raise CameraError("camera unplugged")
        if self.silent > 0:  # open, but no frames arrive
            self.silent -= 1
            return []
        if not self.events:
            self.finished = True
            return [FeedItem(None)]
        self.pos += 1
        return [FeedItem(self.events.pop(0), self.pos)]

    def skip_to(self, pos: int | None) -> None:
        pass

    def reopen(self) -> None:
        self.reopened += 1

    def close(self) -> None:
        pass


class ListNotifier(Notifier):
    def __init__(self) -> None:
        super().__init__(None, watchdog_s=10.0)
        self.sent: list[str] = []

    def send(self, message: str) -> bool:
        self.sent.append(message)
        return True


def make_runner(cfg: BoxConfig, feed: Any, clock: FakeClock) -> tuple[Runner, Box, RecordingSignals, NullDisplay, ListNotifier]:
    signals, display, notifier = RecordingSignals(), NullDisplay(), ListNotifier()
    box = Box(cfg, MatchStore.open(cfg.state_dir), signals, display, clock=clock)
    runner = Runner(cfg, box, feed, notifier, clock=clock, sleep=clock.sleep)
    return runner, box, signals, display, notifier


def test_camera_unplugged_shows_fault_retries_and_keeps_the_match(cfg: BoxConfig, clock: FakeClock) -> None:
    events = random_deal_events("briscola-4", seed=4)
    feed = FlakyFeed(events, lost=3)
    runner, box, signals, display, notifier = make_runner(cfg, feed, clock)
    shown: list[Any] = []
    original = display.show

    def show(screen: Any) -> None:
        shown.append(screen)
        original(screen)

    display.show = show  # type: ignore[method-assign]
    assert runner.run() == 0
    faults = [s for s in shown if isinstance(s, FaultScreen)]
    assert [f.retries for f in faults] == [1, 2, 3]
    assert feed.reopened == 3
    assert signals.names().count("fault") == 1 and "fault_cleared" in signals.names()
    assert notifier.sent.index("READY=1\nSTATUS=refereeing briscola-4") > 0  # READY only after frames
    assert not any(m.startswith("READY") for m in notifier.sent[: notifier.sent.index("READY=1\nSTATUS=refereeing briscola-4")])
    assert len(box.store.events(1)) == len(events)  # nothing lost
    assert box.store.calls(1)[-1]["call"] == "deal_end"


def test_no_frames_for_too_long_is_a_fault(cfg: BoxConfig, clock: FakeClock) -> None:
    feed = FlakyFeed(random_deal_events("briscola-4", seed=4)[:3], silent=200)
    runner, _box, signals, display, notifier = make_runner(cfg, feed, clock)
    original_poll = feed.poll

    def slow_poll(timeout: float) -> list[FeedItem]:
        clock.now += timeout  # time passes while waiting for a frame
        return original_poll(timeout)

    feed.poll = slow_poll  # type: ignore[method-assign]
    runner.run()
    assert "fault" in signals.names()
    assert not any(m == "WATCHDOG=1" for m in notifier.sent[:1])  # no ping before frames flowed
    assert isinstance(display.last, ScoreScreen)  # cleared once frames came back


def test_watchdog_pinged_only_while_frames_flow(cfg: BoxConfig, clock: FakeClock) -> None:
    feed = FlakyFeed(random_deal_events("briscola-4", seed=4)[:5], lost=2)
    runner, _, _, _, notifier = make_runner(cfg, feed, clock)
    original_poll = feed.poll

    def poll(timeout: float) -> list[FeedItem]:
        clock.now += 6  # more than half of the 10 s watchdog between frames
        return original_poll(timeout)

    feed.poll = poll  # type: ignore[method-assign]
    runner.run()
    first_ping = notifier.sent.index("WATCHDOG=1")
    assert any(m.startswith("STATUS=camera fault") for m in notifier.sent[:first_ping])
    assert notifier.sent.count("WATCHDOG=1") >= 5


def test_notifier_speaks_the_sd_notify_datagram_protocol(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    notifier = Notifier.from_env({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "4000000"})
    assert notifier.watchdog_s == 4.0
    notifier.ready("up")
    notifier.ready("up again")  # READY once
    notifier.frames_flowing(now=100.0)
    notifier.frames_flowing(now=101.0)  # within half the watchdog period: no second ping
    notifier.frames_flowing(now=102.5)
    server.settimeout(1)
    got = [server.recv(256).decode() for _ in range(3)]
    assert got == ["READY=1\nSTATUS=up", "WATCHDOG=1", "WATCHDOG=1"]
    server.close()
    assert not Notifier.from_env({}).send("READY=1")  # outside systemd: no-op


def test_corrupt_config_exits_2_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text(CONFIG.read_text().replace("buzzer = 12", "buzzer = 'loud'"))
    assert main(["run", "--config", str(bad), "--no-hardware"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: pins.buzzer: expected an integer 0..27, got 'loud'" in err


def test_a_config_error_is_shown_on_the_display_when_its_display_part_is_sound(tmp_path: Path) -> None:
    """The FAULT screen stays lit after exit (the service retries); with the display's own
    keys broken too, nothing is drawn (its driver or address cannot be trusted)."""
    from PIL import Image, ImageChops

    bad = tmp_path / "config.toml"
    bad.write_text(CONFIG.read_text().replace("buzzer = 12", "buzzer = 'loud'").replace('language = "it"', 'language = "en"'))
    screens = tmp_path / "screens"
    assert main(["run", "--config", str(bad), "--no-hardware", "--screens", str(screens)]) == 2
    [png] = sorted(screens.glob("*.png"))
    expected = render(FaultScreen("fault_config"), "en").convert("L")
    assert ImageChops.difference(Image.open(png).convert("L"), expected).getbbox() is None
    bad.write_text(CONFIG.read_text().replace('driver = "ssd1306"', 'driver = "ssd9999"'))
    assert main(["run", "--config", str(bad), "--no-hardware", "--screens", str(tmp_path / "none")]) == 2
    assert not (tmp_path / "none").exists()


def test_unwritable_state_dir_exits_3_with_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_jsonl(tmp_path / "e.jsonl", random_deal_events("briscola-4", seed=1)[:3])
    args = ["run", "--config", str(CONFIG), "--events", str(log), "--pace", "0", "--no-hardware"]
    assert main([*args, "--state-dir", "/proc/referee-state"]) == 3  # /proc refuses even root
    assert "/proc/referee-state/matches.sqlite: cannot open the match record" in capsys.readouterr().err


def test_an_input_that_cannot_be_opened_exits_1_and_leaves_a_fault_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A box that cannot start its input (no camera, layout or model; here a missing log)
    says so on the display too, which stays lit after exit, instead of staying blank while
    systemd restarts it."""
    screens = tmp_path / "screens"
    args = ["run", "--config", str(CONFIG), "--events", str(tmp_path / "nope.jsonl"), "--no-hardware",
            "--state-dir", str(tmp_path / "state"), "--screens", str(screens), "--language", "en"]
    assert main(args) == 1
    assert "nope.jsonl: cannot read events" in capsys.readouterr().err
    last = sorted(screens.glob("*.png"))[-1]
    from PIL import Image, ImageChops

    expected = render(FaultScreen("fault_start"), "en").convert("L")
    assert ImageChops.difference(Image.open(last).convert("L"), expected).getbbox() is None


def test_missing_display_and_leds_run_without_them(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cfg_file = tmp_path / "config.toml"
    text = CONFIG.read_text().replace('factory = "auto"', 'factory = "native"').replace("i2c_port = 1", "i2c_port = 19")
    cfg_file.write_text(text)
    events = random_deal_events("briscola-4", seed=1)
    log = write_jsonl(tmp_path / "e.jsonl", events)
    state = tmp_path / "state"
    code = main(["run", "--config", str(cfg_file), "--events", str(log), "--pace", "0", "--state-dir", str(state)])
    assert code == 0
    assert "no LEDs/buzzer" in caplog.text and "no display" in caplog.text
    with MatchStore.open(state) as store:
        assert len(store.events(1)) == len(events)


def test_jsonl_feed_paces_and_resumes_after_a_position(tmp_path: Path) -> None:
    clock = FakeClock()
    log = write_jsonl(tmp_path / "e.jsonl", [{"event": "a"}, {"event": "b"}, {"event": "c"}])
    feed = JsonlFeed(log, pace_s=1.0, clock=clock, sleep=clock.sleep)
    feed.skip_to(1)
    assert feed.poll(0.1) == [FeedItem({"event": "b"}, 2)]
    assert feed.poll(0.1) == [FeedItem(None)]  # waiting: a heartbeat, not an event
    clock.now += 1
    assert feed.poll(0.1) == [FeedItem({"event": "c"}, 3)]
    clock.now += 1
    feed.poll(0.1)
    assert feed.finished
    with pytest.raises(CameraError, match=r"nope\.jsonl: cannot read events"):
        JsonlFeed(tmp_path / "nope.jsonl")


# -- the crash test ------------------------------------------------------------------------

def _run_cmd(cfg: Path, log: Path, state: Path, pace: float) -> list[str]:
    return [sys.executable, "-m", "referee", "run", "--config", str(cfg), "--events", str(log),
            "--pace", str(pace), "--state-dir", str(state), "--no-hardware", "--log-level", "WARNING"]


def _recorded_events(state: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{state / 'matches.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM records WHERE kind = 'event'").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def _export_calls(state: Path) -> list[dict[str, Any]]:
    with MatchStore.open(state) as store:
        (match,) = store.matches()
        return store.calls(match.id)


def test_sigkill_mid_deal_then_restart_gives_the_same_calls(tmp_path: Path) -> None:
    events = random_match_events("briscola-4", seed=11)
    log = write_jsonl(tmp_path / "match.jsonl", events)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}

    calm = tmp_path / "calm"
    subprocess.run(_run_cmd(CONFIG, log, calm, 0.0), check=True, env=env, timeout=120)
    expected = _export_calls(calm)
    assert expected[-1]["call"] == "match_end"

    crashed = tmp_path / "crashed"
    for kill_at in (25, 70):  # mid deal 1 and mid deal 2: SIGKILL, then restart
        proc = subprocess.Popen(_run_cmd(CONFIG, log, crashed, 0.01), env=env)
        deadline = time.time() + 60
        while _recorded_events(crashed) < kill_at and time.time() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
    subprocess.run(_run_cmd(CONFIG, log, crashed, 0.0), check=True, env=env, timeout=120)
    assert _export_calls(crashed) == expected
    with MatchStore.open(crashed) as store:
        assert store.integrity_ok()
        assert [json.dumps(e, sort_keys=True) for e in store.events(1)] == [json.dumps(e, sort_keys=True) for e in events]


def test_history_lists_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = random_deal_events("briscola-4", seed=3)
    log = write_jsonl(tmp_path / "e.jsonl", events)
    state = tmp_path / "state"
    assert main(["run", "--config", str(CONFIG), "--events", str(log), "--pace", "0", "--no-hardware", "--state-dir", str(state)]) == 0
    capsys.readouterr()
    assert main(["history", "--state-dir", str(state)]) == 0
    listing = capsys.readouterr().out.splitlines()
    calls: list[dict[str, Any]] = []
    replay_lines([json.dumps(e) for e in events], calls.append)
    assert listing[1].split()[:2] == ["1", "briscola-4"]
    assert listing[1].split()[-2:] == [str(len(events)), str(len(calls))]
    assert main(["history", "--state-dir", str(state), "--export", "1"]) == 0
    exported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert exported == events
    assert main(["history", "--state-dir", str(state), "--export", "7"]) == 2
    assert "no match 7" in capsys.readouterr().err
    assert main(["history", "--state-dir", str(tmp_path / "none")]) == 1


def test_mock_pins_drive_signals_and_buttons_and_screens_are_saved(tmp_path: Path) -> None:
    cfg_file = tmp_path / "config.toml"
    cfg_file.write_text(CONFIG.read_text().replace('factory = "auto"', 'factory = "mock"').replace('driver = "ssd1306"', 'driver = "none"'))
    events = random_deal_events("briscola-4", seed=6)
    log = write_jsonl(tmp_path / "e.jsonl", events)
    screens = tmp_path / "screens"
    args = ["run", "--config", str(cfg_file), "--events", str(log), "--pace", "0",
            "--state-dir", str(tmp_path / "state"), "--screens", str(screens), "--language", "en"]
    assert main(args) == 0
    pngs = sorted(screens.glob("*.png"))
    # at pace 0 queued trick screens replace each other: ready, score, first trick, result...
    assert len(pngs) >= 4
    from PIL import Image

    assert all(Image.open(p).size == (128, 64) for p in pngs)


def test_sigterm_stops_cleanly_and_the_record_is_whole(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "e.jsonl", random_match_events("briscola-4", seed=2))
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(_run_cmd(CONFIG, log, state, 0.02), env=env)
    deadline = time.time() + 60
    while _recorded_events(state) < 10 and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    with MatchStore.open(state) as store:
        assert store.integrity_ok()
        assert 10 <= len(store.events(1)) < 100
