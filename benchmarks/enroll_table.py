"""Enrolment at the table, end to end on a simulated box: how long it takes and what it reads.

    nice -n 19 .venv/bin/python benchmarks/enroll_table.py [--decks italian-40 french-32 binocolo-48 french-52]
        [--seeds 1] [--frames 3] [--face-set invido_regional_lowres/napoletane] [--size 1280x720]

For each deck the simulator lays the cards out face up in the rows the box asks for
(:func:`referee.vision.enroll_grid.plan_grid`: as many layouts as the frame needs to keep every
card at least 80 px tall, at the box camera's usual card size), renders ``--frames`` camera
frames of each layout (the camera), and the box's enrolment runs on them exactly as
``referee enroll --camera`` and the box's "Enrol deck" run it: cards found and named by their
place, enrolled, the file written, every card read back with the new enrollment
(:mod:`referee.box.enrol_deck`). Printed per deck and seed: the plan (layouts, rows of how many,
card height), cards found, cards read right every time on read-back, cards the box would still
confuse (each with its pair and margin), and seconds: the box's own work (capture, enrol,
read-back), the simulated camera's rendering (a real camera delivers its frames at once) and
the two together. The target is the whole enrolment of a deck in under 2 minutes (the club's
laying out of the cards aside). One core; run it niced.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from referee.box.enrol_deck import DeckEnrolment, TableEnrolment, TableFrames, run_enrolment
from referee.cards import DECKS
from referee.errors import ConfigError
from referee.recognition import CardClassifier
from referee.vision.enroll_grid import plan_grid, table_order
from referee.vision.simulator import SimFrame
from referee.vision.simulator.deck_grid import LaidOutDeck

TARGET_S = 120.0


class TimedTable(LaidOutDeck):
    """The simulated table, its rendering timed apart (it stands for a camera's frames)."""

    rendering_s = 0.0

    def frames(self, count: int) -> Iterator[SimFrame]:
        start = time.perf_counter()
        out = list(super().frames(count))
        self.rendering_s += time.perf_counter() - start
        return iter(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", nargs="+", default=["italian-40", "french-32", "binocolo-48", "french-52"],
                        choices=sorted(DECKS))
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--frames", type=int, default=3, help="camera frames per layout")
    parser.add_argument("--face-set", default=None, help="a face set of ../shared/faces (default: the bundled one)")
    parser.add_argument("--size", default="1280x720", help="the camera's frame size")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    frame_size = (size[0], size[1])
    print(f"camera {frame_size[0]}x{frame_size[1]}, {args.frames} frames per layout, face set "
          f"{args.face_set or 'default'}; target < {TARGET_S:.0f} s per deck")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for deck in args.decks:
            family = "italian" if deck.startswith("italian") else "french"
            clf = CardClassifier.load(family, threads=1)
            face_set = args.face_set if args.face_set is None or (family == "italian") == (
                "french" not in args.face_set) else None
            order = table_order(family, deck)
            plan = plan_grid(len(order), family, frame_size)
            print(f"\n{deck}: {plan.describe()} ({plan.layouts} layout(s), cards {plan.card_px:.0f} px tall)")
            for seed in range(args.seeds):
                start = time.perf_counter()
                table = TimedTable(order, plan, seed=seed, face_set=face_set, frame_size=frame_size)
                session = DeckEnrolment(clf, order, plan, Path(tmp) / f"{deck}-{seed}.npz", copies=DECKS[deck].copies)
                frames = TableFrames(table=table, count=args.frames)
                try:
                    report = run_enrolment(TableEnrolment(session, frames))
                except ConfigError as exc:  # a layout not read, a card surely misplaced: nothing written
                    print(f"  seed {seed}: REFUSED after {time.perf_counter() - start:.1f} s: {exc}")
                    continue
                total = time.perf_counter() - start
                back = report.readback
                box_s = back.seconds
                worst = max(worst, box_s)
                print(f"  seed {seed}: found {back.cards}/{len(order)} cards, read back right {back.right}, "
                      f"confused {len(back.confused)}; box {box_s:.1f} s (capture+enrol+read-back), "
                      f"camera rendering {table.rendering_s:.1f} s, wall {total:.1f} s")
                for c in back.confused:
                    print(f"    confused: {c.describe()}")
    print(f"\nslowest deck: {worst:.1f} s of the box's work; target < {TARGET_S:.0f} s: "
          f"{'met' if worst < TARGET_S else 'MISSED'}")


if __name__ == "__main__":
    main()
