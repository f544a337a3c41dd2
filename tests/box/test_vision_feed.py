"""The camera feed of `referee run`: heartbeats per frame, play events with the frame index,
operator events of a simulation at their time, silent warm-up on resume, degraded camera."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from box.helpers import FakeClock, RecordingSignals
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.display import NullDisplay
from referee.box.feed import FeedItem
from referee.box.screens import ConfirmScreen
from referee.box.state import MatchStore
from referee.box.vision_feed import (
    LiveRules,
    VisionFeed,
    check_layout_seats,
    check_layout_size,
    is_live,
    source_spec,
)
from referee.cli import main
from referee.errors import CameraError
from referee.table.proposal import ProposedPlay
from referee.vision.layout import TableLayout
from referee.vision.sources import EndOfSource
from referee.vision.tracker import TrackerConfig


@dataclass
class FakeFrame:
    image: Any
    t: float
    index: int


class FakeSource:
    """Frames 0..n-1 at 10 fps; ``None`` (camera degraded) at the indices in ``gaps``."""

    def __init__(self, n: int, gaps: tuple[int, ...] = ()) -> None:
        self.n, self.gaps, self.i = n, gaps, 0
        self.closed = False

    def read(self) -> FakeFrame | None:
        if self.i >= self.n:
            raise EndOfSource("end")
        i = self.i
        self.i += 1
        return None if i in self.gaps else FakeFrame(image=i, t=i / 10, index=i)

    def close(self) -> None:
        self.closed = True


class FakeTracker:
    """Plays ``plays[i]`` when it sees frame i; remembers what it saw and with which rules."""

    def __init__(self, plays: dict[int, dict[str, Any]]) -> None:
        self.plays = plays
        self.rules: Any = "live rules"
        self.seen: list[tuple[int, Any]] = []
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1

    def update(self, dets: int, t: float) -> list[ProposedPlay]:
        self.seen.append((dets, self.rules))
        return [ProposedPlay.from_event(self.plays[dets])] if dets in self.plays else []


DEAL = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"}
#: the camera's plays as the feed passes them on (their JSON Lines form)
PLAY3 = ProposedPlay("N", "spade_3", 0.97).to_event()
PLAY6 = ProposedPlay("S", "spade_1", 0.95).to_event()


class FakeVision:
    """The live loop's vision stage over a fake tracker: the 'image' is the frame number."""

    def __init__(self, tracker: FakeTracker) -> None:
        self.tracker = tracker

    def update(self, image: int, t: float) -> list[ProposedPlay]:
        return self.tracker.update(image, t)


def make_feed(gaps: tuple[int, ...] = ()) -> tuple[VisionFeed, FakeTracker]:
    tracker = FakeTracker({3: PLAY3, 6: PLAY6})
    return VisionFeed(FakeSource(8, gaps), FakeVision(tracker), [(0.1, DEAL)]), tracker


def drain(feed: VisionFeed) -> list[FeedItem]:
    items: list[FeedItem] = []
    while not feed.finished:
        items.extend(feed.poll(0.05))
    return items


def test_frames_are_heartbeats_and_events_carry_the_frame_index() -> None:
    feed, tracker = make_feed()
    items = drain(feed)
    assert [(i.event, i.pos) for i in items if i.event] == [(DEAL, 1), (PLAY3, 3), (PLAY6, 6)]
    assert sum(1 for i in items if i.event is None) >= 8
    assert tracker.resets == 1  # the deal starts a fresh tracker


def test_each_frame_ends_with_its_tick_carrying_the_frame_time() -> None:
    feed, _ = make_feed()
    feed.poll(0.05)
    feed.poll(0.05)  # frame 1: the deal, then the frame's tick
    assert feed.poll(0.05) == [FeedItem(None, 2, 0.2)]
    assert feed.poll(0.05) == [FeedItem(PLAY3, 3), FeedItem(None, 3, 0.3)]  # after its plays


def test_degraded_camera_gives_no_items_so_the_loop_sees_no_frames() -> None:
    feed, _ = make_feed(gaps=(2, 4))
    polls = [feed.poll(0.05) for _ in range(5)]
    assert polls[2] == [] and polls[4] == []


def test_resume_warms_the_tracker_up_silently() -> None:
    feed, tracker = make_feed()
    feed.skip_to(3)  # frames 0..3 already refereed
    assert [frame for frame, _ in tracker.seen] == [0, 1, 2, 3]
    assert all(rules is None for _, rules in tracker.seen)  # no plausibility from the future
    assert tracker.rules == "live rules"
    items = drain(feed)
    assert [i.event for i in items if i.event] == [PLAY6]


