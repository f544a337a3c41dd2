"""Camera sources: same Frame from every kind; clear errors; degraded state and recovery."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from referee.errors import CameraError
from referee.vision.sources import (
    EndOfSource,
    Frame,
    FrameSource,
    ImageFolderSource,
    PiCameraSource,
    TimeoutSource,
    VideoCaptureSource,
    open_source,
)


def _image(value: int) -> np.ndarray:
    return np.full((72, 128, 3), value, np.uint8)


def test_image_folder_yields_frames_in_name_order_with_times(tmp_path: Path) -> None:
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), _image(value))
    (tmp_path / "notes.txt").write_text("not an image")
    frames = list(open_source(str(tmp_path), fps=5.0))
    assert [f.source.rsplit("/", 1)[-1] for f in frames] == ["a.png", "b.png", "c.jpg"]
    assert [f.t for f in frames] == [0.0, 0.2, 0.4]
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[0].image.shape == (72, 128, 3) and frames[0].image.dtype == np.uint8


def test_glob_and_single_image(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), _image(i))
    assert len(list(open_source(str(tmp_path / "f*.png")))) == 3
    assert len(list(open_source(str(tmp_path / "f1.png")))) == 1


def test_unreadable_image_is_a_degraded_gap_not_a_crash(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), _image(1))
    (tmp_path / "b.png").write_bytes(b"garbage")
    cv2.imwrite(str(tmp_path / "c.png"), _image(3))
    source = ImageFolderSource(tmp_path)
    assert isinstance(source.read(), Frame) and source.status == "ok"
    assert source.read() is None
    assert source.status == "degraded" and "b.png" in (source.last_error or "")
    assert isinstance(source.read(), Frame) and source.status == "ok"
    with pytest.raises(EndOfSource):
        source.read()


def test_missing_inputs_are_clear_camera_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no images"):
        open_source(str(tmp_path / "empty*.png"))
    with pytest.raises(CameraError, match="video file not found"):
        open_source(str(tmp_path / "nope.mp4"))
    with pytest.raises(CameraError, match="video file not found"):
        open_source(f"file:{tmp_path / 'nope.avi'}")
    with pytest.raises(CameraError, match="no source"):
        open_source("")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(CameraError, match="cannot open video"):
        open_source(str(bad))


def test_video_file_frames_are_timed_by_its_frame_rate(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 20.0, (128, 72))  # type: ignore[attr-defined]
    for i in range(5):
        writer.write(_image(40 * i))
    writer.release()
    frames = list(open_source(str(path)))
    assert len(frames) == 5
    assert [f.t for f in frames] == pytest.approx([0.0, 0.05, 0.1, 0.15, 0.2])
    assert frames[3].image.mean() == pytest.approx(120, abs=8)


class FakeCapture:
    """A webcam that can be unplugged and plugged back in (shared state across re-opens)."""

    plugged = True
    reads = 0

    def __init__(self, target: int | str) -> None:
        self.open = FakeCapture.plugged

    def isOpened(self) -> bool:
        return self.open

    def read(self) -> tuple[bool, Any]:
        FakeCapture.reads += 1
        if not (self.open and FakeCapture.plugged):
            return False, None
        return True, _image(FakeCapture.reads % 250)

    def get(self, prop: int) -> float:
        return 30.0

    def release(self) -> None:
        self.open = False


def test_webcam_that_stops_degrades_retries_and_recovers() -> None:
    FakeCapture.plugged, FakeCapture.reads = True, 0
    waits: list[float] = []
    clock = iter(float(i) for i in range(1000))
    cam = VideoCaptureSource(0, capture_factory=FakeCapture, reopen_after=2, backoff_s=0.5,
                             max_backoff_s=2.0, clock=lambda: next(clock), sleep=waits.append)
    first = cam.read()
    assert first is not None and cam.status == "ok"
    FakeCapture.plugged = False
    results = [cam.read() for _ in range(6)]
    assert results == [None] * 6
    assert cam.status == "degraded" and "camera 0" in (cam.last_error or "")
    assert waits == [0.5, 1.0, 2.0, 2.0]  # re-opens back off, capped
    FakeCapture.plugged = True
    back = cam.read()
    assert back is not None and cam.status == "ok" and cam.failures == 0
    assert back.index == 1 and back.t > first.t


def test_webcam_missing_at_start_is_degraded_not_fatal() -> None:
    FakeCapture.plugged = False
    cam = VideoCaptureSource(3, capture_factory=FakeCapture, sleep=lambda s: None)
    assert cam.status == "degraded"
    assert cam.read() is None
    FakeCapture.plugged = True
    assert cam.read() is not None


class FakeRequest:
    def __init__(self, fail: bool) -> None:
        self.fail = fail

    def make_array(self, stream: str) -> np.ndarray:
        if self.fail:
            raise RuntimeError("dequeue timeout")
        if stream == "main":
            return np.zeros((72, 128, 4), np.uint8)
        return np.full((36 * 3 // 2, 64), 128, np.uint8)  # YUV420 planar

    def get_metadata(self) -> dict[str, int]:
        return {"SensorTimestamp": 5_000_000_000}

    def release(self) -> None:
        pass


class FakePicamera2:
    fail_next = False
    configured: ClassVar[dict[str, Any]] = {}

    def create_video_configuration(self, **streams: Any) -> dict[str, Any]:
        return streams

    def configure(self, config: dict[str, Any]) -> None:
        FakePicamera2.configured = config

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass

    def capture_request(self) -> FakeRequest:
        fail, FakePicamera2.fail_next = FakePicamera2.fail_next, False
        return FakeRequest(fail)


def test_pi_camera_gives_main_and_lores_streams_and_restarts_after_a_failure() -> None:
    cam = PiCameraSource(size=(128, 72), lores=(64, 36), camera_factory=FakePicamera2)
    assert FakePicamera2.configured["main"]["size"] == (128, 72)
    frame = cam.read()
    assert frame is not None and frame.image.shape == (72, 128, 3)
    assert frame.lores is not None and frame.lores.shape == (36, 64, 3)
    assert frame.t == 0.0
    FakePicamera2.fail_next = True
    assert cam.read() is None and cam.status == "degraded"
    assert cam.read() is not None and cam.status == "ok"


def test_pi_camera_without_picamera2_says_how_to_install() -> None:
    pytest.importorskip("cv2")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="python3-picamera2"):
            open_source("picamera")
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 is installed here")


def test_simulator_source_yields_timed_frames() -> None:
    source = open_source("sim:briscola-2:4", fps=5.0)
    frames = []
    for frame in source:
        frames.append(frame)
        if len(frames) == 3:
            break
    assert [f.t for f in frames] == [0.0, 0.2, 0.4]
    assert frames[0].image.shape == (720, 1280, 3)


class StallingSource(FrameSource):
    """A live source whose driver hangs while ``stalled`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "stalling"
        self.stalled = threading.Event()
        self.count = 0

    def read(self) -> Frame | None:
        while self.stalled.is_set():
            time.sleep(0.005)
        time.sleep(0.002)
        self.count += 1
        return Frame(_image(self.count % 250), self.count / 100, self.count)


def test_a_hung_camera_times_out_as_degraded_and_recovers() -> None:
    inner = StallingSource()
    cam = TimeoutSource(inner, timeout_s=0.1)
    try:
        assert cam.read() is not None and cam.status == "ok"
        inner.stalled.set()
        time.sleep(0.05)
        while cam.read() is not None:  # drain what came before the stall
            pass
        assert cam.status == "degraded" and "0.1 s" in (cam.last_error or "")
        inner.stalled.clear()
        frame = cam.read()
        assert frame is not None and cam.status == "ok"
    finally:
        cam.close()
    assert cam.status == "closed"
    with pytest.raises(EndOfSource):
        cam.read()


def test_timeout_source_passes_the_end_of_a_finite_source_through(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), _image(1))
    cam = TimeoutSource(ImageFolderSource(tmp_path), timeout_s=1.0)
    assert cam.read() is not None
    with pytest.raises(EndOfSource):
        cam.read()


def test_webcam_sources_are_read_with_a_timeout() -> None:
    FakeCapture.plugged = True
    cam = open_source("usb:0", timeout_s=0.5, capture_factory=FakeCapture)
    try:
        assert isinstance(cam, TimeoutSource) and cam.read() is not None
    finally:
        cam.close()
