"""One simulated deal's detections and truth saved (``run_demo(record=...)``), and refereed
again from them in seconds (:func:`replay_demo`, ``vision_e2e.py --replay``)."""

from __future__ import annotations

import json
import time
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from referee.errors import RefereeError
from referee.vision.detections import Detections
from referee.vision.layout import TableLayout
from referee.vision.simulator.operator import SimOperator
from referee.vision.simulator.result import DemoResult
from referee.vision.simulator.scoring import delays
from referee.vision.simulator.stages import Call, Event, RecordingReferee, WatchStepper
from referee.vision.simulator.video import PlayTruth

#: what a recording file says it is (a file without it is refused)
FORMAT = "referee-simulated-deal-detections"
VERSION = 1


@dataclass
class Recording:
    """One deal's detections and truth (``run_demo(record=...)``), for :func:`replay_demo`."""

    game: str
    seats: tuple[str, ...]
    plays: list[PlayTruth]
    truth_calls: list[Call]
    layout: TableLayout
    frames: list[tuple[float, list[Event]]]  # each frame's time and the simulation's events
    detections: list[tuple[float, Detections]]  # each frame's time and its identified cards
    vision: str
    family: str


def save_recording(path: Path, recording: Recording) -> None:
    """Write ``recording`` as one ``.npz``: the detections' arrays, and a JSON document (the
    truth, the layout, each frame's events and each detection's top reads).  The crops are
    not kept: a replay reads no crop.  Nothing in it needs pickle to load."""
    dets = [d for _, d in recording.detections]
    meta = {
        "format": FORMAT, "version": VERSION, "game": recording.game, "seats": list(recording.seats),
        "plays": [asdict(p) for p in recording.plays], "truth_calls": recording.truth_calls,
        "layout": recording.layout.to_dict(), "frames": [[t, events] for t, events in recording.frames],
        "vision": recording.vision, "family": recording.family,
        "detection_t": [t for t, _ in recording.detections],
        "top": [[[str(c), float(p)] for c, p in top] for d in dets for top in d.top],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        np.savez_compressed(
            handle, meta=np.array(json.dumps(meta)), counts=np.array([len(d) for d in dets], np.int64),
            quad=np.concatenate([d.quad for d in dets]) if dets else np.zeros((0, 4, 2), np.float32),
            group=np.concatenate([d.group for d in dets]) if dets else np.zeros(0, np.int32),
            card=np.array([str(c) for d in dets for c in d.card], str),
            confidence=np.concatenate([d.confidence for d in dets]) if dets else np.zeros(0, np.float32),
        )


def load_recording(path: Path) -> Recording:
    """Read a file :func:`save_recording` wrote; anything else is a :class:`RefereeError`
    naming the file and what is wrong with it."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in ("meta", "counts", "quad", "group", "card", "confidence")}
        meta = json.loads(str(arrays["meta"]))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise RefereeError(f"replay: cannot read {path}: {exc}") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise RefereeError(f"replay: {path} is not a recording of vision_e2e.py --record (version {VERSION})")
    try:
        return _recording(meta, arrays)
    except (KeyError, TypeError, ValueError, RefereeError) as exc:
        raise RefereeError(f"replay: {path}: bad recording ({type(exc).__name__}: {exc})") from exc


def _recording(meta: dict[str, Any], arrays: dict[str, Any]) -> Recording:
    counts = [int(n) for n in arrays["counts"]]
    if len(counts) != len(meta["detection_t"]) or sum(counts) != len(meta["top"]):
        raise ValueError("the detection counts disagree with 'detection_t' or 'top'")
    detections: list[tuple[float, Detections]] = []
    at = 0
    for t, n in zip(meta["detection_t"], counts, strict=True):
        part = slice(at, at + n)
        top = [[(str(c), float(p)) for c, p in reads] for reads in meta["top"][part]]
        detections.append((float(t), Detections(
            quad=arrays["quad"][part], group=arrays["group"][part],
            card=np.array([str(c) for c in arrays["card"][part]], object),
            confidence=arrays["confidence"][part], top=top)))
        at += n
    return Recording(
        game=str(meta["game"]), seats=tuple(str(s) for s in meta["seats"]),
        plays=[PlayTruth(**p) for p in meta["plays"]], truth_calls=list(meta["truth_calls"]),
        layout=TableLayout.from_dict(meta["layout"], source="recording layout"),
        frames=[(float(t), list(events)) for t, events in meta["frames"]],
        detections=detections, vision=str(meta["vision"]), family=str(meta["family"]),
    )


class _NoRecogniser:
    """A replay reads no crops: its detections were recorded already identified."""

    input_size = (64, 100)

    def classify(self, crops: Sequence[Any]) -> list[Any]:
        raise RefereeError("replay: the recogniser must not be needed")


@dataclass
class _ReplayFrame:
    t: float
    events: list[Event]
    image: Any = None


def replay_demo(path: Path, trust_after: int = 0) -> DemoResult:
    """Referee a recorded deal again from its detections: the tracker, the arbiter and the
    simulated operator as in :func:`run_demo`, without rendering or recognition (seconds, not
    minutes: ``vision_e2e.py --replay``).  A file this code did not write is refused."""
    from referee.vision.live import LiveVision, ReplayedVision
    from referee.vision.watch import WatchLoop

    started = time.perf_counter()
    recording = load_recording(path)
    ref = RecordingReferee()
    live = ReplayedVision(LiveVision.create(recording.layout, _NoRecogniser(), ref, apply_plays=False),
                          recording.detections)
    live.name = recording.vision
    loop = WatchLoop(live, ref, recording.game, recording.seats, trust_after=trust_after)
    stage = WatchStepper(loop, live, SimOperator(recording.plays, ref))
    result = DemoResult(vision=f"{recording.vision} (replayed)")
    for t, events in recording.frames:
        ref.now = t
        result.truth_events.extend(events)
        result.calls += stage.step(_ReplayFrame(t, events))
        result.frames += 1
    result.events = ref.fed
    result.delays = delays(ref, recording.plays)
    result.confirms, result.refused = stage.operator.asked, stage.operator.refused
    result.truth_plays = [(p.seat, p.card) for p in recording.plays]
    result.truth_calls = recording.truth_calls
    result.seconds = time.perf_counter() - started
    return result