def test_source_spec_maps_config_to_open_source(cfg: BoxConfig) -> None:
    def spec(source: str) -> str:
        return source_spec(replace(cfg, camera=replace(cfg.camera, source=source)))

    assert spec("picamera2") == "picamera"
    assert spec("usb:1") == "1"
    assert spec("file:/v/game.mp4") == "/v/game.mp4"
    assert spec("sim") == "sim:briscola-4:0" and spec("sim:7") == "sim:briscola-4:7"
    live = {source: is_live(replace(cfg, camera=replace(cfg.camera, source=source)))
            for source in ("picamera2", "usb:1", "file:/v/game.mp4", "sim", "sim:7")}
    assert live == {"picamera2": True, "usb:1": True, "file:/v/game.mp4": False, "sim": False, "sim:7": False}


def test_live_rules_follow_the_box_referee(cfg: BoxConfig, clock: FakeClock) -> None:
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=clock)
    box.start()
    rules = LiveRules(lambda: box.referee)
    assert rules.plausible("coppe_3") and rules.trick_number() == 0
    box.handle({"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E", "trump_card": "bastoni_1"})
    box.handle({"event": "play", "seat": "N", "card": "coppe_3"})
    assert not rules.plausible("coppe_3")  # already on the table
    assert not rules.plausible("10H")  # not in the deck
    assert rules.trick_number() == 1
    assert rules.cards_on_table() == ["coppe_3"]
    from referee.vision.tracker import RulesView

    asked = [n for n in vars(RulesView) if not n.startswith("_")]
    assert asked and all(callable(getattr(rules, name)) for name in asked)  # whatever it asks
    assert rules.has_played("N") and rules.turn() == "W"


def test_tracker_uncertain_play_offers_its_alternatives(cfg: BoxConfig, clock: FakeClock) -> None:
    display = NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    box.start()
    box.handle({"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E", "trump_card": "bastoni_1"})
    box.handle({"event": "play", "seat": "N", "card": "coppe_3", "confidence": 0.9, "uncertain": True,
                "alternatives": ["coppe_2", "denari_3"]})
    assert display.last == ConfirmScreen("N", "coppe_3")
    box.gesture("right", "press")
    assert display.last == ConfirmScreen("N", "coppe_2")
    box.gesture("ok", "press")
    assert box.store.events(1)[-1] == {"event": "play", "seat": "N", "card": "coppe_2", "confirmed": True}


def test_a_deal_from_the_buttons_resets_the_tracker(cfg: BoxConfig, clock: FakeClock) -> None:
    from referee.box.notify import Notifier
    from referee.box.run import Runner

    feed, tracker = make_feed()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=clock)
    runner = Runner(cfg, box, feed, Notifier(None), clock=clock, sleep=clock.sleep)
    runner.gestures.put(("right", "hold"))  # next deal
    runner.run()
    assert box.store.events(1)[0]["event"] == "deal"
    assert tracker.resets == 2  # the button's deal and the simulated operator's deal


class TableRules:
    def cards_on_table(self) -> list[str]:
        return ["spade_3", "coppe_5"]


def test_a_live_camera_adopts_the_recorded_trick_on_resume() -> None:
    seen_again = {**PLAY3, "seat": "N"}
    fallback = {"event": "play", "seat": "W", "card": "coppe_4", "uncertain": True, "alternatives": ["coppe_5"]}
    tracker = FakeTracker({1: seen_again, 2: fallback, 3: PLAY6})
    tracker.rules = TableRules()
    feed = VisionFeed(FakeSource(5), FakeVision(tracker), live=True)
    feed.skip_to(3)  # a frame number of the previous process means nothing to a camera
    assert tracker.seen == []
    events = [i.event for _ in range(5) for i in feed.poll(0.05) if i.event]
    assert events == [PLAY6]  # both cards already recorded were adopted, the new one is a play


class ArbitratedTracker(FakeTracker):
    """Also answers the arbiter's questions: nothing missed, the trick still on the table."""

    config = TrackerConfig()

    def missed_since(self, t: float) -> None:
        return None

    def trick_on_table(self, cards: Any) -> bool:
        return True

    def spot_clear(self, seat: str, t: float) -> bool:
        return True

    def best_guess(self, track: Any) -> str | None:
        return None

    def settle(self, track_id: int | None, card: str, seat: str) -> None:
        pass


def test_attached_to_a_box_the_camera_plays_are_the_plays(cfg: BoxConfig, clock: FakeClock) -> None:
    truth_play = {"event": "play", "seat": "N", "card": "spade_3"}
    tracker = ArbitratedTracker({3: PLAY3, 6: PLAY6})
    feed = VisionFeed(FakeSource(8), FakeVision(tracker), [(0.1, DEAL), (0.25, truth_play)])
    box = Box(replace(cfg, game=replace(cfg.game, name="briscola-2", seats=("N", "S"), teams=(("N",), ("S",)))),
              MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=clock)
    box.start()
    feed.attach_to(box)
    assert box.arbiter is not None and box.arbiter.tracker is tracker
    for item in drain(feed):
        if item.event is not None:
            box.handle(item.event, item.pos)
    events = box.store.events(1)
    assert [(e["seat"], e["card"]) for e in events if e["event"] == "play"] == [("N", "spade_3"), ("S", "spade_1")]
    assert not any(c["call"] == "error" for c in box.store.calls(1))


