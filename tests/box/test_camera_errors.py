"""Whatever a camera source raises (a driver's RuntimeError, a frame no card fits in) is a camera
fault: the fault screen and retries, then the match goes on; a bad simulator seed is named.
Start-up faults of the recogniser (a damaged model, a cut enrollment file) leave a fault screen
and exit status 1 instead of a traceback or a blind box."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageChops

from box.helpers import FakeClock, RecordingSignals
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.display import NullDisplay
from referee.box.notify import Notifier
from referee.box.run import Runner
from referee.box.screens import FaultScreen, render
from referee.box.state import MatchStore
from referee.box.vision_feed import VisionFeed
from referee.cli import main
from referee.errors import CameraError
from referee.paths import models_dir
from referee.table.proposal import ProposedPlay
from referee.vision.finder import FrameError
from referee.vision.sources import EndOfSource, Frame, FrameSource, TimeoutSource, open_source

DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
        "trump_card": "coppe_1"}


class BrokenDriver(FrameSource):
    """Frames, except that reads listed in ``fail`` raise what a driver might."""

    def __init__(self, n: int, fail: dict[int, BaseException]) -> None:
        super().__init__()
        self.name = "usb:0"
        self.n, self.fail, self.i = n, fail, 0

    def read(self) -> Frame | None:
        i = self.i
        self.i += 1
        if i in self.fail:
            raise self.fail[i]
        if i >= self.n:
            raise EndOfSource("end")
        return Frame(np.zeros((4, 4, 3), np.uint8), i / 10, i)


def test_a_driver_runtime_error_on_a_live_camera_is_degraded_not_a_crash() -> None:
    gate = threading.Event()

    class Flaky(FrameSource):
        name = "usb:0"

        def read(self) -> Frame | None:
            if not gate.is_set():
                raise RuntimeError("VIDIOC_DQBUF: No such device")
            time.sleep(0.005)
            return Frame(np.zeros((4, 4, 3), np.uint8), 0.0, 0)

    cam = TimeoutSource(Flaky(), timeout_s=0.1)
    try:
        assert cam.read() is None and cam.status == "degraded"
        assert "RuntimeError: VIDIOC_DQBUF: No such device" in (cam.last_error or "")
        gate.set()
        deadline = time.monotonic() + 5
        while cam.read() is None and time.monotonic() < deadline:
            pass
        assert cam.status == "ok"  # the pump kept trying: frames are back
    finally:
        cam.close()


class Plays:
    """The vision stage: no plays; a frame of the wrong shape raises the finder's FrameError."""

    def __init__(self) -> None:
        self.tracker = type("T", (), {"reset": lambda self: None, "rules": None})()

    def update(self, image: Any, t: float) -> list[dict[str, Any]]:
        if image.shape[0] < 4:
            raise FrameError(f"frame too small to hold a card: {image.shape[1]}x{image.shape[0]}")
        return []


def _run(cfg: BoxConfig, source: FrameSource) -> tuple[int, list[Any], Box]:
    clock = FakeClock()
    shown: list[Any] = []
    display = NullDisplay()
    display.show = shown.append  # type: ignore[method-assign,assignment]
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    feed = VisionFeed(source, Plays(), [(0.0, DEAL)])
    runner = Runner(cfg, box, feed, Notifier(None), clock=clock, sleep=clock.sleep)
    return runner.run(), shown, box


def test_any_exception_from_a_camera_source_takes_the_camera_fault_path(cfg: BoxConfig) -> None:
    source = BrokenDriver(6, {2: RuntimeError("libcamera: capture failed"), 3: OSError(5, "I/O error")})
    status, shown, box = _run(cfg, source)
    assert status == 0  # the input ended normally, after two faults
    faults = [s for s in shown if isinstance(s, FaultScreen)]
    assert [f.retries for f in faults] == [1, 2]
    assert box.store.events(1)[0]["event"] == "deal"


