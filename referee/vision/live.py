"""The live loop's vision stage: frames in, play events out (pipeline + play tracker).

:class:`LiveVision` runs in ``referee watch``, ``referee run`` and ``referee demo``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from referee.errors import RefereeError
from referee.rules import Referee
from referee.table.proposal import ProposedPlay
from referee.vision.detections import Detections, FloatArray, Image
from referee.vision.pipeline import FramePipeline, ReadCache, Recogniser, ZoneMap
from referee.vision.tracker import PlayTracker, RefereeView, RulesView, TrackerConfig

#: frames with no sure read after which a size never measured on a card's edges is searched
#: for again (3 s at the camera's 10 frames a second)
LOST_FRAMES = 30


class LayoutLike(ZoneMap, Protocol):
    """What the live loop needs of ``referee.vision.layout.TableLayout``."""

    @property
    def seats(self) -> tuple[str, ...]: ...
    def seat_of(self, image_point: Sequence[float]) -> str: ...


@dataclass(frozen=True)
class SeenCard:
    """A card the live loop shows on annotated frames."""

    card: str
    quad: FloatArray
    confidence: float


class LiveVision:
    """Frames in, play events out: the pipeline plus the tracker, over a rules-core view.

    ``update(image, t, operator_events)`` returns the plays the camera saw
    (:class:`~referee.table.proposal.ProposedPlay`; unsure ones are ``uncertain``).  With
    ``apply_plays`` (the demo), it keeps its own :class:`~referee.rules.Referee` in step by
    applying the operator's events and its own plays, so the tracker's rules checks see the
    deal as it stands; ``referee watch`` passes its referee and applies plays itself, after
    any confirmation.  This is the ``VisionStage`` interface of ``referee demo``.
    """

    name = "vision pipeline (card finder + recogniser + play tracker)"

    def __init__(self, pipeline: FramePipeline, tracker: PlayTracker, referee: Referee, apply_plays: bool = True) -> None:
        self.pipeline = pipeline
        self.tracker = tracker
        self.referee = referee
        self.apply_plays = apply_plays
        self.last = Detections.empty()
        self.timings_ms: list[float] = []
        self._frames = 0
        self._since_sure = 0  # frames since the last sure read
        #: each frame's (time, detections) when set to a list (``vision_e2e.py --record``)
        self.record: list[tuple[float, Detections]] | None = None

    @classmethod
    def create(
        cls,
        layout: LayoutLike,
        classifier: Recogniser,
        referee: Referee | None = None,
        apply_plays: bool = True,
        tracker_config: TrackerConfig | None = None,
        rules: RulesView | None = None,
    ) -> LiveVision:
        """``rules``: the tracker's view of the rules when it is not ``referee``'s (the box's
        referee is replaced on resume, so ``referee run`` passes a view that follows it)."""
        ref = referee if referee is not None else Referee()
        pipeline = FramePipeline.create(classifier, layout=layout)
        pipeline.cache = ReadCache()
        view = rules if rules is not None else RefereeView(ref)
        tracker = PlayTracker(layout.seat_of, layout.zone_of, view, tracker_config, _play_spots(layout))
        return cls(pipeline, tracker, ref, apply_plays)

    def update(self, image: Image, t: float, operator_events: Sequence[Mapping[str, Any]] = ()) -> list[ProposedPlay]:
        for event in operator_events:
            if event.get("event") == "play":
                continue  # plays are what the camera must find by itself
            if event.get("event") == "deal":
                self.tracker.reset()
            if self.apply_plays:
                self._apply(event)
        start = time.perf_counter()
        dets = self.detect(image)
        self.timings_ms.append((time.perf_counter() - start) * 1000)
        self.last = dets
        if self.record is not None:
            self.record.append((t, dets))
        plays = self.tracker.update(dets, t)
        if self.apply_plays:
            for play in plays:
                if play.correction is None:  # a doubt about a play is the operator's to settle
                    self._apply(play.to_event())
        return plays

    def detect(self, image: Image) -> Detections:
        """One frame's identified cards (the pipeline's part of :meth:`update`)."""
        finder = self.pipeline.finder
        self._frames += 1
        # No card confirmed yet, or a size taken from quads (never measured on a card's edges)
        # under which nothing has been read surely for a while (the first sure read was not a
        # card: an arm read as denari_1 set 98x173 px for cards of 55x99, and no card was read
        # surely for 14 s): the size is a guess, so try a few.
        lost = not finder.measured and self._since_sure >= LOST_FRAMES
        searching = (not finder.observed or lost) and finder.config.card_height is None
        if searching and self._frames % 5 == 1:
            # every 5th frame: an empty table at the start must not triple the cost of every frame
            dets = self.pipeline.find_card_size(image)
        else:
            dets = self.pipeline.process(image)
        sure = dets[dets.confidence >= 0.9]
        self._since_sure = 0 if len(sure) else self._since_sure + 1
        self.pipeline.finder.observe(sure.quad, image)  # cards do not change size: measure it on sure cards
        return dets

    def seen(self) -> list[SeenCard]:
        return [SeenCard(str(c), q, float(p)) for c, q, p in zip(self.last.card, self.last.quad, self.last.confidence, strict=True)]

    def _apply(self, event: Mapping[str, Any]) -> None:
        # The caller's own referee reports bad events; this one only mirrors the deal.
        with contextlib.suppress(RefereeError):
            self.referee.apply(event)


class ReplayedVision(LiveVision):
    """:class:`LiveVision` fed the detections an earlier run recorded (``LiveVision.record``)
    instead of running the pipeline: the tracker and everything after it, in seconds instead
    of minutes per deal (``vision_e2e.py --replay``).  The detections do not depend on the
    tracker, so a replay decides exactly as a live run with the same detections would."""

    def __init__(self, live: LiveVision, detections: Sequence[tuple[float, Detections]]) -> None:
        super().__init__(live.pipeline, live.tracker, live.referee, live.apply_plays)
        self.name = live.name
        self._recorded = list(detections)
        self._next = 0
        self._t = 0.0

    def update(self, image: Image, t: float, operator_events: Sequence[Mapping[str, Any]] = ()) -> list[ProposedPlay]:
        self._t = t  # the image is not looked at (a replay's frames have none)
        return super().update(image, t, operator_events)

    def detect(self, image: Image) -> Detections:
        if self._next >= len(self._recorded):
            raise RefereeError(f"replay: no recorded detections left for the frame at {self._t:.2f} s")
        t, dets = self._recorded[self._next]
        if abs(t - self._t) > 1e-6:
            raise RefereeError(f"replay: recorded frame at {t:.2f} s, asked for {self._t:.2f} s")
        self._next += 1
        return dets


def _play_spots(layout: LayoutLike) -> dict[str, tuple[float, float]]:
    """Each seat's play spot in image pixels, when the layout knows them."""
    spot = getattr(layout, "play_spot", None)
    to_image = getattr(layout, "to_image", None)
    if spot is None or to_image is None:
        return {}
    out = {}
    for seat in layout.seats:
        x, y = np.asarray(to_image([spot(seat)]), np.float64)[0]
        out[seat] = (float(x), float(y))
    return out
