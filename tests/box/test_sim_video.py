"""`referee run`'s camera path on a simulated video: the referee's calls match the truth, and a
run cut off mid-deal (nothing closed, as after kill -9) resumes to the same calls.

Needs the committed recogniser model (models/italian.onnx); skipped until it exists.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from box.helpers import RecordingSignals
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.display import NullDisplay
from referee.box.notify import Notifier
from referee.box.run import Runner
from referee.box.state import MatchStore
from referee.box.vision_feed import LiveRules, VisionFeed
from referee.paths import models_dir
from referee.rules.playout import random_deal_events

pytestmark = pytest.mark.skipif(
    not (models_dir() / "italian.onnx").is_file(), reason="no recogniser model committed yet"
)

PLAYS = 8  # two tricks of briscola-4: enough to cross a trick boundary, short enough to be quick


def sim_feed(box: Box, events: list[dict[str, Any]]) -> VisionFeed:
    from referee.recognition import CardClassifier
    from referee.vision.pipeline import FramePipeline
    from referee.vision.sources import SimulatorSource
    from referee.vision.tracker import PlayTracker

    source = SimulatorSource("briscola-4", seed=3, events=events, gestures=False)
    layout = source.game.layout
    pipeline = FramePipeline.create(CardClassifier.load("italian", threads=1), layout=layout)
    tracker = PlayTracker(seat_of=layout.seat_of, zone_of=layout.zone_of, rules=LiveRules(lambda: box.referee))
    return VisionFeed(source, pipeline.process, tracker, list(source.game.timed_events))


def run_box(cfg: BoxConfig, events: list[dict[str, Any]], stop_after: int | None = None) -> list[dict[str, Any]]:
    store = MatchStore.open(cfg.state_dir)
    box = Box(cfg, store, RecordingSignals(), NullDisplay())
    feed = sim_feed(box, events)
    runner = Runner(cfg, box, feed, Notifier(None))
    if stop_after is not None:
        original = box.handle

        def handle(event: dict[str, Any], pos: int | None = None) -> list[dict[str, Any]]:
            calls = original(event, pos)
            if len(store.events(1)) >= stop_after:
                runner.stopping = True  # walk away mid-deal: nothing closed or flushed
            return calls

        box.handle = handle  # type: ignore[method-assign]
    runner.run()
    return store.calls(1) if store.matches() else []


def test_sim_video_calls_and_resume_after_a_cut(tmp_path: Path, cfg: BoxConfig) -> None:
    events = random_deal_events("briscola-4", seed=3)[: 1 + PLAYS]
    cfg = replace(cfg, camera=replace(cfg.camera, no_frame_timeout_s=60.0))
    calm = run_box(replace(cfg, state_dir=tmp_path / "calm"), events)
    truth = Box(cfg, MatchStore.open(tmp_path / "truth"), RecordingSignals(), NullDisplay())
    expected = [c for e in events for c in truth.handle(e)]
    assert calm == expected

    cut = replace(cfg, state_dir=tmp_path / "cut")
    run_box(cut, events, stop_after=5)
    assert run_box(cut, events) == expected
