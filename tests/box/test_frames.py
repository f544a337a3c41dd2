"""The frames that decided each play, kept for a dispute: kept under the match and the
recorded event's line, bounded on disk (the oldest go first), and never a reason for the box
to stop refereeing when they cannot be written."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from box.helpers import BRISCOLA4_DEAL, FakeClock, RecordingSignals
from box.test_vision_feed import (
    DEAL,
    PLAY3,
    PLAY6,
    ArbitratedTracker,
    FakeSource,
    FakeVision,
    drain,
)
from referee.box.app import Box
from referee.box.config import BoxConfig, parse_config
from referee.box.display import NullDisplay
from referee.box.frames import FRAMES_DIR, FrameKeeper, KeptFrame, jpeg, play_frames, scan
from referee.box.state import MatchStore
from referee.box.vision_feed import VisionFeed
from referee.cli import main


def fake_jpeg(image: object) -> bytes:
    return f"JPEG of frame {image}".encode().ljust(100, b".")  # 100 bytes each


def briscola4_box(cfg: BoxConfig, keeper: FrameKeeper) -> Box:
    box = Box(replace(cfg, game=replace(cfg.game, name="briscola-4")), MatchStore.open(cfg.state_dir),
              RecordingSignals(), NullDisplay(), clock=FakeClock())
    box.frames = keeper
    box.start()
    return box


def test_a_played_cards_frame_is_kept_under_its_line_in_the_export(cfg: BoxConfig, tmp_path: Path) -> None:
    keeper = FrameKeeper(tmp_path / "frames", encode=fake_jpeg)
    box = briscola4_box(cfg, keeper)
    box.handle(BRISCOLA4_DEAL, source_pos=1)
    keeper.offer(12, "twelve")
    box.handle({"event": "play", "seat": "N", "card": "spade_3"}, source_pos=12)
    box.handle({"event": "play", "seat": "W", "card": "spade_7"})  # entered by hand: no frame
    [kept] = keeper.frames(1)
    assert (kept.match, kept.event) == (1, 2) and kept.path == tmp_path / "frames" / "000001" / "00002.jpg"
    assert keeper.read(1, 2) == fake_jpeg("twelve") and keeper.read(1, 3) is None
    # a box started again finds what was kept
    assert scan(tmp_path / "frames") == [KeptFrame(1, 2, kept.path, 100)]
    [spot] = play_frames(box.store.events(1), keeper.frames(1))
    assert (spot.event, spot.deal, spot.trick, spot.seat, spot.card) == (2, 1, 1, "N", "spade_3")


def test_frames_are_bounded_on_disk_and_the_oldest_go_first(tmp_path: Path) -> None:
    keeper = FrameKeeper(tmp_path / "frames", max_bytes=250, encode=fake_jpeg)
    for match, event in [(1, 5), (1, 6), (2, 1), (2, 2)]:
        keeper.offer(event * 10 + match, f"{match}/{event}")
        assert keeper.keep(match, event, event * 10 + match) is not None
    assert [(f.match, f.event) for f in scan(tmp_path / "frames")] == [(2, 1), (2, 2)]
    assert keeper.total_bytes() == 200 and not (tmp_path / "frames" / "000001").exists()


def test_only_the_last_frames_offered_wait_in_memory(tmp_path: Path) -> None:
    keeper = FrameKeeper(tmp_path / "frames", encode=fake_jpeg, held=2)
    for pos in (1, 2, 3):
        keeper.offer(pos, pos)
    assert keeper.keep(1, 1, 1) is None  # pushed out by newer frames
    assert keeper.keep(1, 2, 3) is not None


def test_a_frame_that_cannot_be_written_does_not_stop_the_refereeing(cfg: BoxConfig, tmp_path: Path) -> None:
    blocked = tmp_path / "frames"
    blocked.write_text("a file where the folder should be")
    keeper = FrameKeeper(blocked, encode=fake_jpeg)
    box = briscola4_box(cfg, keeper)
    box.handle(BRISCOLA4_DEAL)
    keeper.offer(7, "seven")
    calls = box.handle({"event": "play", "seat": "N", "card": "spade_3"}, source_pos=7)
    assert [c["call"] for c in calls] == ["turn"]
    assert [e["event"] for e in box.store.events(1)] == ["deal", "play"]
    assert keeper.faults == 1 and "not written" in str(keeper.last_fault) and keeper.frames(1) == []


def test_a_frame_that_cannot_be_encoded_is_counted_and_skipped(tmp_path: Path) -> None:
    def broken(image: object) -> bytes:
        raise RuntimeError("encoder gone")

    keeper = FrameKeeper(tmp_path / "frames", encode=broken)
    keeper.offer(3, "three")
    assert keeper.faults == 1 and keeper.keep(1, 1, 3) is None


def test_the_feed_offers_the_frames_its_plays_came_from(cfg: BoxConfig, tmp_path: Path) -> None:
    keeper = FrameKeeper(tmp_path / "frames", encode=fake_jpeg)
    tracker = ArbitratedTracker({3: PLAY3, 6: PLAY6})
    feed = VisionFeed(FakeSource(8), FakeVision(tracker), [(0.1, DEAL)])
    feed.keeper = keeper
    box = Box(replace(cfg, game=replace(cfg.game, name="briscola-2", seats=("N", "S"), teams=(("N",), ("S",)))),
              MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=FakeClock())
    box.frames = keeper
    box.start()
    feed.attach_to(box)
    for item in drain(feed):
        if item.event is not None:
            box.handle(item.event, item.pos)
    frames = play_frames(box.store.events(1), keeper.frames(1))
    assert [(f.event, f.trick, f.seat, f.card) for f in frames] == [(2, 1, "N", "spade_3"), (3, 1, "S", "spade_1")]
    assert keeper.read(1, 2) == fake_jpeg(3) and keeper.read(1, 3) == fake_jpeg(6)  # frames 3 and 6


def test_frames_are_real_jpegs() -> None:
    cv2 = pytest.importorskip("cv2")
    image = np.zeros((48, 64, 3), np.uint8)
    image[:, 32:] = (0, 0, 255)
    data = jpeg(image)
    assert data[:2] == b"\xff\xd8"
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == image.shape and abs(int(decoded[10, 50, 2]) - 255) < 8


def test_referee_history_exports_a_matchs_frames(cfg: BoxConfig, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    keeper = FrameKeeper(cfg.state_dir / FRAMES_DIR, encode=fake_jpeg)
    box = briscola4_box(cfg, keeper)
    box.handle(BRISCOLA4_DEAL)
    for pos, (seat, card) in enumerate([("N", "spade_3"), ("W", "spade_7")], start=4):
        keeper.offer(pos, pos)
        box.handle({"event": "play", "seat": seat, "card": card}, source_pos=pos)
    box.store.close()
    out = tmp_path / "dispute"
    assert main(["history", "--state-dir", str(cfg.state_dir), "--export", "1", "--frames", str(out)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["event"], r["trick"], r["seat"], r["card"]) for r in rows] == [(2, 1, "N", "spade_3"), (3, 1, "W", "spade_7")]
    assert (out / "match-1-deal-1-trick-1-event-00003.jpg").read_bytes() == fake_jpeg(5)
    # a folder that cannot be written names itself; exit status 2
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    assert main(["history", "--state-dir", str(cfg.state_dir), "--export", "1", "--frames", str(blocked)]) == 2
    assert str(blocked) in capsys.readouterr().err


def test_the_frames_budget_is_a_camera_key(cfg: BoxConfig) -> None:
    assert parse_config("").camera.keep_frames_mb == 200
    assert parse_config("[camera]\nkeep_frames_mb = 0").camera.keep_frames_mb == 0  # keep none
