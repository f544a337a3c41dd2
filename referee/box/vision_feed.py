"""Camera -> vision pipeline as a :class:`~referee.box.feed.Feed` (imported only by ``referee run``
when the config names a camera, since it pulls in OpenCV and the recogniser)."""

from __future__ import annotations

from referee.box.config import BoxConfig
from referee.box.feed import Feed
from referee.errors import CameraError


def open_vision_feed(cfg: BoxConfig) -> Feed:
    try:
        import referee.vision.pipeline  # noqa: F401
    except ImportError as exc:
        raise CameraError(
            f"camera.source = {cfg.camera.source!r} needs the vision pipeline "
            f"(referee.vision.pipeline), which is not available: {exc}"
        ) from exc
    raise CameraError("the vision pipeline is not wired into referee run yet")
