"""Camera sources: every source yields :class:`Frame` (BGR image + timestamp) the same way.

    with open_source("0") as cam:             # USB webcam 0; "picamera" on the Pi;
        frame = cam.read()                     # "game.mp4"; "frames/*.png"; "sim:briscola-4:7"
        if frame is None:                      # nothing came in time: cam.status says why
            ...

``read()`` returns ``None`` while a live camera delivers nothing within ``timeout_s``
(``status`` is then ``"degraded"``, ``last_error`` says why) and keeps re-opening it with a
back-off, so the loop shows a fault and recovers when frames come back; live cameras are read
on a worker thread (:class:`TimeoutSource`), so a hung driver cannot hang the loop.  Files and folders end with
:class:`EndOfSource`; a missing file or folder is a :class:`~referee.errors.CameraError` at
open.  Iterating a source yields frames until its end (skipping gaps).

picamera2 needs libcamera and is imported only when a Pi camera is opened.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import CameraError, RefereeError

log = logging.getLogger(__name__)

#: BGR uint8 frames (typed loosely: OpenCV's stubs return plain Mats)
Image = npt.NDArray[Any]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class EndOfSource(RefereeError, EOFError):
    """A finite source (video file, image folder, simulation) has no more frames."""


@dataclass(frozen=True)
class Frame:
    """One camera frame: BGR uint8 ``image``, time ``t`` in seconds, running ``index``.

    ``lores`` is the Pi camera's small analysis stream when there is one (else ``None``);
    ``source`` names where the frame came from (a file path for folders).
    """

    image: Image
    t: float
    index: int
    lores: Image | None = None
    source: str = ""


class FrameSource(ABC):
    """Base of every source: ``read()``, ``status``, iteration and ``with``."""

    name: str = "source"

    def __init__(self) -> None:
        self.status = "ok"  # "ok" | "degraded" (no frames just now) | "closed"
        self.last_error: str | None = None
        self.failures = 0  # consecutive reads that gave nothing

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame; ``None`` when a live source gave none in time; EndOfSource at the end."""

    def close(self) -> None:
        self.status = "closed"

    def __iter__(self) -> Iterator[Frame]:
        while True:
            try:
                frame = self.read()
            except EndOfSource:
                return
            if frame is not None:
                yield frame

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _ok(self) -> None:
        if self.status == "degraded":
            log.warning("%s: frames are back after %d failed reads", self.name, self.failures)
        self.status, self.last_error, self.failures = "ok", None, 0

    def _degraded(self, why: str) -> None:
        if self.status != "degraded":
            log.warning("%s: no frame (%s); retrying", self.name, why)
        self.status, self.last_error = "degraded", why
        self.failures += 1


# ---- image folder / glob ---------------------------------------------------------------------
class ImageFolderSource(FrameSource):
    """Images from a folder (sorted by name) or a glob, timed at ``fps``.

    An unreadable image is skipped with ``status == "degraded"`` for that read (``None``), never
    a crash; the next good image makes the source ``ok`` again.
    """

    def __init__(self, pattern: str | Path, fps: float = 10.0) -> None:
        super().__init__()
        self.name = str(pattern)
        path = Path(pattern)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        elif path.is_file():
            files = [path]
        else:
            files = sorted(Path(p) for p in glob.glob(str(pattern)))
        if not files:
            raise CameraError(f"no images at {pattern!s} (a folder, an image file or a glob like 'shots/*.png')")
        self.files = files
        self.fps = fps
        self._next = 0

    def read(self) -> Frame | None:
        if self._next >= len(self.files):
            raise EndOfSource(f"{self.name}: all {len(self.files)} images read")
        index, path = self._next, self.files[self._next]
        self._next += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            self._degraded(f"cannot read image {path}")
            return None
        self._ok()
        return Frame(image, index / self.fps, index, source=str(path))


# ---- OpenCV VideoCapture ---------------------------------------------------------------------
class CaptureLike(Protocol):
    """The part of ``cv2.VideoCapture`` used here (fakes in tests)."""

    def isOpened(self) -> bool: ...
    def read(self) -> tuple[bool, Any]: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


def _opencv_capture(target: int | str) -> CaptureLike:
    cap: CaptureLike = cv2.VideoCapture(target)
    return cap


