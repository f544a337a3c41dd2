"""``referee demo``: a simulated game on video, refereed end to end, with no camera.

    referee demo                                   # briscola-4, italian cards, seed 1
    referee demo --game belotta --seed 3 --out /tmp/demo

It renders the game (``referee.vision.simulator``), calibrates the table from the first frame's
ArUco mat, runs the vision stage on every frame, feeds the play events to the rules core, prints
the calls as JSON Lines and the final score, and writes to the output folder:
``annotated.mp4`` (quads, labels, seat zones, the current call), ``screens/`` (the box's OLED
screen for each call, as PNG), ``calls.jsonl``, ``events.jsonl`` and ``truth.jsonl``.

The vision stage is ``referee watch``'s live loop (finder + recogniser + play tracker +
confirmation of unsure plays) when a recogniser model is present; otherwise, or with
``--truth-vision``, the simulator's ground truth stands in behind the same interface, and the
demo says so.  Operator input (contracts, declarations, answers to confirm requests) comes from
a simulated operator who looks at the table, as the box's menu and buttons would give it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy.typing as npt

from referee.captions import call_text
from referee.errors import RefereeError
from referee.rules import Referee

Event = dict[str, Any]
Call = dict[str, Any]


# ---- the vision stage, behind one small interface ---------------------------------------------
@dataclass
class SeenCard:
    """A card the vision stage shows on the annotated frame."""

    card: str
    quad: npt.NDArray[Any]
    confidence: float = 1.0


class Stepper(Protocol):
    """One frame in (image, time, the simulation's events due), referee calls out."""

    name: str

    def step(self, frame: Any) -> list[Call]: ...

    def seen(self) -> list[SeenCard]: ...

    def banner(self, last_call: str) -> str: ...


class RecordingReferee(Referee):
    """The rules core, keeping every event it was fed (``fed``) and those it took (``accepted``).

    The benchmark scores what the camera fed: a play refused because an earlier miss ended
    the deal (tournament briscola forfeits an out-of-turn play) is still the camera's read.
    """

    def __init__(self) -> None:
        super().__init__()
        self.fed: list[Event] = []
        self.accepted: list[Event] = []
        self.now = 0.0  # time of the frame being processed (the demo sets it)
        self.fed_at: list[float] = []

    def apply(self, event: Any) -> list[Any]:
        if not isinstance(event, dict):  # the referee replaying its own log after an undo: not fed
            return super().apply(event)
        self.fed.append(dict(event))
        self.fed_at.append(self.now)
        calls = super().apply(event)
        self.accepted.append(dict(event))
        return calls


class TruthStepper:
    """The simulator's ground truth as the vision stage (when the real one is unavailable)."""

    name = "ground truth (simulator)"

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self._seen: list[SeenCard] = []

    def step(self, frame: Any) -> list[Call]:
        self._seen = [SeenCard(c.code, c.quad) for c in frame.cards
                      if c.face_up and not c.moving and c.occluded_fraction < 0.6]
        calls: list[Call] = []
        for event in frame.events:
            calls += [{**c.to_dict(), "t": round(frame.t, 2)} for c in self.referee.apply(event)]
        return calls

    def seen(self) -> list[SeenCard]:
        return self._seen

    def banner(self, last_call: str) -> str:
        return last_call


class SimOperator:
    """The person at the box: answers the camera's confirm requests by looking at the table.

    The answer is the card that seat really laid down and the referee has not got yet: the
    one lying there now for "is it this card?" (an older one the referee lost to a misread is
    gone from the table), the oldest for "did this seat play?" (a card gathered unseen); a
    request about a seat that has nothing new on the table is refused (no play).
    """

    def __init__(self, plays: Sequence[Any], referee: RecordingReferee) -> None:
        self.plays = list(plays)  # truth plays (seat, card, t)
        self.referee = referee
        self.pending: list[Event] = []
        self.asked = 0
        self.refused = 0  # asked about a seat that had laid nothing new: a false alarm

    def ask(self, call: Call, t: float) -> None:
        self.asked += 1
        # A multiset: binocolo's deck has two of every card, so one seat may lay the same code twice.
        standing = _standing_plays(self.referee.accepted)
        if call.get("premise"):  # "was that earlier card really X?": the card that seat laid there
            seat, k = str(call["seat"]), int(call.get("index", 0))
            nth = sum(1 for s, _ in standing[:k] if s == seat)
            laid = [p for p in self.plays if p.seat == seat]
            self.pending.append({"event": "confirm", "card": laid[nth].card} if nth < len(laid)
                                else {"event": "confirm", "accept": False})
            return
        got = Counter(standing)
        waiting = []
        for p in self.plays:
            if p.seat != call["seat"] or p.t > t + 1e-6:
                continue
            if got[(p.seat, p.card)] > 0:
                got[(p.seat, p.card)] -= 1
            else:
                waiting.append(p)
        if waiting:
            answer = waiting[0] if call.get("missed") else waiting[-1]
            self.pending.append({"event": "confirm", "card": answer.card})
        else:
            self.refused += 1
            self.pending.append({"event": "confirm", "accept": False})

    def answers(self) -> list[Event]:
        out, self.pending = self.pending, []
        return out


def _standing_plays(events: Sequence[Event]) -> list[tuple[str, str]]:
    """(seat, card) of the plays in ``events`` that were not taken back by a later undo."""
    plays: list[tuple[str, str]] = []
    for e in events:
        if e.get("event") == "play":
            plays.append((str(e.get("seat")), str(e.get("card"))))
        elif e.get("event") == "undo" and plays:
            plays.pop()
    return plays


class WatchStepper:
    """The live loop of ``referee watch`` (finder + recogniser + tracker + confirmations)."""

    def __init__(self, loop: Any, live: Any, operator: SimOperator) -> None:
        self.loop = loop
        self.live = live
        self.operator = operator
        self.name = str(live.name)

    def step(self, frame: Any) -> list[Call]:
        events = [e for e in frame.events if e.get("event") != "play"] + self.operator.answers()
        calls: list[Call] = self.loop.step(frame.image, frame.t, events)
        for call in calls:
            if call.get("call") == "confirm":
                self.operator.ask(call, frame.t)
        return calls

    def seen(self) -> list[SeenCard]:
        return [SeenCard(s.card, s.quad, s.confidence) for s in self.live.seen()]

    def banner(self, last_call: str) -> str:
        """The live loop's own text (it shows confirm requests and camera faults too)."""
        return "  ".join(t for t in (str(self.loop.last_text), str(self.loop.status_text)) if t) or last_call


def watch_stepper(
    sim: Any, family: str, layout: Any, referee: RecordingReferee, oracle: bool = False, trust_after: int = 0
) -> tuple[Stepper | None, str]:
    """The real pipeline as a :class:`Stepper`, or ``(None, why not)``.

    ``oracle`` swaps the learned recogniser for template matching against the simulated print
    (:mod:`referee.vision.simulator.oracle`), to measure finder + tracker on their own.
    ``trust_after``: the arbiter's (0: an out-of-turn play is always asked about first).
    """
    try:
        from referee.recognition import CardClassifier
        from referee.vision.live import LiveVision
        from referee.vision.watch import WatchLoop
    except ImportError as exc:
        return None, f"vision pipeline not available ({exc})"
    classifier: Any
    if oracle:
        from referee.vision.simulator.oracle import TemplateClassifier

        classifier = TemplateClassifier(sim.face_set, family)
    else:
        try:
            classifier = CardClassifier.load(family, threads=1)
        except RefereeError as exc:
            return None, f"no {family} recogniser model ({exc})"
    live = LiveVision.create(layout, classifier, referee, apply_plays=False)
    if oracle:
        live.name = f"{live.name}, recogniser replaced by template matching (oracle)"
    loop = WatchLoop(live, referee, sim.game, sim.seats, trust_after=trust_after)
    return WatchStepper(loop, live, SimOperator(sim.plays, referee)), ""


# ---- run ----------------------------------------------------------------------------------------
@dataclass
class DemoResult:
    """What a demo run produced (returned for tests and the benchmark)."""

    calls: list[Call] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # what the vision stage fed the referee
    truth_events: list[Event] = field(default_factory=list)
    truth_plays: list[tuple[str, str]] = field(default_factory=list)
    truth_calls: list[Call] = field(default_factory=list)
    vision: str = ""
    confirms: int = 0  # plays the camera was unsure of (the simulated operator answered)
    refused: int = 0  # ... of which the operator refused: the seat had laid nothing new
    delays: list[float] = field(default_factory=list)  # s from a card lying still to its play event
    frames: int = 0
    seconds: float = 0.0
    out: Path | None = None
    video: Path | None = None  # the annotated video written (None with --no-video)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="briscola-4", help="briscola-2, briscola-4, briscola-chiamata, belotta, binocolo")
    parser.add_argument("--deck", default=None,
                        help="italian|french (default: the game's), 'random', or a face set like "
                             "invido_regional_lowres/napoletane")
    parser.add_argument("--seed", type=int, default=1, help="which random game (and table) to simulate")
    parser.add_argument("--out", default="demo-out", help="output folder (made if missing)")
    parser.add_argument("--texture", default="check", help="table cloth: check, stripes, felt, wood, a texture "
                                                           "name, or random")
    parser.add_argument("--fps", type=float, default=10.0, help="simulated camera frame rate")
    parser.add_argument("--truth-vision", action="store_true",
                        help="use the simulator's ground truth instead of the vision pipeline")
    parser.add_argument("--oracle", action="store_true",
                        help="template matching against the simulated print instead of the recogniser "
                             "(measures finder + tracker alone)")
    parser.add_argument("--trust-after-tricks", type=int, default=0, metavar="N",
                        help="call an out-of-turn play without asking once the camera saw N whole tricks "
                             "in a row (default 0: always ask whether the seat on turn played first)")
    parser.add_argument("--no-video", action="store_true", help="skip writing annotated.mp4")
    parser.add_argument("--quiet", action="store_true", help="print only the final score")


def run(args: argparse.Namespace) -> int:
    try:
        result = run_demo(
            game=args.game, deck=args.deck, seed=args.seed, out=Path(args.out), texture=args.texture,
            fps=args.fps, truth_vision=args.truth_vision, video=not args.no_video, quiet=args.quiet,
            oracle=args.oracle, trust_after=args.trust_after_tricks,
        )
    except RefereeError as exc:
        print(f"referee demo: {exc}", file=sys.stderr)
        return 2
    return 0 if result.calls else 1


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
) -> DemoResult:
    """Simulate, referee and record one deal; see the module docstring.

    ``record``: also save every frame's detections (and the truth) to this file, to replay
    the tracker and the arbiter on them in seconds (:func:`replay_demo`).  ``trust_after``: the
    arbiter's opt-in out-of-turn calls without asking (0, the default: always ask first)."""
    from referee.vision.calibrate import calibrate_image
    from referee.vision.layout import LayoutError
    from referee.vision.simulator.video import simulate_game

    started = time.perf_counter()
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

    result = DemoResult(vision=stage.name, out=out, video=out / "annotated.mp4" if video else None)
    writer = _VideoWriter(result.video, fps) if result.video is not None else None
    screens = _ScreenWriter(out / "screens", say)
    last_call = ""
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
            last_call = call_text(call) or last_call
            if not quiet:
                print(json.dumps(call), flush=True)
        if writer is not None:
            writer.write(_annotate(frame.image, layout, stage.seen(), stage.banner(last_call), frame.t))
        result.frames += 1
    if writer is not None:
        writer.close()
    screens.final(result.calls)
    _dump(out / "calls.jsonl", result.calls)
    result.events = ref.fed
    result.delays = _delays(ref, sim.plays)
    if isinstance(stage, WatchStepper):
        result.confirms = stage.operator.asked
        result.refused = stage.operator.refused
    # with the frame time each was fed at, to line up with truth.jsonl and calls.jsonl
    _dump(out / "events.jsonl", [{**e, "t": round(t, 2)} for e, t in zip(result.events, ref.fed_at, strict=True)])
    _dump(out / "truth.jsonl", [{"seat": p.seat, "card": p.card, "t": p.t} for p in sim.plays])
    result.seconds = time.perf_counter() - started
    result.truth_plays = [(p.seat, p.card) for p in sim.plays]
    result.truth_calls = sim.truth_calls()
    if record is not None and isinstance(stage, WatchStepper) and stage.live.record is not None:
        _save_recording(record, Recording(sim.game, tuple(sim.seats), list(sim.plays), result.truth_calls, layout,
                                          timed_events, stage.live.record, stage.name, family))
    _summary(result, say)
    return result


