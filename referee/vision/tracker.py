"""Play events from identified cards over time: still long enough, read consistently, seat known.

    tracker = PlayTracker(seat_of=layout.seat_of, zone_of=layout.zone_of, rules=RefereeView(ref))
    for frame in source:
        for event in tracker.update(pipeline.process(frame.image), frame.t):
            ...   # {"event": "play", "seat": "W", "card": "coppe_3", "confidence": 0.97, "t": 12.3}

Rules of thumb, each a guard against a named failure:

* **No phantom plays.**  A card becomes a play only after lying still for ``still_s`` (default
  0.3 s) over at least ``min_frames`` reads; a card carried by a hand moves, so it never
  qualifies, and a hand passing over the table has no card stock to find.
* **No lost plays.**  Tracks of played cards are never deleted by occlusion: they are kept as
  *remembered spots* until their trick is over and they have been gone ``gone_s``.  A card that
  reappears on its own spot is the same card again, never a second play; a sure read of
  another possible card there is a new card only when it lies nearest another seat's spot or
  the old card's trick is over, it has not been read as itself for a moment and it does not
  lie as the old card lay (a card laid down never lands on the same centre and angle as the
  one before it; the old card, half covered by the next trick's cards, can be read surely as
  another card exactly where it lies).
* **No wrong seat.**  The seat is the zone the card *came from* (where the track was first seen,
  normally at the player's edge as the hand brings it in), else the zone where it lies: where
  it was read as the card it is played as (a track can settle on a quad fitted beside it).
* **Rules help reading.**  Identity is a confidence-weighted vote over the frames the card was
  still, top-k included.  A winner the rules make impossible (already played, not in the deck)
  falls back to the best plausible card, flagged ``uncertain``; a weak vote is flagged too.
  Besides the mean, distinct sure reads, a crop that settled on one sure read, and reads that
  only put an already-played neighbour first are evidence (:meth:`PlayTracker._read_surely`);
  a sure read of another possible card from the very same place is evidence against.
  Uncertain plays carry ``"uncertain": true`` and their ``alternatives``, so the caller asks
  the operator (a ``confirm``) instead of guessing.
* **A sure misread can be put right.**  A camera play whose card, still lying in its trick, is
  re-read surely as another possible card is doubted once: a play event with ``"correction"``
  (the card it was played as), for the arbiter to ask about.
* Cards in the stock zone (the briscola under the stock, belotta's turned card) and outside the
  mat are never plays.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from referee.cards import BACK, parse_card
from referee.errors import BadCardError
from referee.vision.detections import Detections

Point = tuple[float, float]
#: where and how a read's quad lay: centre x, y and its long side's angle (degrees, mod 180)
Pose = tuple[float, float, float]
#: zones where a card is never a play
NOT_PLAY_ZONES = frozenset({"stock", "outside"})


class RulesView(Protocol):
    """What the tracker asks the rules core (see :class:`RefereeView`)."""

    def plausible(self, card: str) -> bool: ...
    def trick_number(self) -> int: ...
    def has_played(self, seat: str) -> bool: ...
    def turn(self) -> str | None: ...


@dataclass(frozen=True)
class TrackerConfig:
    still_s: float = 0.3
    min_frames: int = 3
    #: a card whose centre moves more than this fraction of its long side is moving
    still_frac: float = 0.15
    #: ... unless the read lies near one of this many other spots within ``same_card`` of where
    #: it settled: the finder fits one still card now whole, now spanning part of its
    #: neighbour, frame after frame (a card in a hand keeps reaching new places)
    still_spots: int = 3
    #: vote share (mean probability of the winner) needed for a confident play
    accept_share: float = 0.75
    #: a winner between ``accept_share`` and this is played only after ``max_wait_s`` of reads:
    #: a quad fitted a little off reads as a neighbouring rank (bastoni_7 as bastoni_5 at ~0.82)
    #: frame after frame, and only the next, better fits show the true card
    sure_share: float = 0.9
    #: ... or once this many distinct reads (not the read cache's copies) were sure of the
    #: winner, each at least ``sure_share``, and no read put another possible card first at
    #: ``contrary_p`` or more: a still card whose quad is fitted well only every other frame
    #: (the others span part of its neighbour and read the same card at ~0.6) averages below
    #: the shares above, yet its identity was never in doubt
    sure_reads: int = 2
    contrary_p: float = 0.5
    #: ... or once the same sure read came back this many frames running (see _read_surely)
    settled_reads: int = 5
    #: below this share even after waiting, the "card" is ignored (a hypothesis, a shadow)
    min_share: float = 0.2
    #: how long a still card may be read before an unsure vote becomes a confirm request
    max_wait_s: float = 1.0
    #: an unseen unplayed track is dropped after this
    lost_s: float = 0.6
    #: a played card of a finished trick that has been gone this long is forgotten
    gone_s: float = 1.0
    #: ... and any played card gone this long is forgotten, whatever the rules think of its
    #: trick (a misread trick must not keep its spots forever)
    long_gone_s: float = 3.0
    #: two play spots this close (ratio of distances) are a tie the rules' turn decides
    spot_tie: float = 1.3
    #: association radius for moving (unplayed) tracks, in card long sides
    reach: float = 1.5
    #: a track that travelled this many card long sides is attributed to where it came from
    origin_travel: float = 1.5
    #: two reads whose centres are this close (card long sides) are one physical card: the
    #: finder's second hypothesis of it (cards of a trick overlap by at most ~40%)
    same_card: float = 0.4
    #: a read this close to a card its seat already played, nearest that seat's play spot, is
    #: that card again (re-read as something else when the next card half covers it)
    same_seat_reach: float = 0.6
    #: zones where a card may become a play (None: any but the stock and outside); the won
    #: piles, the stock and cards in a hand held by the table's edge lie outside the play area
    play_zones: frozenset[str] | None = frozenset({"play"})
    #: a played card whose trick has been over this long is forgotten even if something is
    #: still read on its spot (its re-reads must not keep it alive to swallow the next trick)
    finished_s: float = 6.0
    #: how long a card that lay still but never became a play counts as evidence of a missed play
    missed_memory_s: float = 30.0
    #: a sure play read surely as another possible card this many times (distinct reads, and
    #: twice as often as itself) on its very spot while its trick is on the table is put to the operator
    #: again (a ``correction``); 0: never
    doubt_reads: int = 3
    #: a played card of a finished trick not read as itself for this long no longer swallows a
    #: sure read of another possible card on its spot: the next trick's card laid there
    replaced_s: float = 0.3
    #: ... and only once its trick has been over this long: a trick card half covered by the
    #: next cards can be read surely as another card the moment its trick ends (briscola
    #: chiamata seed 1 on check, vision_e2e --seeds 3, the recalibrated Italian model: C's
    #: denari_3, 48% hidden, read denari_2 at 0.99 0.4 s after its trick was over, became the
    #: next trick's lead and every later trick went out of step); gathering takes longer
    replace_after_s: float = 1.0
    #: ... and only when the read does not lie as the old card lay: a card laid down almost
    #: never lands within this fraction of a card's long side of where the card before it lay
    #: *and* within ``pose_deg`` of its angle, but the old card re-read does, however it is
    #: read (see :meth:`PlayTracker._same_pose`)
    pose_frac: float = 0.08
    pose_deg: float = 4.0


@dataclass
class Track:
    id: int
    centre: Point
    origin: Point  # first sighting: where the card came from
    size: float  # card long side (px)
    first_t: float
    last_t: float
    anchor: Point
    still_since: float
    #: other centres the still card's quads were fitted at (see ``TrackerConfig.still_spots``)
    spots: list[Point] = field(default_factory=list)
    votes: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    reads: int = 0
    moved: bool = False  # seen at two places before settling: origin is meaningful
    played: str | None = None  # the card code once it was played
    seat: str | None = None  # the seat it was played by
    finished_t: float | None = None  # when its trick was seen over
    trick: int = 0  # the rules' trick number when it was played
    rejected: bool = False  # read for long and never even a little sure: not a card
    self_t: float = 0.0  # when a played card was last read as itself (or was played, named)
    named: bool = False  # the operator said what it is: never doubted
    after: list[tuple[str, float]] = field(default_factory=list)  # reads on its spot once played
    doubted: bool = False  # a correction was asked about it already
    #: poses of its reads since it lay still (with what each read put first); once played,
    #: only those read as the played card, and its later reads as itself
    poses: list[tuple[Pose, str]] = field(default_factory=list)

    last_vote: list[tuple[str, float]] = field(default_factory=list)  # this frame's read
    history: list[list[tuple[str, float]]] = field(default_factory=list)  # each frame's read

    def vote(self, top: Sequence[tuple[str, float]], pose: Pose) -> None:
        for code, p in top:
            self.votes[code] += float(p)
        self.reads += 1
        self.last_vote = list(top)
        if top:
            self.history.append([(str(c), float(p)) for c, p in top])
            self.poses.append((pose, str(top[0][0])))  # one per read while unplayed

    def pose(self) -> Pose:
        """Where it lies and its latest read's angle (NaN, matching no pose, when unknown)."""
        angle = self.poses[-1][0][2] if self.poses else float("nan")
        return (self.centre[0], self.centre[1], angle)

    def clear_votes(self) -> None:
        self.votes.clear()
        self.reads = 0
        self.history = []
        self.poses = []

    def revote(self, top: Sequence[tuple[str, float]], pose: Pose) -> None:
        """Another hypothesis of this card in the same frame: one read per frame, the surer one
        (a quad off by half a card reads as some other card, rarely with confidence)."""
        if not self.last_vote or _sureness(top) > _sureness(self.last_vote):
            for code, p in self.last_vote:
                self.votes[code] -= float(p)
            if self.last_vote:
                self.reads -= 1
                self.history.pop()
                self.poses.pop()
            self.vote(top, pose)


