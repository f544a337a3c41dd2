"""A box with its console served on a free port, its main loop in a thread of its own (the
match record is opened there, as ``referee run`` opens it in its main thread), and a headless
Chromium to drive the pages."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from referee.box.app import Box
from referee.box.frames import FRAMES_DIR, FrameKeeper
from referee.web.console import Console
from referee.web.server import ConsoleServer
from web.helpers import PIN, make_box

T = TypeVar("T")


class LiveBox:
    """``frames``: the box keeps the frames of the camera's plays (:meth:`camera_play`)."""

    def __init__(self, tmp_path: Path, game: str, seats: str, frames: bool = False) -> None:
        self.keep_frames = frames
        self.ready = threading.Event()
        self.stopping = False
        self.failed: BaseException | None = None
        self.box: Box | None = None
        self.console: Console | None = None
        self.server: ConsoleServer | None = None
        self.thread = threading.Thread(target=self._main, args=(tmp_path, game, seats), daemon=True)
        self.thread.start()
        if not self.ready.wait(30) or self.failed is not None:
            raise RuntimeError(f"the box did not start: {self.failed}")
        assert self.server is not None
        self.url: str = f"http://127.0.0.1:{self.server.port}"

    def _main(self, tmp_path: Path, game: str, seats: str) -> None:
        try:
            self.box = make_box(tmp_path, game, seats)
            if self.keep_frames:
                self.box.frames = FrameKeeper(tmp_path / "state" / FRAMES_DIR)
            self.console = Console(self.box, PIN, tmp_path / "console.json")
            self.server = ConsoleServer(self.console, "127.0.0.1", 0).start()
        except BaseException as exc:
            self.failed = exc
            self.ready.set()
            return
        self.ready.set()
        while not self.stopping:
            self.console.pump()
            time.sleep(0.005)
        self.server.stop()
        self.box.store.close()

    def call(self, job: Callable[[Box], T]) -> T:
        """Run ``job`` on the box in its main loop (the record is read there only)."""
        assert self.console is not None and self.box is not None
        box = self.box
        return self.console.mailbox.post(lambda: job(box)).result(timeout=10)

    def camera_play(self, play: dict[str, Any], pos: int, image: Any) -> list[dict[str, Any]]:
        """A play as the camera's feed hands it to the box: the frame it came from offered
        first, then the play with the frame's position (the box's main loop does both)."""
        def seen(box: Box) -> list[dict[str, Any]]:
            if box.frames is not None:
                box.frames.offer(pos, image)
            return box.handle(play, pos)

        return self.call(seen)

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "/api/state", timeout=10) as r:
            result: dict[str, Any] = json.load(r)
            return result

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """As another tool (the simulated camera) would: with the PIN header."""
        request = urllib.request.Request(self.url + path, json.dumps(body).encode(), method="POST",
                                         headers={"X-Referee-Pin": PIN, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return int(r.status), json.load(r)
        except urllib.error.HTTPError as exc:
            return int(exc.code), json.load(exc)

    def get_text(self, path: str) -> str:
        request = urllib.request.Request(self.url + path, headers={"X-Referee-Pin": PIN})
        with urllib.request.urlopen(request, timeout=10) as r:
            return str(r.read().decode("utf-8"))

    def wait_events(self, count: int, timeout_s: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            state = self.state()
            if state["events"] >= count or time.monotonic() > deadline:
                return state
            time.sleep(0.02)

    def stop(self) -> None:
        self.stopping = True
        self.thread.join(timeout=20)


def chromium_driver() -> Iterator[Any]:
    """A headless Chromium through Debian's chromedriver; skipped, with the reason, where
    either is missing (outside CI: ``.ci/run`` installs both, and there a missing one fails)."""
    driver_path = shutil.which("chromedriver")
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        driver_path = None
    if driver_path is None or browser_path is None:
        message = "needs selenium, chromium and chromedriver (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=390,844", "--lang=it"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": "it-IT,it"})  # the club's language
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def table_frame(plays: list[tuple[str, str]], seats: list[str], realistic: bool, seed: int = 0) -> Any:
    """The camera's frame of a trick on the table: rendered by the simulator (``realistic``,
    for screenshots: about a second each), else a small plain image naming the cards."""
    import cv2
    import numpy as np

    if realistic:
        from referee.vision.layout import TableLayout
        from referee.vision.simulator.camera import CameraSpec
        from referee.vision.simulator.random_scene import DEFAULT_FACE_SETS, trick_cards
        from referee.vision.simulator.scene import SceneSpec, render_scene

        rng = np.random.default_rng(seed)
        family = "italian" if any("_" in c for _, c in plays) else "french"
        spec = SceneSpec(tuple(trick_cards(TableLayout.default(seats), plays, rng)), face_set=DEFAULT_FACE_SETS[family],
                         texture="felt", camera=CameraSpec.random(rng, size=(960, 540), strength=0.3))
        return render_scene(spec, rng).image
    image = np.full((120, 200, 3), (40, 110, 40), np.uint8)
    for i, (seat, code) in enumerate(plays):
        cv2.putText(image, f"{seat} {code}", (8, 24 + 22 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    return image