# ---- record and replay --------------------------------------------------------------------------
@dataclass
class Recording:
    """One deal's detections and truth (``run_demo(record=...)``), for :func:`replay_demo`."""

    game: str
    seats: tuple[str, ...]
    plays: list[Any]  # PlayTruth
    truth_calls: list[Call]
    layout: Any
    frames: list[tuple[float, list[Event]]]  # each frame's time and the simulation's events
    detections: list[tuple[float, Any]]  # each frame's time and Detections
    vision: str
    family: str


def _save_recording(path: Path, recording: Recording) -> None:
    import pickle  # a local cache the benchmark wrote itself, read back by the same code

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(recording))


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
    import pickle

    from referee.vision.live import LiveVision, ReplayedVision
    from referee.vision.watch import WatchLoop

    started = time.perf_counter()
    try:
        recording = pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError) as exc:
        raise RefereeError(f"replay: cannot read {path}: {exc}") from exc
    if not isinstance(recording, Recording):
        raise RefereeError(f"replay: {path} is not a recording of vision_e2e.py --record")
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
    result.delays = _delays(ref, recording.plays)
    result.confirms, result.refused = stage.operator.asked, stage.operator.refused
    result.truth_plays = [(p.seat, p.card) for p in recording.plays]
    result.truth_calls = recording.truth_calls
    result.seconds = time.perf_counter() - started
    return result


