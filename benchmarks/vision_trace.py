"""Why each camera play happened: one simulated deal, every tracker decision beside the truth.

    .venv/bin/python benchmarks/vision_trace.py --game briscola-2 --seed 1 --oracle

For every decision of the play tracker (a play, an unsure play, a track adopted as a played
card seen again, a rejected blob) it prints the track (first seen, still since, reads, origin,
centre, vote shares) and what the simulator really had under the track's centre at that
frame (code, role: trick / pile / stock / briscola / held, face up, occluded fraction), then the
events fed to the referee and its confirm / violation calls, all with their frame time.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import cv2
import numpy as np

from referee.vision.calibrate import calibrate_image
from referee.vision.simulator.result import DemoResult
from referee.vision.simulator.scoring import score
from referee.vision.simulator.stages import RecordingReferee, watch_stepper
from referee.vision.simulator.video import simulate_game


def under(frame: Any, point: tuple[float, float]) -> list[str]:
    """The true cards whose quad holds ``point`` (topmost last), as short descriptions."""
    out = []
    for card in frame.cards:
        quad = np.asarray(card.quad, np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(quad, (float(point[0]), float(point[1])), False) >= 0:
            side = "up" if card.face_up else "down"
            out.append(f"{card.code}/{card.role}/{side}/occ{card.occluded_fraction:.2f}{'/moving' if card.moving else ''}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="briscola-2")
    parser.add_argument("--deck", default="invido_regional_lowres/trevisane")
    parser.add_argument("--texture", default="tovaglia")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--oracle", action="store_true")
    parser.add_argument("--until", type=float, default=0.0, help="stop at this time (s), 0 = whole deal")
    parser.add_argument("--dets", default="", metavar="T0:T1", help="also print every frame's reads in this time span")
    args = parser.parse_args(argv)
    sim = simulate_game(args.game, deck=args.deck, seed=args.seed, fps=args.fps, texture=args.texture)
    family = "italian" if "_" in sim.plays[0].card else "french"
    frames = sim.frames()
    first = next(frames)
    layout = calibrate_image(first.image, sim.seats)
    ref = RecordingReferee()
    stepper, why = watch_stepper(sim, family, layout, ref, args.oracle)
    if stepper is None:
        print(why, file=sys.stderr)
        return 2
    tracker = stepper.live.tracker  # type: ignore[attr-defined]
    tracker.trace = []
    truth = iter(sim.plays)
    upcoming = next(truth, None)
    fed = 0
    span = tuple(float(v) for v in args.dets.split(":")) if args.dets else ()
    all_calls: list[dict[str, Any]] = []

    def chain() -> Any:
        yield first
        yield from frames

    for frame in chain():
        if args.until and frame.t > args.until:
            break
        ref.now = frame.t
        while upcoming is not None and upcoming.t <= frame.t:
            print(f"{frame.t:7.2f} TRUTH   {upcoming.seat} {upcoming.card} (trick {upcoming.trick})")
            upcoming = next(truth, None)
        seen = len(tracker.trace)
        calls = stepper.step(frame)
        all_calls += calls
        if span and span[0] <= frame.t <= span[1]:
            d = stepper.live.last  # type: ignore[attr-defined]
            reads = [(str(c), round(float(p), 2), [round(float(v)) for v in ce]) for c, p, ce in zip(d.card, d.confidence, d.centers, strict=True)]
            print(f"{frame.t:7.2f} READS   {reads}")
        for note in tracker.trace[seen:]:
            print(f"{frame.t:7.2f} TRACK   {json.dumps(note)}  under: {under(frame, note['centre'])}")
        for event in ref.fed[fed:]:
            print(f"{frame.t:7.2f} FED     {json.dumps(event)}")
        fed = len(ref.fed)
        for call in calls:
            if call.get("call") in ("confirm", "violation", "trick", "error", "deal_end"):
                print(f"{frame.t:7.2f} CALL    {json.dumps(call)}")
    result = DemoResult(calls=all_calls, events=ref.fed, truth_plays=[(p.seat, p.card) for p in sim.plays],
                        truth_calls=sim.truth_calls())
    sc = score(result)
    operator = stepper.operator  # type: ignore[attr-defined]
    print(f"# {sc.right}/{sc.plays} plays right, {sc.misread} misread, {sc.phantom} phantom, "
          f"{sc.winners_right}/{sc.tricks} trick winners, {operator.asked} confirms ({operator.refused} refused)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