def test_a_frame_no_card_fits_in_is_a_camera_fault_and_keeps_the_operators_events(cfg: BoxConfig) -> None:
    class Tiny(BrokenDriver):
        def read(self) -> Frame | None:
            frame = super().read()
            if frame is not None and frame.index == 0:
                return Frame(np.zeros((1, 1, 3), np.uint8), 0.0, 0)
            return frame

    status, shown, box = _run(cfg, Tiny(4, {}))
    assert status == 0
    assert [f.retries for f in shown if isinstance(f, FaultScreen)] == [1]
    assert box.store.events(1)[0]["event"] == "deal"  # the deal came with the next good frame


@pytest.mark.parametrize("spec", ["sim:briscola-4:-1", "sim:briscola-4:x"])
def test_a_bad_simulator_seed_is_a_camera_error_naming_it(spec: str) -> None:
    with pytest.raises(CameraError, match=rf"bad simulator seed in '{spec}'"):
        open_source(spec)


# ---- start-up faults of the recogniser in `referee run` ------------------------------------------
needs_model = pytest.mark.skipif(not (models_dir() / "italian.onnx").exists(), reason="no committed italian model")


def _start(tmp_path: Path, config_text: str, capsys: pytest.CaptureFixture[str]) -> str:
    config = tmp_path / "config.toml"
    config.write_text(config_text + '[camera]\nsource = "sim"\n')
    screens = tmp_path / "screens"
    assert main(["run", "--config", str(config), "--no-hardware", "--state-dir", str(tmp_path / "state"),
                 "--screens", str(screens), "--language", "en"]) == 1
    last = sorted(screens.glob("*.png"))[-1]
    expected = render(FaultScreen("fault_start"), "en").convert("L")
    assert ImageChops.difference(Image.open(last).convert("L"), expected).getbbox() is None
    return capsys.readouterr().err


@needs_model
@pytest.mark.parametrize("cut", [0.0, 0.5])
def test_a_cut_enrollment_file_is_a_fault_screen_and_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: float
) -> None:
    from referee.recognition.enrollment import Enrollment

    rng = np.random.default_rng(0)
    club = tmp_path / "club.npz"
    Enrollment.from_embeddings("italian", ["coppe_1", "coppe_2"], rng.normal(size=(2, 128)).astype(np.float32),
                               "0" * 64).save(club)
    club.write_bytes(club.read_bytes()[:int(club.stat().st_size * cut)])
    err = _start(tmp_path, 'enrollment = "club.npz"\n', capsys)
    assert f"corrupt enrollment file {club}" in err and "Traceback" not in err


@needs_model
def test_a_damaged_model_is_a_fault_screen_and_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    shutil.copytree(models_dir(), models)
    graph = bytearray((models / "italian.onnx").read_bytes())
    graph[len(graph) // 2:len(graph) // 2 + 64] = bytes(64)
    (models / "italian.onnx").write_bytes(bytes(graph))
    monkeypatch.setenv("REFEREE_MODELS", str(models))
    err = _start(tmp_path, "", capsys)
    assert f"{models / 'italian.onnx'}: sha256 is" in err


def test_a_camera_error_while_resuming_skips_the_rest_as_it_comes(caplog: pytest.LogCaptureFixture) -> None:
    class Tracked(Plays):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[int] = []

        def update(self, image: Any, t: float) -> list[ProposedPlay]:  # type: ignore[override]
            self.seen.append(round(t * 10))
            return [ProposedPlay("N", "coppe_3", 0.9, t)]

    vision = Tracked()
    feed = VisionFeed(BrokenDriver(8, {2: RuntimeError("libcamera: capture failed")}), vision)
    feed.skip_to(4)  # resuming after frame 4: the fault at the third read does not end it
    assert "camera fault while resuming" in caplog.text and "RuntimeError: libcamera" in caplog.text
    played = []
    while not feed.finished:
        played += [item.pos for item in feed.poll(0.0) if item.event is not None]
    assert played == [5, 6, 7]  # frames 3 and 4 came after the fault: read, and nothing emitted
    assert vision.seen == [0, 1, 3, 4, 5, 6, 7]