class PlayTracker:
    """``update(detections, t) -> [play event dicts]``; see the module docstring."""

    def __init__(
        self,
        seat_of: Callable[[Sequence[float]], str],
        zone_of: Callable[[Sequence[float]], str] | None = None,
        rules: RulesView | None = None,
        config: TrackerConfig | None = None,
        play_spots: Mapping[str, Point] | None = None,
    ) -> None:
        self.seat_of = seat_of
        self.play_spots = dict(play_spots or {})
        self.zone_of = zone_of
        self.rules = rules
        self.config = config or TrackerConfig()
        self.tracks: list[Track] = []
        self._next_id = 0
        #: long sides of recent reads: the card size (a quad spanning two cards is no measure)
        self._sizes: deque[float] = deque(maxlen=300)
        self._size = 0.0
        self._now = 0.0  # time of the latest frame
        #: still cards in the play area that never became plays (unreadable, lost): evidence
        #: that a play may have been missed, newest last
        self.unexplained: list[Track] = []
        #: why each track became a play, was adopted or rejected (``trace=True``; diagnosis)
        self.trace: list[dict[str, Any]] | None = None

    def reset(self) -> None:
        """A new deal: nothing on the table is a play of it."""
        self.tracks = []
        self.unexplained = []

    def missed_since(self, t: float) -> Track | None:
        """The latest card that lay still in the play area since ``t`` without becoming a play
        (read too unsure, lost, or still being read): a play the camera may have missed."""
        cfg = self.config
        pending = [
            tr for tr in self.tracks
            if tr.played is None and tr.reads >= cfg.min_frames and tr.last_t - tr.still_since >= cfg.still_s - 1e-6
            and self._in_play_zone(tr.centre)
        ]
        candidates = [tr for tr in [*self.unexplained, *pending] if tr.still_since >= t - 1e-6]
        return max(candidates, key=lambda tr: tr.still_since) if candidates else None

    def spot_clear(self, seat: str, t: float) -> bool:
        """Whether ``seat``'s play spot is known and no card seen within the last second lies
        on or near it (so no card of that seat can be hidden there, e.g. under the next one)."""
        spot = self.play_spots.get(seat)
        if spot is None:
            return False
        size = self._size or max((tr.size for tr in self.tracks), default=0.0)
        return not any(
            t - tr.last_t <= 1.0 and np.hypot(tr.centre[0] - spot[0], tr.centre[1] - spot[1]) < 0.8 * size
            for tr in self.tracks
        )

    def trick_on_table(self, cards: Collection[str]) -> bool:
        """Whether any of a trick's ``cards`` (as the referee has them) was on the table within
        the last ``gone_s``: all of them gone at once that long were gathered (a hand hides one
        or two).  Cards the operator named are known by :meth:`settle`."""
        return any(
            tr.played in cards and self._now - tr.last_t <= self.config.gone_s for tr in self.tracks
        )

    def settle(self, track_id: int | None, card: str, seat: str) -> None:
        """The operator said what track ``track_id`` was: it is that played card from now on.

        With no track (the camera never saw the card lie still), the card is remembered on
        ``seat``'s play spot, taking over any unplayed track there: its later reads, however
        bad, must not become a play of their own."""
        found = [tr for tr in [*self.tracks, *self.unexplained] if track_id is not None and tr.id == track_id
                 and not self._someone_elses(tr, card, seat)]
        if not found and seat in self.play_spots:
            found = [self._on_spot(seat)]
        for track in found[:1]:
            track.played, track.seat, track.rejected, track.named = card, seat, False, True
            track.trick = self.rules.trick_number() if self.rules is not None else 0
            track.last_t = max(track.last_t, self._now)
            track.self_t = self._now
            if track in self.unexplained:
                self.unexplained.remove(track)
            if track not in self.tracks:
                self.tracks.append(track)

    def _someone_elses(self, track: Track, card: str, seat: str) -> bool:
        """Whether the track a question was about is another seat's card, not the ``card`` the
        operator named for ``seat``: it lies nearest another seat's play spot and reads best as
        some other card.  Briscola-4 seed 1: asked whether S played (guess: N's bastoni_9, still
        being read), the operator named S's bastoni_10; settling N's card as S's lost N's play."""
        if track.played is not None or not self.play_spots or not track.votes:
            return False
        best = max(track.votes.items(), key=lambda kv: kv[1])[0]
        return best != card and self._seat_of_spot(track.centre, use_turn=False) != seat

    def _on_spot(self, seat: str) -> Track:
        """The unplayed track nearest ``seat``'s play spot (within reach), else a new one there."""
        spot = self.play_spots[seat]
        size = self._size or 100.0
        near = [tr for tr in self.tracks if tr.played is None
                and np.hypot(tr.centre[0] - spot[0], tr.centre[1] - spot[1]) < self.config.same_seat_reach * size]
        if near:
            return min(near, key=lambda tr: float(np.hypot(tr.centre[0] - spot[0], tr.centre[1] - spot[1])))
        track = Track(self._next_id, spot, spot, size, self._now, self._now, spot, self._now)
        self._next_id += 1
        return track

    def best_guess(self, track: Track) -> str | None:
        """The most voted plausible card of ``track`` (for a question about a missed play)."""
        ranked = sorted(track.votes.items(), key=lambda kv: -kv[1])
        return next((c for c, _ in ranked if c != BACK and self._plausible(c)), None)

    def update(self, dets: Detections, t: float) -> list[dict[str, Any]]:
        self._now = t
        dets = self._playable(dets)
        self._associate(dets, t)
        events = []
        for lost in self._expire(t):
            # A card that lay still long enough but vanished before its read settled (the
            # trick was gathered at once): better an unsure play the operator checks than none.
            if lost.last_t - lost.still_since >= self.config.still_s - 1e-6:
                event = self._maybe_play(lost, t, force=True)
                if event is not None:
                    events.append(event)
                elif lost.reads >= self.config.min_frames and self._in_play_zone(lost.centre):
                    self._unexplained(lost, t)
        for track in sorted(self.tracks, key=lambda tr: tr.still_since):
            event = self._maybe_play(track, t)
            if event is None:
                continue
            # Plays must reach the rules in the order they were laid: a card that settled
            # earlier but is still being read is decided now (unsure if need be), first.
            for earlier in self._undecided_before(track):
                forced = self._maybe_play(earlier, t, force=True)
                if forced is not None:
                    events.append(forced)
            events.append(event)
        return events + self._doubts(t)

    def _doubts(self, t: float) -> list[dict[str, Any]]:
        """Corrections: sure plays whose card, still lying in the trick in progress, has since
        been read surely as another possible card, twice as often as itself (see
        ``TrackerConfig.doubt_reads``).  A ``play`` event with ``"correction"``: the card it was
        played as; the arbiter asks the operator before changing anything."""
        cfg = self.config
        if cfg.doubt_reads <= 0 or self.rules is None:
            return []
        current = self.rules.trick_number()
        out: list[dict[str, Any]] = []
        for track in self.tracks:
            if track.played is None or track.named or track.doubted or track.trick != current:
                continue
            sure: dict[str, set[float]] = defaultdict(set)
            for code, p in track.after:
                if code != BACK and p >= cfg.sure_share:
                    sure[code].add(p)
            own = len(sure.pop(track.played, set()))
            found = [(c, ps) for c, ps in sure.items() if len(ps) >= max(cfg.doubt_reads, 2 * own)
                     and self._plausible(c)]
            if not found:
                continue
            card, ps = max(found, key=lambda kv: len(kv[1]))
            track.doubted = True
            self._note(track, t, "doubt", card=card, was=track.played)
            out.append({"event": "play", "seat": track.seat, "card": card, "correction": track.played,
                        "confidence": round(float(np.mean(sorted(ps))), 3), "t": round(t, 3), "track": track.id,
                        "uncertain": True, "alternatives": [track.played]})
        return out

    def _undecided_before(self, track: Track) -> list[Track]:
        cfg = self.config
        return [
            other for other in sorted(self.tracks, key=lambda tr: tr.still_since)
            if other.played is None and other is not track and other.still_since < track.still_since
            and other.reads >= cfg.min_frames and track.last_t - other.still_since >= cfg.still_s - 1e-6
        ]

    # -- steps ---------------------------------------------------------------------------
    def _playable(self, dets: Detections) -> Detections:
        if self.zone_of is None or not len(dets):
            return dets
        zones = [self.zone_of(tuple(float(v) for v in c)) for c in dets.centers]
        return dets[np.array([z not in NOT_PLAY_ZONES for z in zones], bool)]

    def _associate(self, dets: Detections, t: float) -> None:
        """Played cards absorb every read of their own spot; the rest is greedy nearest matching,
        and a leftover read on top of a card being read is a second hypothesis of it."""
        centres = dets.centers
        sizes = np.maximum(
            np.linalg.norm(dets.quad[:, 2] - dets.quad[:, 1], axis=1),
            np.linalg.norm(dets.quad[:, 1] - dets.quad[:, 0], axis=1),
        ) if len(dets) else np.zeros(0)
        points = [(float(c[0]), float(c[1])) for c in centres]
        angles = _long_side_angles(dets.quad)
        self._sizes.extend(float(v) for v in sizes)
        self._size = float(np.median(self._sizes)) if self._sizes else 0.0
        used_d = {di for di in range(len(dets))
                  if self._absorbed((*points[di], angles[di]), t, _top(dets, di)[0])}
        pairs: list[tuple[float, int, int]] = []
        for ti, track in enumerate(self.tracks):
            if track.played is not None:
                continue
            reach = self._reach(track, t)
            for di in range(len(dets)):
                d = float(np.hypot(points[di][0] - track.centre[0], points[di][1] - track.centre[1]))
                if di not in used_d and d < reach:
                    same = str(dets.card[di]) in track.votes
                    pairs.append((d * (0.5 if same else 1.0), ti, di))
        pairs.sort()
        used_t: set[int] = set()
        for _, ti, di in pairs:
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            self._observe(self.tracks[ti], dets, di, (*points[di], angles[di]), t)
        for di in range(len(dets)):
            if di in used_d:
                continue
            twin = self._twin(points[di])
            if twin is not None:
                if twin.last_t < t:  # not matched this frame: this is its read
                    twin.last_vote = []
                twin.revote(_top(dets, di), (*points[di], angles[di]))  # the finder's second hypothesis of one card
                twin.last_t = t
            else:
                self._new_track(dets, di, (*points[di], angles[di]), float(sizes[di]), t)

    def _reach(self, track: Track, t: float) -> float:
        """How far from an unplayed track a read may be to be its card: a card in a hand
        travels (``reach`` card lengths a frame); one that lay still, read again and again, is
        found where it lies (``same_card``).  Briscola-4 seed 1: N's bastoni_3, read at ~0.9
        for a second, unseen for half a second, took the first read of W's card 77 px away as
        its own and lost its votes (a missed-play question about N)."""
        cfg = self.config
        settled = track.reads >= cfg.min_frames and track.last_t - track.still_since >= cfg.still_s - 1e-6
        return (cfg.same_card if settled else cfg.reach) * track.size

    def _absorbed(self, pose: Pose, t: float, read: tuple[str, float]) -> bool:
        """A read of a played card's own spot: whatever it reads as now (half hidden under the
        next card, blurred by a hand, the finder's quad drifting), it is that card, not a new one
        (unless it is the next trick's card laid where a gathered one lay).  Of several played
        cards near, the one it reads as, else the nearest, keeps being seen: briscola-2 seed 2's
        last trick, N's bastoni_2 read every frame on N's spot kept alive the spade_10 the
        operator had named there a trick before, so the trick seemed gathered and S's card,
        read surely, became a question."""
        cfg = self.config
        point = pose[:2]
        near: list[tuple[bool, float, Track]] = []
        for track in self.tracks:
            if track.played is None:
                continue
            d = float(np.hypot(point[0] - track.centre[0], point[1] - track.centre[1]))
            if self._replaced(track, read[0], float(read[1]), t, pose):
                continue
            size = self._card(track)
            if d < cfg.same_card * size or (
                    d < cfg.same_seat_reach * size and track.seat is not None
                    and self._seat_of_spot(point, use_turn=False) == track.seat):
                near.append((track.played != read[0], d, track))
        if not near:
            return False
        _, d, track = min(near, key=lambda n: (n[0], n[1]))
        track.last_t = t
        if read[0] == track.played:
            track.self_t = t
        if d <= cfg.still_frac * self._card(track):
            track.after.append((str(read[0]), float(read[1])))  # the card itself, re-read
            if read[0] == track.played:
                _add_pose(track, pose, str(read[0]))
        return True

    def _replaced(self, old: Track, card: str, p: float, t: float, pose: Pose) -> bool:
        """Whether a sure read of ``card`` at ``point`` near played ``old`` is another card: one
        another seat laid overlapping it, or the next trick's card laid on its spot.

        Overlapping: farther than ``still_frac`` of a card from ``old``'s centre and nearest
        another seat's play spot (with five seats a trick's cards overlap so much that their
        centres lie within ``same_card``; briscola chiamata seed 1: E's bastoni_5, read at
        0.94-0.99 for two seconds 38 px from D's bastoni_4, was swallowed by it; nearest
        ``old``'s own seat it is ``old`` half covered and misread).  On its spot: ``old``'s
        trick is over and it has not been read as itself for ``replaced_s`` (briscola-4 seed 1:
        E's bastoni_8 swallowed by E's gathered spade_8), and the read does not lie as ``old``
        lay (:meth:`_same_pose`).  Either way a missed-play question instead of a play."""
        cfg = self.config
        point = pose[:2]
        if card in (old.played, BACK) or p < cfg.accept_share or not self._plausible(card):
            return False
        if old.named and old.votes and card == max(old.votes, key=lambda c: old.votes[c]):
            # the operator put the camera right about this card: reads of what the camera took
            # it for are that card misread again, not a new one (binocolo seed 3, held-out
            # Knoll: W's 10C, read 10S and named 10C, read 10S surely once its trick was over
            # became a play out of turn, and every later trick was out of step)
            return False
        d = float(np.hypot(point[0] - old.centre[0], point[1] - old.centre[1]))
        if d > cfg.still_frac * self._card(old) and self._seat_of_spot(point, use_turn=False) != old.seat:
            return True
        over = self.rules is not None and old.trick < self.rules.trick_number()
        return over and p >= cfg.sure_share and t - old.self_t >= cfg.replaced_s \
            and t - self._finished(old, t) >= cfg.replace_after_s and not self._same_pose(old, pose)

    def _same_pose(self, old: Track, pose: Pose) -> bool:
        """Whether a read lies as played ``old`` lay when it was read as itself: centre within
        ``pose_frac`` of a card, long side within ``pose_deg``.  A card laid on a gathered
        card's spot lands a few px and degrees off at best (a hand does not place a card that
        exactly); the old card misread lies where it always lay.  Briscola-4 seed 2 (beezlie,
        the recalibrated Italian model): E's bastoni_7, played as bastoni_5, read bastoni_7 at
        1.00 a second after its trick ended, 1.4 px and 0.7 degrees from where it had lain,
        became the next trick's lead; briscola chiamata seed 3: A's denari_9, half covered by
        the trick's last card, read denari_8 at 0.97 5 px and 0 degrees from it."""
        return any(self._pose_near(pose, q, old) for q, _ in old.poses)

    def _pose_near(self, a: Pose, b: Pose, track: Track) -> bool:
        """Whether two reads of ``track``'s size lie alike (``pose_frac``, ``pose_deg``)."""
        cfg = self.config
        near = cfg.pose_frac * (self._size or track.size)  # its first read may be a quad of part of it
        return bool(np.hypot(a[0] - b[0], a[1] - b[1]) <= near and _angle_gap(a[2], b[2]) <= cfg.pose_deg)

    def _card(self, track: Track) -> float:
        """A card's long side near ``track``: the usual size of reads, never more than the
        track's first read (which may be a quad spanning two overlapping cards)."""
        return min(track.size, self._size) if self._size > 0 else track.size

    def _twin(self, point: Point) -> Track | None:
        """An unplayed still track this read lies on (one physical card), if any."""
        cfg = self.config
        best: tuple[float, Track] | None = None
        for track in self.tracks:
            if track.played is not None:
                continue
            d = float(np.hypot(point[0] - track.centre[0], point[1] - track.centre[1]))
            if d < cfg.same_card * self._card(track) and (best is None or d < best[0]):
                best = (d, track)
        return best[1] if best is not None else None

    def _observe(self, track: Track, dets: Detections, di: int, pose: Pose, t: float) -> None:
        track.last_t = t
        if track.played is not None:
            return
        centre = pose[:2]
        if not self._still_at(track, centre):
            # Moving: reads of a card in a hand are blurred and it may still go elsewhere.
            track.anchor, track.still_since, track.moved = centre, t, True
            track.spots = []
            track.rejected = False
            track.clear_votes()
        track.centre = centre
        track.vote(_top(dets, di), pose)

    def _still_at(self, track: Track, centre: Point) -> bool:
        """Whether a read at ``centre`` is the still card again: near where it settled, or near
        one of the few other spots its quads were fitted at.  Briscola-2 seed 1: S's coppe_1 was
        fitted at its own spot and, every other frame, 22 px off spanning the card beside it;
        each jump restarted its stillness, so it never became a play (a missed-play question)."""
        cfg = self.config
        near = cfg.still_frac * track.size
        if any(np.hypot(centre[0] - s[0], centre[1] - s[1]) <= near for s in [track.anchor, *track.spots]):
            return True
        if len(track.spots) < cfg.still_spots and np.hypot(
                centre[0] - track.anchor[0], centre[1] - track.anchor[1]) <= cfg.same_card * track.size:
            track.spots.append(centre)
            return True
        return False

    def _new_track(self, dets: Detections, di: int, pose: Pose, size: float, t: float) -> None:
        centre = pose[:2]
        track = Track(self._next_id, centre, centre, max(size, 1.0), t, t, centre, t)
        track.vote(_top(dets, di), pose)
        self._next_id += 1
        self.tracks.append(track)

    def _expire(self, t: float) -> list[Track]:
        """Drop tracks gone for good; returns the unplayed ones dropped."""
        cfg = self.config
        current = self.rules.trick_number() if self.rules is not None else None
        keep = []
        lost = []
        for track in self.tracks:
            gone = t - track.last_t
            if track.played is None:
                if gone <= cfg.lost_s:
                    keep.append(track)
                else:
                    lost.append(track)
            elif current is not None and track.trick < current and t - self._finished(track, t) > cfg.finished_s:
                continue  # its trick ended long ago: whatever lies there now is not this card
            elif gone <= cfg.gone_s or (current is not None and track.trick >= current and gone <= cfg.long_gone_s):
                keep.append(track)  # its trick is still on the table: occluded, not gathered
        self.tracks = keep
        return lost

    def _finished(self, track: Track, t: float) -> float:
        """When the tracker first saw ``track``'s trick over (the rules moved past it)."""
        if track.finished_t is None:
            track.finished_t = t
        return track.finished_t

    def _maybe_play(self, track: Track, t: float, force: bool = False) -> dict[str, Any] | None:
        cfg = self.config
        if track.played is not None or track.rejected or (track.last_t < t and not force):
            return None  # decided already, or no fresh read to decide on
        if t - track.still_since < cfg.still_s - 1e-6 or track.reads < cfg.min_frames:
            return None
        if not self._in_play_zone(track.centre):
            return None  # a won pile, the stock, a card in a hand by the table's edge
        ranked = sorted(track.votes.items(), key=lambda kv: -kv[1])
        ranked = [(code, p / track.reads) for code, p in ranked if code != BACK]
        if not ranked:
            return None
        best, share = ranked[0]
        plausible = [(c, p) for c, p in ranked if self._plausible(c)]
        if self._repeat_of_a_played_card(track, best, share, t):
            return None
        waited = force or t - track.still_since >= cfg.max_wait_s
        sure = share >= cfg.sure_share or (waited and share >= cfg.accept_share and not self._contrary(track, best))
        if plausible and plausible[0][0] == best and sure:
            return self._play(track, best, share, uncertain=False, t=t, alternatives=ranked[1:3])
        read_surely = self._read_surely(track, best) if plausible and plausible[0][0] == best else None
        if read_surely is not None:
            return self._play(track, best, read_surely, uncertain=False, t=t, alternatives=ranked[1:3])
        if not waited:
            return None  # keep reading: more frames usually settle it
        if max(share, plausible[0][1] if plausible else 0.0) < cfg.min_share:
            track.rejected = True  # no read of it is even a little sure: a shadow, not a card
            self._note(track, t, "rejected", why="weak")
            self._unexplained(track, t)
            return None
        if not plausible:
            return self._play(track, best, share, uncertain=True, t=t, alternatives=ranked[1:3])
        card, p = plausible[0]
        if p < cfg.min_share / 2:  # the only possible card is barely in the running
            track.rejected = True
            self._note(track, t, "rejected", why="implausible")
            self._unexplained(track, t)
            return None
        others = [cp for cp in ranked if cp[0] != card][:2]
        return self._play(track, card, p, uncertain=True, t=t, alternatives=others)

    def _contrary(self, track: Track, card: str) -> bool:
        """Whether a read of ``track`` lying as its latest read lies (:meth:`_same_pose`) put
        another possible card first at ``sure_share``: the very crop that reads ``card`` now
        was read surely as another card (briscola-4 seed 2, beezlie, the recalibrated Italian
        model: E's bastoni_7 read bastoni_7 at 1.00, then bastoni_5 at 0.96 in the same place
        for a second, played as bastoni_5).  Sure reads from elsewhere (the hand letting go,
        a quad over a neighbour) are no evidence against it."""
        if not track.poses:
            return False
        here = track.poses[-1][0]
        sure = self.config.sure_share
        return any(
            c not in (card, BACK) and p >= sure and self._plausible(c) and self._pose_near(here, pose, track)
            for (c, p), (pose, _) in zip((h[0] for h in track.history), track.poses, strict=False)
        )

    def _read_surely(self, track: Track, card: str) -> float | None:
        """How sure ``track``'s reads are of ``card`` when they are, pooled over the frames in
        ways a plain mean misses, else None.  Never when a read put another possible card first
        at ``contrary_p`` or more.  Either

        * ``sure_reads`` (2) distinct reads of ``card`` at ``sure_share`` or more (identical reads
          are one: the read cache gives an unchanged crop's read again, no new evidence): the
          mean of those; or
        * the card lay so still that its crop did not change (the read cache gave the same sure
          read of ``card``) for ``settled_reads`` frames, at least half of its reads: reads
          taken while it was still settling do not count against it (briscola chiamata seed
          1: D's coppe_6 read as denari_2 and coppe_2 as the hand let go, then at 0.96 for
          nine frames); or
        * every read but a minority (at most a third) is sure of ``card``, and that minority
          put a card first that the rules exclude (played already: a quad fitted over the
          played card beside it): the mean over the other reads.  Belotta seed 1: W's 7C read
          at 0.99 in 9 frames and as 7S, played a trick before, at 0.8 in 3.
        """
        cfg = self.config
        tops = [h[0] for h in track.history]
        settled = next((i for i in range(len(tops) - 1, -1, -1) if tops[i] != tops[-1]), -1) + 1
        run = len(tops) - settled
        if tops and tops[-1][0] == card and tops[-1][1] >= cfg.sure_share and run >= cfg.settled_reads \
                and 2 * run >= len(tops) and not self._contrary(track, card):
            return tops[-1][1]
        if any(c not in (card, BACK) and p >= cfg.contrary_p and self._plausible(c) for c, p in tops):
            return None
        sure = {p for c, p in tops if c == card and p >= cfg.sure_share}
        if len(sure) >= cfg.sure_reads:
            return float(np.mean(sorted(sure)))
        excluded = [i for i, (c, p) in enumerate(tops) if c not in (card, BACK) and p >= cfg.contrary_p]
        kept = [dict(h).get(card, 0.0) for i, h in enumerate(track.history) if i not in excluded]
        if excluded and 3 * len(excluded) <= len(tops) and kept and float(np.mean(kept)) >= cfg.sure_share:
            return float(np.mean(kept))
        return None

    def _in_play_zone(self, centre: Point) -> bool:
        zones = self.config.play_zones
        return self.zone_of is None or zones is None or self.zone_of(centre) in zones

    def _unexplained(self, track: Track, t: float) -> None:
        """Remember a still card that never became a play (see :meth:`missed_since`)."""
        keep = t - self.config.missed_memory_s
        self.unexplained = [tr for tr in self.unexplained if tr.last_t >= keep and tr is not track] + [track]

    def _note(self, track: Track, t: float, what: str, **extra: Any) -> None:
        """Record a decision about ``track`` (when tracing): the data to tell why it happened."""
        if self.trace is None:
            return
        reads = max(track.reads, 1)
        votes = sorted(track.votes.items(), key=lambda kv: -kv[1])[:3]
        self.trace.append({
            "t": round(t, 2), "what": what, "track": track.id, "first_t": round(track.first_t, 2),
            "still_since": round(track.still_since, 2), "reads": track.reads, "moved": track.moved,
            "origin": [round(v) for v in track.origin], "centre": [round(v) for v in track.centre],
            "votes": [(c, round(v / reads, 2)) for c, v in votes], **extra,
        })

    def _repeat_of_a_played_card(self, track: Track, best: str, share: float, t: float) -> bool:
        """A played card read again on its spot, whatever it reads as: after a long occlusion,
        a second hypothesis of its extent (off by up to half a card), or a quad spanning it and
        its neighbour that settled in the same frame as it was played."""
        cfg = self.config
        for other in self.tracks:
            if other is track or other.played is None:
                continue
            d = float(np.hypot(other.centre[0] - track.centre[0], other.centre[1] - track.centre[1]))
            if self._replaced(other, best, share, t, track.pose()):
                continue
            size = self._card(other)
            same = (other.played == best and d < 0.5 * size) or d < cfg.same_card * size or (
                d < cfg.same_seat_reach * size and other.seat is not None
                and self._seat_of_spot(track.centre, use_turn=False) == other.seat
            )
            if same:
                other.last_t = max(other.last_t, track.last_t)
                track.played = other.played  # adopt silently: the same card, not a new play
                track.trick, track.seat = other.trick, other.seat
                self._note(track, track.last_t, "adopted", card=best, of=other.id)
                return True
        return False

    def _seat_of_spot(self, centre: Point, use_turn: bool = True) -> str:
        """The seat whose play spot is nearest; a near tie goes to the seat whose turn it is
        (a half-hidden card's quad drifts toward its neighbour's spot)."""
        if not self.play_spots:
            return self.seat_of(centre)
        ranked = sorted(self.play_spots, key=lambda s: np.hypot(*np.subtract(self.play_spots[s], centre)))
        first = ranked[0]
        if len(ranked) > 1 and self.rules is not None and use_turn:
            d1 = float(np.hypot(*np.subtract(self.play_spots[first], centre)))
            d2 = float(np.hypot(*np.subtract(self.play_spots[ranked[1]], centre)))
            turn = self.rules.turn()
            if d2 <= self.config.spot_tie * max(d1, 1.0) and turn in ranked[:2]:
                return str(turn)
        return first

    def _plausible(self, code: str) -> bool:
        return True if self.rules is None else bool(self.rules.plausible(code))

    def _play(
        self, track: Track, card: str, confidence: float, uncertain: bool, t: float,
        alternatives: Sequence[tuple[str, float]],
    ) -> dict[str, Any]:
        track.played, track.self_t = card, t
        # how it lay when read as what it was played as (other reads may be quads spanning a neighbour)
        track.poses = [q for q in track.poses if q[1] == card] or track.poses
        if track.poses:
            # it lies where it was read as that card: the track may have settled on a quad
            # beside it that the finder fitted as the hand let go (briscola chiamata seed 2,
            # beezlie: A's coppe_9, read at 1.00 on A's spot, played as E's from a quad 40 px
            # off toward E's spot that read coppe_1 at 0.48)
            xs, ys = zip(*((q[0][0], q[0][1]) for q in track.poses), strict=True)
            track.centre = (float(np.median(xs)), float(np.median(ys)))
        track.trick = self.rules.trick_number() if self.rules is not None else 0
        if track in self.unexplained:
            self.unexplained.remove(track)
        # Where it came from, when the track followed it in from afar; else where it lies
        # (play spots are in front of their seats; a hand's first blurred glimpse near the
        # trick is no evidence of direction).
        travelled = np.hypot(track.origin[0] - track.centre[0], track.origin[1] - track.centre[1])
        if track.moved and travelled > self.config.origin_travel * track.size:
            seat = self.seat_of(track.origin)
        else:
            seat = self._seat_of_spot(track.centre)
        track.seat = seat
        if self.rules is not None and self.rules.has_played(seat):
            uncertain = True  # a second card from one seat in one trick: more likely a misread
        event: dict[str, Any] = {
            "event": "play",
            "seat": seat,
            "card": card,
            "confidence": round(min(1.0, confidence), 3),
            "t": round(t, 3),
            "track": track.id,  # for settle() once the operator has named the card
            # the next guesses, sure play or not: a question about it later offers them
            "alternatives": [c for c, _ in alternatives],
        }
        if uncertain:
            event["uncertain"] = True
        self._note(track, t, "play", seat=seat, card=card, uncertain=uncertain)
        return event


