"""The camera's reading of the stock zone: the face-up card lying there (briscola's trump
under the stock, belotta's turned card), for the box's deal-card menu to start on.

It reads the vision stage the box's camera feed runs (``referee.vision.live.LiveVision``:
``last`` detections and ``pipeline.layout.zone_of``) and imports nothing of OpenCV itself.
Only a suggestion: the operator confirms it with one OK (a misread costs a left/right press).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.cards import BACK

#: a weaker read is no suggestion at all (the menu then starts on the suit)
MIN_CONFIDENCE = 0.6


def stock_card(vision: Any) -> str | None:
    """The most confident card read in the stock zone of the last frame, else ``None``."""
    dets = getattr(vision, "last", None)
    layout = getattr(getattr(vision, "pipeline", None), "layout", None)
    if dets is None or layout is None or not len(dets.card):
        return None
    best, best_conf = None, MIN_CONFIDENCE
    for centre, card, conf in zip(dets.centers, dets.card, dets.confidence, strict=True):
        if not card or card == BACK or float(conf) < best_conf:
            continue
        if layout.zone_of((float(centre[0]), float(centre[1]))) == "stock":
            best, best_conf = str(card), float(conf)
    return best


def stock_reader(feed: Any) -> Callable[[], str | None] | None:
    """What the box asks for the stock card: the feed's own ``stock_card()`` when it has one,
    else a reading of its vision stage, else ``None`` (no camera: the menu starts on the suit)."""
    own = getattr(feed, "stock_card", None)
    if callable(own):
        return own  # type: ignore[no-any-return]
    vision = getattr(feed, "vision", None)
    if vision is None:
        return None
    return lambda: stock_card(vision)
