"""One simulated deal refereed end to end (``referee demo``, ``benchmarks/vision_e2e.py``):
render it, calibrate from the first frame's mat, run the vision stage on every frame, feed the
rules core, write the outputs and score the vision against the truth."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

from referee.captions import CaptionBoard
from referee.errors import RefereeError
from referee.vision.simulator.outputs import ScreenWriter, VideoWriter, annotate_frame, dump_jsonl
from referee.vision.simulator.recording import Recording, save_recording
from referee.vision.simulator.result import DemoResult
from referee.vision.simulator.scoring import delays, score
from referee.vision.simulator.stages import (
    Event,
    RecordingReferee,
    Stepper,
    TruthStepper,
    WatchStepper,
    watch_stepper,
)

#: the demo video's default frame rate and width: VP8 writes ~55 kB a frame at 960 px wide and
#: ~25 kB at 640 whatever the rate, and its encoding time grows with frames x pixels, so the
#: whole deal at the camera's 10 fps and 960 px made a 54 MB video and doubled the demo's time
VIDEO_FPS = 5.0
VIDEO_WIDTH = 640
#: narrower, the labels cover the cards
MIN_VIDEO_WIDTH = 320


def run_demo(
    game: str = "briscola-4",
    deck: str | None = None,
    seed: int = 1,
    out: Path = Path("demo-out"),
    texture: str = "check",
    fps: float = 10.0,
    truth_vision: bool = False,
    video: bool = True,
    quiet: bool = False,
    oracle: bool = False,
    record: Path | None = None,
    trust_after: int = 0,
    video_fps: float = VIDEO_FPS,
    video_width: int = VIDEO_WIDTH,
) -> DemoResult:
    """Simulate, referee and record one deal; see the module docstring.

    ``record``: also save every frame's detections (and the truth) to this file, to replay
    the tracker and the arbiter on them in seconds (:func:`replay_demo`).  ``trust_after``: the
    arbiter's opt-in out-of-turn calls without asking (0, the default: always ask first).
    ``video_fps``, ``video_width``: the annotated video keeps every n-th frame (n =
    ``fps / video_fps``, at least 1), scaled down to ``video_width``; the referee sees them all."""
    from referee.vision.calibrate import calibrate_image
    from referee.vision.layout import LayoutError
    from referee.vision.simulator.video import simulate_game

    started = time.perf_counter()
    every = video_stride(fps, video_fps)
    if video_width < MIN_VIDEO_WIDTH:
        raise RefereeError(f"the video's width must be at least {MIN_VIDEO_WIDTH} px, got {video_width}")
    out.mkdir(parents=True, exist_ok=True)
    say = _printer(quiet)
    sim = simulate_game(game, deck=deck, seed=seed, fps=fps, texture=texture)
    family = "italian" if "_" in sim.plays[0].card else "french"
    say(f"# simulating {sim.game} ({', '.join(sim.seats)}), {sim.face_set} on '{sim.texture}', "
        f"{sim.duration:.0f} s at {fps:g} fps; output in {out}/")
    frames = sim.frames()
    first = next(frames)
    try:
        layout = calibrate_image(first.image, sim.seats)
        say(f"# table calibrated from the mat markers in the first frame ({sim.layout.frame_size[0]}x"
            f"{sim.layout.frame_size[1]})")
    except LayoutError as exc:
        layout = sim.layout
        say(f"# calibration failed ({exc}); using the simulator's layout")
    ref = RecordingReferee()
    stage: Stepper = TruthStepper(ref)
    if not truth_vision:
        real, why = watch_stepper(sim, family, layout, ref, oracle, trust_after)
        if real is None:
            say(f"# NOTE: {why}: using the simulator's ground truth as the vision stage")
        else:
            stage = real
    say(f"# vision: {stage.name}")

    result = DemoResult(vision=stage.name, out=out, video=out / "annotated.webm" if video else None)
    writer = VideoWriter(result.video, fps / every) if result.video is not None else None
    screens = ScreenWriter(out / "screens", say)
    captions = CaptionBoard()
    timed_events: list[tuple[float, list[Event]]] = []
    if record is not None and isinstance(stage, WatchStepper):
        stage.live.record = []
    for frame in _chain(first, frames):
        ref.now = frame.t
        result.truth_events.extend(frame.events)
        timed_events.append((frame.t, list(frame.events)))
        for call in stage.step(frame):
            result.calls.append(call)
            screens.add(call)
            captions.add(call, frame.t)
            if not quiet:
                print(json.dumps(call), flush=True)
        if writer is not None and result.frames % every == 0:
            writer.write(annotate_frame(frame.image, layout, stage.seen(), stage.banner(captions.text(frame.t)),
                                        frame.t, width=video_width))
        result.frames += 1
    if writer is not None:
        writer.close()
    screens.final(result.calls)
    dump_jsonl(out / "calls.jsonl", result.calls)
    result.events = ref.fed
    result.delays = delays(ref, sim.plays)
    if isinstance(stage, WatchStepper):
        result.confirms = stage.operator.asked
        result.refused = stage.operator.refused
    # with the frame time each was fed at, to line up with truth.jsonl and calls.jsonl
    dump_jsonl(out / "events.jsonl", [{**e, "t": round(t, 2)} for e, t in zip(result.events, ref.fed_at, strict=True)])
    dump_jsonl(out / "truth.jsonl", [{"seat": p.seat, "card": p.card, "t": p.t} for p in sim.plays])
    result.seconds = time.perf_counter() - started
    result.truth_plays = [(p.seat, p.card) for p in sim.plays]
    result.truth_calls = sim.truth_calls()
    if record is not None and isinstance(stage, WatchStepper) and stage.live.record is not None:
        save_recording(record, Recording(sim.game, tuple(sim.seats), list(sim.plays), result.truth_calls, layout,
                                          timed_events, stage.live.record, stage.name, family))
    _summary(result, say)
    return result


def video_stride(fps: float, video_fps: float) -> int:
    """Keep every n-th simulated frame in the video: the n that comes nearest ``video_fps``."""
    if video_fps <= 0:
        raise RefereeError(f"the video's frame rate must be above 0, got {video_fps:g}")
    return max(1, round(fps / video_fps))


def _printer(quiet: bool) -> Any:
    def say(text: str, always: bool = False) -> None:
        if always or not quiet:
            print(text, flush=True)

    return say


def _chain(first: Any, rest: Any) -> Any:
    yield first
    yield from rest


def _summary(result: DemoResult, say: Any) -> None:
    ends = [c for c in result.calls if c.get("call") == "deal_end"]
    if ends:
        end = ends[-1]
        points = ", ".join(f"{team} {pts}" for team, pts in end["points"].items())
        say(f"final score: {points}; winner {end.get('winner') or 'none (tie)'}", always=True)
    else:
        say("final score: the deal did not finish (missed plays?)", always=True)
    sc = score(result)
    say(f"# vision vs truth: {sc.right}/{sc.plays} plays right, {sc.misread} misread, {sc.phantom} phantom, "
        f"{sc.winners_right}/{sc.tricks} trick winners, {result.confirms} operator confirms "
        f"({result.refused} refused: nothing new there); "
        f"{result.frames} frames in {result.seconds:.1f} s ({result.vision})")
    if result.delays:
        say(f"# delay from a card lying still to its play: median {statistics.median(result.delays):.2f} s, "
            f"max {max(result.delays):.2f} s")
    video = f"{result.video.name}, " if result.video is not None else ""
    say(f"# wrote {result.out}/{video}screens/, calls.jsonl, events.jsonl, truth.jsonl")