#: poses a track keeps (the latest)
_MAX_POSES = 30


def _add_pose(track: Track, pose: Pose, card: str) -> None:
    track.poses.append((pose, str(card)))
    del track.poses[:-_MAX_POSES]


def _long_side_angles(quad: np.ndarray[Any, Any]) -> list[float]:
    """Each quad's long side's direction in degrees, 0-180 (a card's two ends look alike)."""
    if not len(quad):
        return []
    a = quad[:, 1] - quad[:, 0]
    b = quad[:, 2] - quad[:, 1]
    v = np.where((np.linalg.norm(a, axis=1) >= np.linalg.norm(b, axis=1))[:, None], a, b)
    return [float(x) for x in np.degrees(np.arctan2(v[:, 1], v[:, 0])) % 180.0]


def _angle_gap(a: float, b: float) -> float:
    """Degrees between two long-side directions (mod 180)."""
    return abs((a - b + 90.0) % 180.0 - 90.0)


def _sureness(top: Sequence[tuple[str, float]]) -> float:
    """How sure a read is of some face (a quad over the cloth beside a card reads ``back``)."""
    return float(top[0][1]) if top and top[0][0] != BACK else 0.0


def _top(dets: Detections, di: int) -> list[tuple[str, float]]:
    top = list(dets.top[di]) if dets.top[di] else []
    if not top:
        top = [(str(dets.card[di]), float(dets.confidence[di]))]
    return top


