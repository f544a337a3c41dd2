"""Whole games as video: a legal game (or a replay log) acted out by hands on a table.

    game = simulate_game("briscola-4", deck="italian", seed=1)
    game.plays          # ground truth: [PlayTruth(seat, card, t, trick)], t = card lies still
    game.layout         # the true TableLayout (zones + the camera's homography)
    for frame in game.frames():   # SimFrame with .t (s), .index, .events (truth due by .t)
        ...

Each play: the seat's hand comes in from its edge with the card face up (motion blur),
lays it in front of its seat (tricks overlap in the middle), and goes back.  When a trick is
complete it lies still a moment, then the winner's hand gathers it to a face-down pile at its
seat.  Briscola games keep a stock with the briscola face up half under it, and every player
draws from it after each trick (the last draw takes the briscola).  Now and then a hand
passes over the table without playing.  Non-play events of the log (contracts, declarations)
ride along in ``frame.events`` at the time the operator would enter them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from referee.cards import parse_card
from referee.errors import RefereeError
from referee.rules import Referee, get_game
from referee.rules.playout import random_deal_events
from referee.vision.layout import TableLayout
from referee.vision.simulator.camera import CameraSpec
from referee.vision.simulator.random_scene import pick_face_set
from referee.vision.simulator.scene import CardSpec, HandSpec, SceneSpec, SimFrame, render_scene
from referee.vision.simulator.textures import texture_names

Event = dict[str, Any]

#: seconds for each motion (kept short: the demo renders and referees a whole game)
TIMING = {
    "approach": 0.5,   # hand brings a card to the play spot
    "withdraw": 0.35,  # empty hand goes back
    "settle": 1.2,     # a full trick lies still (everyone looks) before it is gathered
    "reach": 0.35,     # winner's hand reaches the trick
    "carry": 0.5,      # ... and carries it to the pile
    "draw": 0.25,      # each way, drawing from the stock
    "gesture": 0.4,    # each way, a hand passing over the table
    "pause": 0.3,      # between deal and first play, and at the end
    "think": 0.5,      # mean wait before a player reaches for the table (0.2-0.8 s)
}


class SimulationError(RefereeError, ValueError):
    """A replay log the simulator cannot act out (names the event)."""


@dataclass(frozen=True)
class PlayTruth:
    """A play as it happened: ``t`` is when the card was let go and lay still."""

    seat: str
    card: str
    t: float
    trick: int
    deal: int = 1


@dataclass(frozen=True)
class _Shot:
    """A stretch of video: still cards plus a function of local time giving the hands."""

    start: float
    duration: float
    cards: tuple[CardSpec, ...]
    hands: Callable[[float], tuple[HandSpec, ...]]


@dataclass
class SimulatedGame:
    """A game ready to render: its truth is known before a single frame is drawn."""

    game: str
    seats: tuple[str, ...]
    events: list[Event]
    face_set: str
    texture: str
    camera: CameraSpec
    layout: TableLayout
    fps: float
    card_height: float
    seed: int
    plays: list[PlayTruth] = field(default_factory=list)
    timed_events: list[tuple[float, Event]] = field(default_factory=list)
    shots: list[_Shot] = field(default_factory=list, repr=False)

    @property
    def duration(self) -> float:
        return self.shots[-1].start + self.shots[-1].duration if self.shots else 0.0

    @property
    def frame_count(self) -> int:
        return math.floor(self.duration * self.fps) + 1

    def truth_calls(self) -> list[dict[str, Any]]:
        """The referee's calls on the true event log (what a perfect pipeline would say)."""
        ref = Referee()
        out: list[dict[str, Any]] = []
        for event in self.events:
            out.extend(call.to_dict() for call in ref.apply(event))
        return out

    def frames(self, start: int = 0, stop: int | None = None) -> Iterator[SimFrame]:
        """Render frames ``start..stop`` (default: all); each carries the truth events due."""
        rng = np.random.default_rng(self.seed + 7919)
        stop = self.frame_count if stop is None else min(stop, self.frame_count)
        shot_i = 0
        ev_i = 0
        timed = sorted(self.timed_events, key=lambda te: te[0])
        for index in range(start, stop):
            t = index / self.fps
            while shot_i + 1 < len(self.shots) and self.shots[shot_i + 1].start <= t:
                shot_i += 1
            shot = self.shots[shot_i]
            local = min(max(t - shot.start, 0.0), shot.duration)
            spec = SceneSpec(
                cards=shot.cards,
                hands=shot.hands(local),
                face_set=self.face_set,
                texture=self.texture,
                texture_seed=self.seed,
                camera=self.camera,
                card_height=self.card_height,
            )
            frame = render_scene(spec, rng)
            due: list[Event] = []
            while ev_i < len(timed) and timed[ev_i][0] <= t + 1e-9:
                due.append(timed[ev_i][1])
                ev_i += 1
            yield replace(frame, t=round(t, 6), index=index, events=tuple(due))