def test_camera_fps_caps_the_frames_analysed(cfg: BoxConfig) -> None:
    """camera.fps = 5 on a 10 fps camera: every other frame is analysed, the others are only
    heartbeats (the watchdog still sees frames flow); the deal still rides on a frame."""
    tracker = FakeTracker({})
    feed = VisionFeed(FakeSource(8), FakeVision(tracker), [(0.1, DEAL)], max_fps=5)
    items = drain(feed)
    assert [dets for dets, _ in tracker.seen] == [0, 2, 4, 6]
    assert [i.pos for i in items if i.event is None and i.t is None] == [1, 3, 5, 7, None]  # None: the end
    assert [i.pos for i in items if i.event == DEAL] == [2]


def test_a_camera_clock_that_starts_again_is_analysed_at_once() -> None:
    class Restarted(FakeSource):
        def read(self) -> FakeFrame | None:
            frame = super().read()
            return None if frame is None else FakeFrame(frame.image, [5.0, 5.1, 0.0, 0.1, 0.2][frame.index], frame.index)

    tracker = FakeTracker({})
    feed = VisionFeed(Restarted(5), FakeVision(tracker), max_fps=5)
    drain(feed)
    assert [dets for dets, _ in tracker.seen] == [0, 2, 4]


def test_a_layout_calibrated_for_other_seats_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chiamata's seats A..E with the layout of a default N,W,S,E calibration: every camera
    play would come from a seat the game does not have. `referee run` stops before taking
    the camera, naming both lists and the fix."""
    layout = tmp_path / "layout.json"
    TableLayout.default(("N", "W", "S", "E")).save(layout)
    config = tmp_path / "config.toml"
    config.write_text(f'layout = "{layout}"\n[game]\nname = "briscola-chiamata"\nseats = ["A", "B", "C", "D", "E"]\n'
                      '[camera]\nsource = "usb:0"\n[pins]\nseat_leds = {A=17, B=27, C=22, D=23, E=24}\n')
    args = ["run", "--config", str(config), "--no-hardware", "--state-dir", str(tmp_path / "state")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "the layout's seats ['N', 'W', 'S', 'E'] are not game.seats ['A', 'B', 'C', 'D', 'E']" in err
    assert "referee calibrate --seats A,B,C,D,E" in err


def test_compass_seats_may_be_listed_in_another_play_order(cfg: BoxConfig) -> None:
    check_layout_seats(cfg, ("N", "E", "S", "W"))  # placed by name: the same zones
    check_layout_size(cfg, (1280, 720))  # the config's default camera size
    five = replace(cfg, game=replace(cfg.game, seats=("A", "B", "C", "D", "E")))
    check_layout_seats(five, ("A", "B", "C", "D", "E"))
    with pytest.raises(CameraError, match=r"not game\.seats"):
        check_layout_seats(five, ("A", "C", "B", "D", "E"))  # placed in play order: other zones


def test_a_layout_calibrated_on_another_frame_size_is_refused_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = tmp_path / "layout.json"
    TableLayout.default(("N", "W", "S", "E"), frame_size=(1920, 1080)).save(layout)
    config = tmp_path / "config.toml"
    config.write_text(f'layout = "{layout}"\n[camera]\nsource = "usb:0"\n')
    assert main(["run", "--config", str(config), "--no-hardware", "--state-dir", str(tmp_path / "state")]) == 1
    err = capsys.readouterr().err
    assert "calibrated on 1920x1080 frames but camera.width x camera.height" in err and "is 1280x720" in err


def test_the_clubs_enrollment_file_is_loaded_and_a_missing_one_named_before_the_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`enrollment = FILE` reaches the recogniser; a missing file stops `referee run` with
    its name before any camera (here a USB camera this machine does not have) is taken."""
    config = tmp_path / "config.toml"
    config.write_text('enrollment = "club.npz"\n[camera]\nsource = "usb:0"\n')
    args = ["run", "--config", str(config), "--no-hardware", "--state-dir", str(tmp_path / "state")]
    opened: list[str] = []
    monkeypatch.setattr("referee.vision.sources.open_source", lambda spec, **kw: opened.append(spec))
    assert main(args) == 1
    assert f"enrollment file not found: {tmp_path / 'club.npz'}" in capsys.readouterr().err
    assert opened == []


def test_the_box_reads_each_crop_once_whatever_views_the_model_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live loop's recogniser reads a crop once (views.LIVE_VIEWS): the French model's six
    test-time views would cost ~10 ms of a frame's 25 ms budget."""
    from referee.recognition import CardClassifier

    config = tmp_path / "config.toml"
    config.write_text('[game]\nname = "belotta"\n[camera]\nsource = "usb:0"\n')
    loaded: list[object] = []

    def load(*args: object, **kwargs: object) -> object:
        loaded.append(kwargs.get("views"))
        raise CameraError("stop here")

    monkeypatch.setattr(CardClassifier, "load", load)
    main(["run", "--config", str(config), "--no-hardware", "--state-dir", str(tmp_path / "state")])
    assert loaded == [()]