class RefereeView:
    """:class:`RulesView` over a live :class:`referee.rules.Referee` (read only)."""

    def __init__(self, referee: Any) -> None:
        self.referee = referee

    def plausible(self, card: str) -> bool:
        game, deal = self.referee.game, self.referee.deal
        if game is None or deal is None:
            return True
        try:
            parsed = parse_card(card)
        except BadCardError:
            return False
        deck = game.deck
        if parsed not in deck:
            return False
        if any(parsed in cards for cards in deal.known.values()):
            return True  # shown in a hand (belotta's turned card, taken by the caller): its holder's
        seen: Mapping[Any, int] = deal.seen
        if int(seen.get(parsed, 0)) >= int(deck.copies):
            return False
        # the face-up briscola is no one's card until the last draw takes it
        return not all(game.unavailable(deal, seat, parsed) for seat in deal.seats)

    def trick_number(self) -> int:
        deal = self.referee.deal
        return int(deal.trick_number) if deal is not None else 0

    def turn(self) -> str | None:
        turn = self.referee.turn
        return str(turn) if turn is not None else None

    def has_played(self, seat: str) -> bool:
        """Whether ``seat`` already has a card in the trick in progress."""
        deal = self.referee.deal
        if deal is None or deal.trick is None:
            return False
        return any(s == seat for s, _ in deal.trick.plays)