# ---- pieces -------------------------------------------------------------------------------------
def _printer(quiet: bool) -> Any:
    def say(text: str, always: bool = False) -> None:
        if always or not quiet:
            print(text, flush=True)

    return say


def _chain(first: Any, rest: Any) -> Any:
    yield first
    yield from rest


def _annotate(image: npt.NDArray[Any], layout: Any, seen: list[SeenCard], text: str, t: float) -> npt.NDArray[Any]:
    from referee.vision.annotate import annotate

    out: npt.NDArray[Any] = annotate(image, layout, seen, text, t)
    return out


class _VideoWriter:
    def __init__(self, path: Path, fps: float) -> None:
        from referee.vision.annotate import AnnotatedVideo

        self.path = path
        self._video = AnnotatedVideo(path, fps)

    def write(self, image: npt.NDArray[Any]) -> None:
        self._video.write(image)

    def close(self) -> None:
        self._video.close()


class _ScreenWriter:
    """The box's OLED screen for each call, as PNG (skipped with a note if the box is missing)."""

    def __init__(self, folder: Path, say: Any) -> None:
        self.folder = folder
        self.count = 0
        try:
            from referee.box import screens
        except ImportError as exc:  # pragma: no cover - the box ships with the package
            say(f"# NOTE: no display screens: referee.box.screens not available ({exc})")
            self._screens: Any = None
            return
        self._screens = screens
        folder.mkdir(parents=True, exist_ok=True)

    def add(self, call: Call) -> None:
        if self._screens is None:
            return
        if call.get("call") == "confirm":  # the box asks the table with its confirm screen
            if call.get("card"):  # "did this seat play?" names no card: the box's menu asks it
                self._save(self._screens.ConfirmScreen.for_question(call, str(call["card"])), "confirm")
            return
        made = self._screens.screen_for_call(call)
        if made is None:
            return
        screen, kind = made
        self._save(screen, kind)

    def final(self, calls: list[Call]) -> None:
        """The running-score screen as the deal ends."""
        if self._screens is None:
            return
        ends = [c for c in calls if c.get("call") == "deal_end"]
        if ends:
            points = sorted(ends[-1]["points"].items())
            self._save(self._screens.ScoreScreen(points), "score")

    def _save(self, screen: Any, kind: str) -> None:
        self.count += 1
        image = self._screens.render(screen, "it")
        image.save(self.folder / f"{self.count:03d}_{kind}.png")