class VideoCaptureSource(FrameSource):
    """A USB webcam (``index``) or a video file through OpenCV.

    Webcams are live: a failed read marks the source degraded and re-opens the device after
    ``reopen_after`` failures, waiting ``backoff_s`` (doubling up to ``max_backoff_s``) between
    attempts; frames are timed by the clock.  Files are finite (EndOfSource at the end) and
    timed by their own frame rate, so a replayed video gives the same times on every run.
    """

    def __init__(
        self,
        target: int | str,
        *,
        size: tuple[int, int] | None = None,
        reopen_after: int = 3,
        backoff_s: float = 0.5,
        max_backoff_s: float = 5.0,
        capture_factory: Callable[[int | str], CaptureLike] = _opencv_capture,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        self.live = isinstance(target, int)
        if not self.live and not Path(str(target)).is_file():
            raise CameraError(f"video file not found: {target}")
        self.target = target
        self.name = f"camera {target}" if self.live else str(target)
        self.size = size
        self.reopen_after = reopen_after
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._factory = capture_factory
        self._clock = clock
        self._sleep = sleep
        self._cap: CaptureLike | None = None
        self._index = 0
        self._start = clock()
        self._wait = backoff_s
        self._open()
        if not self.live and self._cap is None:
            raise CameraError(f"cannot open video file {target} (unsupported or corrupt?)")

    def _open(self) -> None:
        cap = self._factory(self.target)
        if not cap.isOpened():
            cap.release()
            self._cap = None
            self._degraded(f"cannot open {self.name}")
            return
        if self.size is not None and self.live:
            cap_set = getattr(cap, "set", None)
            if cap_set is not None:
                cap_set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
                cap_set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 30.0

    def read(self) -> Frame | None:
        if self.status == "closed":
            raise EndOfSource(f"{self.name} is closed")
        if self._cap is None:
            self._retry()
            if self._cap is None:
                return None
        assert self._cap is not None
        ok, image = self._cap.read()
        if not ok or image is None:
            if not self.live:
                raise EndOfSource(f"{self.name}: end of video after {self._index} frames")
            self._degraded(f"{self.name} gave no frame")
            if self.failures >= self.reopen_after:
                self._cap.release()
                self._cap = None
            return None
        index = self._index
        self._index += 1
        self._wait = self.backoff_s
        self._ok()
        t = self._clock() - self._start if self.live else index / self.fps
        return Frame(np.ascontiguousarray(image), t, index, source=self.name)

    def _retry(self) -> None:
        """Wait (backing off) and try to open the device again."""
        self._sleep(self._wait)
        self._wait = min(self._wait * 2, self.max_backoff_s)
        self._open()
        if self._cap is None:
            self._degraded(f"cannot open {self.name}")

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        super().close()


# ---- Raspberry Pi camera -----------------------------------------------------------------------
class PiCameraSource(FrameSource):
    """The Pi camera through picamera2: a full ``main`` stream and a small ``lores`` one.

    ``Frame.image`` is the ``main`` stream (BGR), ``Frame.lores`` the analysis stream (BGR);
    times come from the sensor timestamps.  A capture error marks the source degraded and
    restarts the camera on the next read.
    """

    def __init__(
        self,
        size: tuple[int, int] = (1280, 720),
        lores: tuple[int, int] | None = (640, 360),
        camera_factory: Callable[[], Any] | None = None,
    ) -> None:
        super().__init__()
        self.name = "picamera2"
        self.size = size
        self.lores_size = lores
        self._factory = camera_factory or _picamera2
        self._cam: Any = None
        self._index = 0
        self._t0: float | None = None
        self._start()

    def _start(self) -> None:
        try:
            cam = self._factory()
            streams: dict[str, Any] = {"main": {"size": self.size, "format": "RGB888"}}
            if self.lores_size is not None:
                streams["lores"] = {"size": self.lores_size, "format": "YUV420"}
            config = cam.create_video_configuration(**streams)
            cam.configure(config)
            cam.start()
            self._cam = cam
        except CameraError:
            raise
        except Exception as exc:  # libcamera raises plain RuntimeErrors
            self._cam = None
            self._degraded(f"cannot start the Pi camera: {exc}")

    def read(self) -> Frame | None:
        if self.status == "closed":
            raise EndOfSource("picamera2 is closed")
        if self._cam is None:
            self._start()
            if self._cam is None:
                return None
        try:
            request = self._cam.capture_request()
            try:
                # "RGB888" is stored B, G, R in memory: already OpenCV's order.
                main = np.ascontiguousarray(request.make_array("main")[..., :3])
                lores = None
                if self.lores_size is not None:
                    yuv = request.make_array("lores")
                    lores = cv2.cvtColor(yuv, cv2.COLOR_YUV420p2BGR)
                stamp_ns = request.get_metadata().get("SensorTimestamp")
            finally:
                request.release()
        except Exception as exc:
            self._degraded(f"Pi camera capture failed: {exc}")
            self._stop()
            return None
        t = time.monotonic() if stamp_ns is None else float(stamp_ns) / 1e9
        if self._t0 is None:
            self._t0 = t
        index = self._index
        self._index += 1
        self._ok()
        return Frame(main, t - self._t0, index, lores=lores, source=self.name)

    def _stop(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
                cam.close()
            except Exception as exc:  # pragma: no cover - depends on libcamera state
                log.warning("picamera2: stopping after a failure: %s", exc)

    def close(self) -> None:
        self._stop()
        super().close()


def _picamera2() -> Any:
    try:
        from picamera2 import Picamera2
    except ImportError as exc:
        raise CameraError(
            "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` "
            "and make the venv with --system-site-packages (or use a USB webcam: camera.source = \"usb:0\" "
            "in the config of `referee run`, --source 0 for `referee watch`)"
        ) from exc
    return Picamera2()


# ---- simulator ------------------------------------------------------------------------------
class SimulatorSource(FrameSource):
    """Frames of a simulated game (``referee.vision.simulator.video``); ``.game`` has the truth."""

    def __init__(self, game: str = "briscola-4", seed: int = 0, deck: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        from referee.vision.simulator.video import simulate_game

        self.game = simulate_game(game, deck=deck, seed=seed, **kwargs)
        self.name = f"sim:{game}:{seed}"
        self._frames = self.game.frames()

    def read(self) -> Frame | None:
        try:
            sim = next(self._frames)
        except StopIteration:
            raise EndOfSource(f"{self.name}: end of the simulated game") from None
        return Frame(sim.image, sim.t, sim.index, source=self.name)


# ---- read timeout for live cameras -------------------------------------------------------------
class TimeoutSource(FrameSource):
    """A live source read on a worker thread, so a camera that hangs cannot hang the loop.

    ``read()`` waits at most ``timeout_s`` for the next frame; when none comes the source is
    ``degraded`` and ``read()`` returns ``None`` (the loop shows a fault and keeps going).  Only
    the newest frame is kept: a slow consumer sees the table as it is now, not a backlog.
    """

    def __init__(self, inner: FrameSource, timeout_s: float = 2.0) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.timeout_s = timeout_s
        self._box: queue.Queue[Frame | BaseException | None] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._pump, name=f"camera {self.name}", daemon=True)
        self._worker.start()

    def _pump(self) -> None:
        while not self._stop.is_set():
            item: Frame | BaseException | None
            try:
                item = self.inner.read()
            except Exception as exc:
                if not isinstance(exc, EndOfSource):
                    # a driver's RuntimeError (or any failure) is a camera fault, never the end:
                    # the reader sees the source degraded and the pump tries again
                    self.inner.last_error = f"{self.name}: {type(exc).__name__}: {exc}"
                    self._stop.wait(min(self.timeout_s, 0.5))
                    continue
                item = exc
            except BaseException as exc:  # handed to the reader, who decides
                item = exc
            if item is None:
                continue  # the inner source is degraded and retrying on its own
            if isinstance(item, BaseException):
                self._box.put(item)  # after the last frame is taken: the end is not a drop
                return
            with contextlib.suppress(queue.Empty):
                self._box.get_nowait()  # drop the stale frame
            self._box.put(item)

    def read(self) -> Frame | None:
        if self.status == "closed":
            raise EndOfSource(f"{self.name} is closed")
        try:
            item = self._box.get(timeout=self.timeout_s)
        except queue.Empty:
            why = self.inner.last_error or f"no frame within {self.timeout_s:g} s"
            self._degraded(why)
            return None
        if isinstance(item, BaseException):
            raise item
        self._ok()
        return item

    def close(self) -> None:
        self._stop.set()
        self.inner.close()
        super().close()


# ---- one string picks the source ---------------------------------------------------------------
def open_source(spec: str | int | None, **kwargs: Any) -> FrameSource:
    """A source from a command-line string.

    ``picamera`` (or ``pi``): the Pi camera; an integer or ``usb:N``: that webcam;
    ``sim[:GAME[:SEED]]``: a simulated game; a folder, an image file or a glob: images;
    ``file:PATH`` or anything else: a video file.
    """
    if spec is None or spec == "":
        raise CameraError("no source given: use e.g. --source picamera, --source 0, --source game.mp4")
    timeout_s = float(kwargs.pop("timeout_s", 2.0))
    if isinstance(spec, int):
        return TimeoutSource(VideoCaptureSource(spec, **kwargs), timeout_s)
    text = str(spec).strip()
    if text.startswith("usb:"):  # the box's config spelling
        text = text[4:]
    elif text.startswith("file:"):
        return VideoCaptureSource(text[5:], **kwargs)
    if text in ("picamera", "picamera2", "pi"):
        return TimeoutSource(PiCameraSource(**kwargs), timeout_s)
    if text.isdigit():
        return TimeoutSource(VideoCaptureSource(int(text), **kwargs), timeout_s)
    if text == "sim" or text.startswith("sim:"):
        parts = text.split(":")
        game = parts[1] if len(parts) > 1 and parts[1] else "briscola-4"
        seed_text = parts[2] if len(parts) > 2 else "0"
        if not (seed_text.isascii() and seed_text.isdigit()):
            raise CameraError(f"bad simulator seed in {text!r} (expected sim:GAME:SEED, SEED a whole number >= 0)")
        return SimulatorSource(game, int(seed_text), **kwargs)
    path = Path(text)
    if path.is_dir() or any(c in text for c in "*?[") or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFolderSource(text, **kwargs)
    return VideoCaptureSource(text, **kwargs)
