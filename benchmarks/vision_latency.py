"""Per-frame latency of the vision pipeline at 1280x720 with 4-8 face-up cards, one thread.

Prints the median and p95 of the card finder alone and of the whole frame pipeline (finder +
recogniser on every proposal), configured as in the live loop: on a still table (the last
frame's splits of overlapping cards reused) and on the frame a trick is first still (split by
outlines again, as after a card was laid; the card size fitted once before), then the delay from a card lying still (the simulator's truth)
to its play event, over one simulated deal.

    .venv/bin/python benchmarks/vision_latency.py                 # 60 frames + one deal
    .venv/bin/python benchmarks/vision_latency.py --frames 200 --no-delay
    .venv/bin/python benchmarks/vision_latency.py --frames 60 --no-delay --size-known   # as after a sure read

``--stages`` prints where a worst still frame's CPU goes, stage by stage (ms per frame, this
thread; a stage's steps indented under it), over the same frames.

``--repeat N`` times each frame N times and keeps its fastest (wall and CPU apart): on a
machine other jobs share, a frame's figure is then what it costs, not when it was preempted
(compare code against a baseline measured the same way, back to back).

Frames are simulator stills (``referee.vision.simulator``: real card faces, check/stripe/wood/
felt cloths, the stock with its briscola, won piles), each with its table layout as the live
loop has one (markers ignored, overlapping cards split only in the play area).  OpenCV and ONNX Runtime are pinned to
one thread.  The machine is shared, so run it a few times and keep the lowest medians.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import cv2
import numpy as np


def scenes(n: int, seed: int) -> list[tuple[np.ndarray, int, str, object, np.ndarray]]:
    """(image, face-up cards, family, layout, one face-up card's quad) of simulator stills with
    4-8 face-up cards."""
    from referee.vision.layout import TableLayout, default_seat_names
    from referee.vision.simulator import random_scene, render_scene

    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, int, str, object, np.ndarray]] = []
    while len(out) < n:
        family = "italian" if len(out) % 2 == 0 else "french"
        seats = 5 if family == "italian" else 4
        spec = random_scene(rng, family=family, seats=seats, hands=0)
        frame = render_scene(spec, rng)
        up = sum(c.face_up for c in frame.cards)
        if 4 <= up <= 8:
            h, w = frame.image.shape[:2]
            layout = TableLayout.default(default_seat_names(seats), (w, h), spec.camera.matrix)
            quad = next(c.quad for c in frame.cards if c.face_up)
            out.append((frame.image, up, family, layout, np.asarray(quad, np.float32)))
    return out


def stats(ms: list[float], cpu: list[float] | None = None) -> str:
    a = np.array(ms)
    text = f"median {np.median(a):6.1f} ms   p95 {np.percentile(a, 95):6.1f} ms"
    if cpu:  # CPU time of this process: what the figure would be on an idle machine
        c = np.array(cpu)
        text += f"   [cpu: median {np.median(c):5.1f} ms   p95 {np.percentile(c, 95):5.1f} ms]"
    return text + f"   (n={len(a)})"


def timed(step: Callable[[], object], repeat: int = 1, before: Callable[[], object] | None = None) -> tuple[float, float]:
    """(wall ms, CPU ms of this process) of ``step``, each the fastest of ``repeat`` runs
    (``before`` run untimed ahead of each: the state the step is timed from)."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        wall = min(wall, (time.perf_counter() - start) * 1000)
        cpu = min(cpu, (time.process_time() - start_cpu) * 1000)
    return wall, cpu


def forget_splits(finder: object) -> None:
    """A card just laid on the trick, now still: its blob is split again (the splits of the
    frame before forgotten, the blob's first sight remembered)."""
    finder._splits.prev.clear()  # type: ignore[attr-defined]


def frame_latency(frames: list[tuple[np.ndarray, int, str, object, np.ndarray]], size_known: bool = False,
                  repeat: int = 1) -> None:
    from referee.vision.finder import CardFinder, FinderConfig

    finder_ms, finder_cpu, cold_ms, cold_cpu = [], [], [], []
    for image, _, _, layout, quad in frames:
        finder = CardFinder(FinderConfig(split_when_still=True))  # as the live pipeline has it
        if size_known:
            finder.observe(quad[None])
        play = np.asarray(layout.image_polygons()["play"], np.float32)  # type: ignore[attr-defined]
        play = play.mean(axis=0) + 1.2 * (play - play.mean(axis=0))  # as the pipeline grows it
        finder.find(image, focus=play)  # first sight: overlapping cards wait to lie still
        finder.find(image, focus=play)  # still: split by outlines, the card size fitted once
        wall, cpu = timed(partial(finder.find, image, focus=play), repeat)  # a still table: the splits are reused
        finder_ms.append(wall)
        finder_cpu.append(cpu)
        # a card just laid on the trick, now still: split again
        wall, cpu = timed(partial(finder.find, image, focus=play), repeat, before=partial(forget_splits, finder))
        cold_ms.append(wall)
        cold_cpu.append(cpu)
    print(f"finder only          {stats(finder_ms, finder_cpu)}")
    print(f"finder, trick split  {stats(cold_ms, cold_cpu)}   (the frame a trick is first still)")
    try:
        from referee.recognition import CardClassifier
        from referee.recognition.views import LIVE_VIEWS
        from referee.vision.pipeline import FramePipeline

        classifiers = {f: CardClassifier.load(f, threads=1, views=LIVE_VIEWS) for f in ("italian", "french")}
    except Exception as exc:  # no model yet: the finder figure still stands
        print(f"pipeline             skipped: {exc}")
        return
    total_ms, total_cpu, split_ms, split_cpu = [], [], [], []
    for image, _, family, layout, quad in frames:
        pipe = FramePipeline.create(classifiers[family], layout=layout)  # type: ignore[arg-type]
        if size_known:
            pipe.finder.observe(quad[None])
        pipe.process(image)  # first sight of the table: overlapping cards wait to lie still
        pipe.process(image)  # still: split by outlines (the card size fitted once)
        # a card just laid on the trick, now still
        wall, cpu = timed(partial(pipe.process, image), repeat, before=partial(forget_splits, pipe.finder))
        split_ms.append(wall)
        split_cpu.append(cpu)
        wall, cpu = timed(partial(pipe.process, image), repeat)  # every proposal classified (no read cache): the worst still frame
        total_ms.append(wall)
        total_cpu.append(cpu)
    print(f"finder + recogniser  {stats(total_ms, total_cpu)}")
    print(f"  ... trick split    {stats(split_ms, split_cpu)}   (the frame a trick is first still)")


#: (label, depth, module, attribute): the frame's stages, each timed where the pipeline calls it
#: (an attribute a module lacks, in older code, is left out)
STAGES = [
    ("frame (FramePipeline.process)", 0, "referee.vision.pipeline", "FramePipeline.process"),
    ("finder (CardFinder.find)", 1, "referee.vision.pipeline", "CardFinder.find"),
    ("whiteness", 2, "referee.vision.finder.card_finder", "whiteness"),
    ("threshold, holes filled", 2, "referee.vision.finder.card_finder", "binarize"),
    ("threshold, holes filled", 2, "referee.vision.finder.card_finder", "fill_holes"),
    ("threshold, holes filled", 2, "referee.vision.finder.card_finder", "filled_with_outlines"),
    ("card size from blobs", 2, "referee.vision.card_size", "CardSize.expected"),
    ("blobs (single, partial, split)", 2, "referee.vision.finder.card_finder", "blob_hypotheses"),
    ("court cards (thin, strip)", 2, "referee.vision.finder.card_finder", "thin_card_hypotheses"),
    ("court cards (thin, strip)", 2, "referee.vision.finder.card_finder", "strip_card_hypotheses"),
    ("edge regions (light tables)", 2, "referee.vision.finder.card_finder", "edge_card_hypotheses"),
    ("edge regions (light tables)", 2, "referee.vision.finder.card_finder", "edge_blob_hypotheses"),
    ("corner order", 2, "referee.vision.finder.card_finder", "portrait_order"),
    ("crops (warps)", 2, "referee.vision.finder.card_finder", "rectify"),
    ("layout: zones, markers", 1, "referee.vision.layout", "TableLayout.zone_of"),
    ("layout: zones, markers", 1, "referee.vision.pipeline", "FramePipeline._on_markers"),
    ("stock's briscola", 1, "referee.vision.pipeline", "FramePipeline._stock_card"),
    ("recogniser (identify)", 1, "referee.vision.pipeline", "identify"),
    ("model input", 2, "referee.recognition.classifier", "CardClassifier.prepare"),
    ("model run + input", 2, "referee.recognition.classifier", "CardClassifier.run"),
]


def stage_times(frames: list[tuple[np.ndarray, int, str, object, np.ndarray]], size_known: bool = False) -> None:
    """CPU ms per frame of each of :data:`STAGES` over the worst still frame of each scene."""
    import importlib

    from referee.recognition import CardClassifier
    from referee.recognition.views import LIVE_VIEWS
    from referee.vision.pipeline import FramePipeline

    spent: dict[str, float] = {}
    depth: dict[str, int] = {}
    for label, level, module, attr in STAGES:
        owner: object = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        step = getattr(owner, name, None)
        if step is None:
            continue
        spent.setdefault(label, 0.0)
        depth[label] = level

        def clocked(*args: object, _step: Callable[..., object] = step, _label: str = label, **kwargs: object) -> object:
            start = time.thread_time()
            try:
                return _step(*args, **kwargs)
            finally:
                spent[_label] += time.thread_time() - start

        setattr(owner, name, clocked)
    classifiers = {f: CardClassifier.load(f, threads=1, views=LIVE_VIEWS) for f in ("italian", "french")}
    pipes = []
    for image, _, family, layout, quad in frames:
        pipe = FramePipeline.create(classifiers[family], layout=layout)  # type: ignore[arg-type]
        if size_known:
            pipe.finder.observe(quad[None])
        pipe.process(image)
        pipe.process(image)
        pipes.append((pipe, image))
    spent.update((k, 0.0) for k in spent)
    for pipe, image in pipes:
        pipe.process(image)  # every proposal classified (no read cache): the worst still frame
    print(f"where a still frame's CPU goes (ms per frame, this thread; {len(pipes)} frames):")
    for label, total in spent.items():
        print(f"  {'  ' * depth[label]}{label:34s} {total * 1000 / len(pipes):6.2f}")


def play_delay(seed: int, fps: float) -> None:
    from referee.recognition import CardClassifier
    from referee.recognition.views import LIVE_VIEWS
    from referee.rules import Referee
    from referee.table.proposal import ProposedPlay
    from referee.vision.live import LiveVision
    from referee.vision.simulator.video import simulate_game

    sim = simulate_game("briscola-4", deck="italian", seed=seed, fps=fps)
    live = LiveVision.create(sim.layout, CardClassifier.load("italian", threads=1, views=LIVE_VIEWS), Referee())
    seen: list[ProposedPlay] = []
    for frame in sim.frames():
        seen += live.update(frame.image, frame.t, [e for e in frame.events if e.get("event") != "play"])
    delays = []
    truth = list(sim.plays)
    for play in truth:
        match = [p for p in seen if p.card == play.card and p.seat == play.seat]
        if match:
            delays.append(match[0].t - play.t)
    found = len(delays)
    print(f"still -> play event  median {np.median(delays) * 1000:6.0f} ms   max {max(delays) * 1000:6.0f} ms"
          f"   ({found}/{len(truth)} plays matched at {fps:g} fps; frame step {1000 / fps:.0f} ms)"
          if delays else f"still -> play event  no plays matched ({len(seen)} events)")
    print(f"live frame (in loop) {stats(live.timings_ms)}   (still cards reuse their read)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--no-delay", action="store_true", help="skip the simulated deal")
    parser.add_argument("--stages", action="store_true", help="also print where a still frame's CPU goes, stage by stage")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="time each frame N times and keep its fastest (a shared machine's preemptions left out)")
    parser.add_argument("--size-known", action="store_true",
                        help="the card size known (one card's true quad), as in the live loop after its first sure read")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    print(f"# 1280x720 frames with 4-8 face-up cards, one thread, {args.frames} frames"
          + (f", each the fastest of {args.repeat} runs" if args.repeat > 1 else ""))
    frames = scenes(args.frames, args.seed)
    frame_latency(frames, args.size_known, args.repeat)
    if not args.no_delay:
        try:
            play_delay(args.seed, args.fps)
        except Exception as exc:
            print(f"still -> play event  skipped: {exc}")
    if args.stages:  # last: its clocks stay on the pipeline's functions
        stage_times(frames, args.size_known)


if __name__ == "__main__":
    main()