def _ease(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return x * x * (3 - 2 * x)


def _lerp(a: tuple[float, float], b: tuple[float, float], x: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * x, a[1] + (b[1] - a[1]) * x)


def _moving_hand(
    edge: tuple[float, float], a: tuple[float, float], b: tuple[float, float], duration: float,
    skin: int, held: Callable[[tuple[float, float]], CardSpec | None] | None = None,
) -> Callable[[float], tuple[HandSpec, ...]]:
    """A hand whose fingertips glide from ``a`` to ``b`` (eased), maybe holding a card."""

    def at(t: float) -> tuple[HandSpec, ...]:
        x = _ease(t / duration)
        tip = _lerp(a, b, x)
        # derivative of the easing gives the speed that sets the motion blur
        u = min(max(t / duration, 0.0), 1.0)
        speed = 6 * u * (1 - u) / duration
        vel = ((b[0] - a[0]) * speed, (b[1] - a[1]) * speed)
        card = held(tip) if held is not None else None
        return (HandSpec(edge, tip, 95.0, vel, skin, card),)

    return at


def _carried(card: CardSpec, lift: float) -> Callable[[tuple[float, float]], CardSpec]:
    """``card`` travelling with the fingertips, held above the cloth."""

    def at(tip: tuple[float, float]) -> CardSpec:
        return replace(card, center=tip, role="held", lift=lift)

    return at


def _no_hands(_: float) -> tuple[HandSpec, ...]:
    return ()


class _Director:
    """Builds the shot list and the truth while walking the event log."""

    def __init__(self, sim: SimulatedGame, rng: random.Random, gestures: bool) -> None:
        self.sim = sim
        self.gestures = gestures
        self.rng = rng
        self.t = 0.0
        self.layout = sim.layout
        self.skins = {s: i % 5 for i, s in enumerate(sim.seats)}
        self.stock: list[CardSpec] = []
        self.stock_left = 0
        self.briscola: CardSpec | None = None
        self.trick: list[CardSpec] = []
        self.piles: dict[str, list[CardSpec]] = {s: [] for s in sim.seats}
        self.turned: CardSpec | None = None
        self.deals = 0
        # How far from the centre players lay their cards: some tables play tight, overlapping
        # tricks (up to ~40% hidden), others spread out.
        self.reach = rng.uniform(0.12, 0.22)

    # ---- helpers ------------------------------------------------------------------------
    def still(self) -> tuple[CardSpec, ...]:
        cards: list[CardSpec] = []
        if self.turned is not None:
            cards.append(self.turned)
        if self.briscola is not None:
            cards.append(self.briscola)
        cards += self.stock[-min(len(self.stock), 4):] if self.stock_left else []
        for seat in self.sim.seats:
            cards += self.piles[seat][-4:]
        return (*cards, *self.trick)

    def shot(self, duration: float, hands: Callable[[float], tuple[HandSpec, ...]] = _no_hands) -> None:
        self.sim.shots.append(_Shot(self.t, duration, self.still(), hands))
        self.t += duration

    def jitter(self, p: tuple[float, float], r: float) -> tuple[float, float]:
        return (p[0] + self.rng.uniform(-r, r), p[1] + self.rng.uniform(-r, r))

    def move(self, seat: str, a: tuple[float, float], b: tuple[float, float], key: str,
             held: Callable[[tuple[float, float]], CardSpec | None] | None = None) -> None:
        d = TIMING[key]
        self.shot(d, _moving_hand(self.layout.edge_point(seat), a, b, d, self.skins[seat], held))

    # ---- acts ---------------------------------------------------------------------------
    def deal(self, event: Event) -> None:
        if self.deals:
            # A new deal of a match: the old one's cards go back to be shuffled.
            self.trick, self.stock, self.briscola, self.turned = [], [], None, None
            self.piles = {s: [] for s in self.sim.seats}
            self.shot(TIMING["pause"] * 3)
        self.deals += 1
        game = get_game(self.sim.game)
        hand_size = _hand_size(self.sim.game, len(self.sim.seats))
        total = len(game.deck)
        trump = event.get("trump_card")
        self.stock_left = max(0, total - hand_size * len(self.sim.seats))
        if trump is not None:
            sx, sy = self.layout.stock_spot()
            self.briscola = CardSpec(str(trump), (sx + 45, sy + self.rng.uniform(-5, 5)),
                                     90 + self.rng.uniform(-8, 8), True, None, "briscola")
            angle = self.rng.uniform(-10, 10)
            self.stock = [CardSpec("back", (sx - 20 - k * 1.2, sy - k * 1.5), angle + self.rng.uniform(-2, 2),
                                   False, None, "stock") for k in range(4)]
            self.stock_left -= 1  # the briscola is the stock's last card
        turned = event.get("turned")
        if turned is not None:
            self.turned = CardSpec(str(turned), self.jitter(self.layout.stock_spot(), 10),
                                   self.rng.uniform(-20, 20), True, None, "turned")
        self.sim.timed_events.append((self.t, event))
        self.shot(TIMING["pause"] * 2)

    def other(self, event: Event) -> None:
        """Contracts, declarations...: entered by the operator, not seen by the camera."""
        if event.get("event") == "contract" and self.turned is not None:
            # The taker picks up the turned card (a face-up card that is never a play).
            seat = str(event.get("seat", self.sim.seats[0]))
            spot = self.turned.center
            self.move(seat, self.layout.edge_point(seat), spot, "reach")
            held = self.turned
            self.turned = None
            self.move(seat, spot, self.layout.edge_point(seat), "carry",
                      _carried(held, 20))
        self.sim.timed_events.append((self.t, event))
        self.shot(TIMING["pause"])

    def play(self, seat: str, code: str, trick_no: int) -> None:
        think = TIMING["think"]
        self.shot(self.rng.uniform(think * 0.4, think * 1.6))  # the table lies still a moment
        if self.gestures and self.rng.random() < 0.12:
            self.gesture()
        spot = self.jitter(self.layout.play_spot(seat, reach=self.reach), 14)
        angle = self.rng.uniform(-30, 30)
        start = self.layout.edge_point(seat)
        self.move(seat, start, spot, "approach",
                  lambda tip: CardSpec(code, tip, angle, True, seat, "held", lift=25))
        self.trick.append(CardSpec(code, spot, angle, True, seat, "trick"))
        truth = PlayTruth(seat, code, round(self.t, 6), trick_no, self.deals)
        self.sim.plays.append(truth)
        self.sim.timed_events.append((self.t, {"event": "play", "seat": seat, "card": code}))
        self.move(seat, spot, start, "withdraw")

    def gesture(self) -> None:
        """A hand sweeps over the middle and back: occludes, blurs, must not count as a play."""
        seat = self.rng.choice(self.sim.seats)
        over = self.jitter(self.layout.play_spot(seat, reach=0.05), 40)
        self.move(seat, self.layout.edge_point(seat), over, "gesture")
        self.move(seat, over, self.layout.edge_point(seat), "gesture")

    def gather(self, winner: str) -> None:
        self.shot(TIMING["settle"])
        centre = self.jitter(self.layout.play_spot(winner, reach=0.0), 10)
        self.move(winner, self.layout.edge_point(winner), centre, "reach")
        codes = [c.code for c in self.trick]
        self.trick = []
        pile = self.layout.pile_spot(winner)
        self.move(winner, centre, pile, "carry",
                  lambda tip: CardSpec(codes[-1], tip, 0.0, False, winner, "held", lift=15))
        for code in codes:
            self.piles[winner].append(CardSpec(code, self.jitter(pile, 5), self.rng.uniform(-12, 12) + 15,
                                               False, winner, "pile"))
        self.move(winner, pile, self.layout.edge_point(winner), "withdraw")

    def draws(self, winner: str) -> None:
        """After a trick in briscola: winner first, everyone draws one card from the stock."""
        if self.briscola is None and self.stock_left <= 0:
            return
        seats = list(self.sim.seats)
        order = seats[seats.index(winner):] + seats[: seats.index(winner)]
        target = self.layout.stock_spot()
        for seat in order:
            edge = self.layout.edge_point(seat)
            self.move(seat, edge, target, "draw")
            if self.stock_left > 0:
                self.stock_left -= 1
                self.move(seat, target, edge, "draw",
                          _carried(CardSpec("back", target, 0.0, False, seat), 15))
            elif self.briscola is not None:
                taken = self.briscola
                self.briscola = None
                self.move(seat, target, edge, "draw",
                          _carried(taken, 15))


def _hand_size(game: str, seats: int) -> int:
    return {"briscola-2": 3, "briscola-4": 3}.get(game, 0)


def simulate_game(
    game: str = "briscola-4",
    deck: str | None = None,
    seed: int = 0,
    events: Sequence[Mapping[str, Any]] | None = None,
    *,
    fps: float = 10.0,
    texture: str = "random",
    camera_strength: float = 1.0,
    size: tuple[int, int] = (1280, 720),
    card_height: float | None = None,
    gestures: bool = True,
) -> SimulatedGame:
    """Plan the video of one deal of ``game``: a random legal deal (``seed``) or ``events``.

    ``deck`` is ``italian``/``french`` (the default set of that family), a face set name
    (``invido_regional_lowres/napoletane``, see :func:`~referee.vision.simulator.face_sets`), or
    ``random`` (a random set of the game's family).  ``texture`` as in
    :func:`~referee.vision.simulator.textures.make_texture`.
    """
    rng = np.random.default_rng(seed)
    log = [dict(e) for e in events] if events is not None else random_deal_events(game, seed)
    first = next((e for e in log if e.get("event") == "deal"), None)
    if first is None:
        raise SimulationError("event log has no 'deal' event (line 1 should deal, or draw for the dealer)")
    game = str(first.get("game", game))
    seats = tuple(str(s) for s in first["seats"])
    family = "italian" if parse_card(next(iter(get_game(game).deck)).code).italian else "french"
    if deck in (None, "italian", "french"):
        if deck is not None and deck != family:
            raise SimulationError(f"game {game!r} is played with {family} cards, not {deck!r}")
        face_set = pick_face_set(family)
    elif deck == "random":
        face_set = pick_face_set(family, rng)
    else:
        face_set = deck
    camera = CameraSpec.random(rng, size=size, strength=camera_strength)
    layout = TableLayout.default(seats, size, camera.matrix)
    sim = SimulatedGame(
        game=game, seats=seats, events=log, face_set=face_set,
        texture=str(rng.choice(texture_names())) if texture == "random" else texture,
        camera=camera, layout=layout, fps=fps,
        card_height=card_height or float(rng.uniform(120, 140)), seed=seed,
    )
    _direct(sim, random.Random(seed), gestures)
    return sim


def _direct(sim: SimulatedGame, rng: random.Random, gestures: bool) -> None:
    director = _Director(sim, rng, gestures)
    ref = Referee()
    trick_no = 1
    for line, event in enumerate(sim.events, start=1):
        kind = event.get("event")
        try:
            calls = [c.to_dict() for c in ref.apply(event)]
        except RefereeError as exc:
            raise SimulationError(f"event log line {line}: {exc}") from exc
        if kind == "deal":
            director.deal(event)
            trick_no = 1
        elif kind == "play":
            director.play(str(event["seat"]), str(event["card"]), trick_no)
        else:
            director.other(event)
        for call in calls:
            if call.get("call") == "trick":
                director.gather(str(call["winner"]))
                director.draws(str(call["winner"]))
                trick_no += 1
    director.shot(TIMING["pause"] * 2)
