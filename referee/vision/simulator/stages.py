"""The vision stage of a simulated deal behind one small interface (:class:`Stepper`): the
simulator's ground truth (:class:`TruthStepper`) or ``referee watch``'s live loop
(:class:`WatchStepper`: finder + recogniser + tracker + arbiter, a simulated operator
answering its questions), over a referee that keeps what it was fed (:class:`RecordingReferee`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy.typing as npt

from referee.errors import RefereeError
from referee.rules import Referee
from referee.table.refused import Refused
from referee.table.session import TableSession
from referee.vision.simulator.operator import SimOperator

Event = dict[str, Any]
Call = dict[str, Any]


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
        self.session = TableSession(referee=referee)  # a table without a camera: every play is an event
        self._seen: list[SeenCard] = []

    def step(self, frame: Any) -> list[Call]:
        self._seen = [SeenCard(c.code, c.quad) for c in frame.cards
                      if c.face_up and not c.moving and c.occluded_fraction < 0.6]
        self.session.tick(frame.t)
        calls: list[Call] = []
        for event in frame.events:
            done = self.session.apply(event)
            if isinstance(done, Refused):  # the simulator's own truth: a refusal is a bug there
                raise RefereeError(f"simulated event refused at {frame.t:.2f} s: {done.detail}")
            calls += done
        return calls

    def seen(self) -> list[SeenCard]:
        return self._seen

    def banner(self, last_call: str) -> str:
        return last_call


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
        for question in self.loop.asked:
            self.operator.ask(question, frame.t)
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
        from referee.recognition.views import LIVE_VIEWS
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
            classifier = CardClassifier.load(family, threads=1, views=LIVE_VIEWS)
        except RefereeError as exc:
            return None, f"no {family} recogniser model ({exc})"
    live = LiveVision.create(layout, classifier, referee, apply_plays=False)
    if oracle:
        live.name = f"{live.name}, recogniser replaced by template matching (oracle)"
    loop = WatchLoop(live, referee, sim.game, sim.seats, trust_after=trust_after)
    return WatchStepper(loop, live, SimOperator(sim.plays, referee)), ""