def _dump(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@dataclass(frozen=True)
class Score:
    """Vision against the truth for one deal."""

    plays: int  # true plays
    right: int  # true plays fed to the referee with the right card and seat
    misread: int  # plays fed for a seat that did play, but with another card
    phantom: int  # plays fed for a seat that had played nothing more
    tricks: int  # true tricks
    winners_right: int  # tricks whose winner the referee got right


def score(result: DemoResult) -> Score:
    """Compare the vision's play events with the truth, one to one.

    Exact (seat, card) matches first; a leftover fed play of a seat with a leftover true play
    is a misread, any other leftover is a phantom.
    """
    truth = list(result.truth_plays)
    played: list[tuple[str, str]] = []
    for event in result.events:
        if event.get("event") == "play":
            played.append((str(event["seat"]), str(event["card"])))
        elif event.get("event") == "undo" and played:
            played.pop()  # a play replaced after the operator confirmed a correction
    unmatched = list(truth)
    leftovers = []
    for play in played:
        if play in unmatched:
            unmatched.remove(play)
        else:
            leftovers.append(play)
    misread = 0
    for seat, _ in leftovers:
        same_seat = next((p for p in unmatched if p[0] == seat), None)
        if same_seat is not None:
            unmatched.remove(same_seat)
            misread += 1
    right = len(played) - len(leftovers)
    true_tricks = [(c["number"], c["winner"]) for c in result.truth_calls if c["call"] == "trick"]
    got_tricks = {(c["number"], c["winner"]) for c in result.calls if c["call"] == "trick"}
    winners = sum(1 for t in true_tricks if t in got_tricks)
    return Score(len(truth), right, misread, len(leftovers) - misread, len(true_tricks), winners)


def _delays(ref: RecordingReferee, plays: Sequence[Any]) -> list[float]:
    """Seconds from each true play (card let go) to the referee getting it right."""
    waiting = list(plays)
    out = []
    for event, t in zip(ref.fed, ref.fed_at, strict=True):
        if event.get("event") != "play":
            continue
        match = next((p for p in waiting if (p.seat, p.card) == (event.get("seat"), event.get("card"))), None)
        if match is not None:
            waiting.remove(match)
            out.append(round(t - match.t, 3))
    return out


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
