"""Camera -> vision pipeline as a :class:`~referee.box.feed.Feed` (imported only by ``referee run``
when the config names a camera, since it pulls in OpenCV and the recogniser)."""

from __future__ import annotations

import importlib.util

from referee.box.config import BoxConfig
from referee.box.feed import Feed
from referee.errors import CameraError


def open_vision_feed(cfg: BoxConfig) -> Feed:
    if importlib.util.find_spec("referee.vision.pipeline") is None:
        raise CameraError(
            f"camera.source = {cfg.camera.source!r} needs the vision pipeline "
            "(referee.vision.pipeline), which is not installed"
        )
    raise CameraError(
        f"camera.source = {cfg.camera.source!r}: the camera loop is not wired into referee run "
        "yet; use --events FILE (or camera.source = 'events:FILE')"
    )
