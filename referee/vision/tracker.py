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
  reappears on its own spot is the same card again, never a second play.
* **No wrong seat.**  The seat is the zone the card *came from* (where the track was first seen,
  normally at the player's edge as the hand brings it in), else the zone where it lies.
* **Rules help reading.**  Identity is a confidence-weighted vote over the frames the card was
  still, top-k included.  A winner the rules make impossible (already played, not in the deck)
  falls back to the best plausible card, flagged ``uncertain``; a weak vote is flagged too.
  Uncertain plays carry ``"uncertain": true`` and their ``alternatives``, so the caller asks
  the operator (a ``confirm``) instead of guessing.
* Cards in the stock zone (the briscola under the stock, belotta's turned card) and outside the
  mat are never plays.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from referee.cards import BACK, parse_card
from referee.errors import BadCardError
from referee.vision.detections import Detections

Point = tuple[float, float]
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
    #: vote share (mean probability of the winner) needed for a confident play
    accept_share: float = 0.75
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
    votes: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    reads: int = 0
    moved: bool = False  # seen at two places before settling: origin is meaningful
    played: str | None = None  # the card code once it was played
    trick: int = 0  # the rules' trick number when it was played
    rejected: bool = False  # read for long and never even a little sure: not a card

    def vote(self, top: Sequence[tuple[str, float]]) -> None:
        for code, p in top:
            self.votes[code] += float(p)
        self.reads += 1


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

    def reset(self) -> None:
        """A new deal: nothing on the table is a play of it."""
        self.tracks = []

    def update(self, dets: Detections, t: float) -> list[dict[str, Any]]:
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
        return events

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
        """Greedy nearest matching; played tracks only take their own card on their own spot."""
        centres = dets.centers
        sizes = np.maximum(
            np.linalg.norm(dets.quad[:, 2] - dets.quad[:, 1], axis=1),
            np.linalg.norm(dets.quad[:, 1] - dets.quad[:, 0], axis=1),
        ) if len(dets) else np.zeros(0)
        pairs: list[tuple[float, int, int]] = []
        for ti, track in enumerate(self.tracks):
            for di in range(len(dets)):
                d = float(np.hypot(*(centres[di] - track.centre)))
                if track.played is not None:
                    # A played card's own spot: whatever it reads as now (half hidden under
                    # the next card, blurred by a hand), it is that card, not a new one.
                    if d < 0.3 * track.size:
                        pairs.append((d, ti, di))
                elif d < self.config.reach * track.size:
                    same = str(dets.card[di]) in track.votes
                    pairs.append((d * (0.5 if same else 1.0), ti, di))
        pairs.sort()
        used_t: set[int] = set()
        used_d: set[int] = set()
        for _, ti, di in pairs:
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            self._observe(self.tracks[ti], dets, di, (float(centres[di][0]), float(centres[di][1])), t)
        for di in range(len(dets)):
            if di not in used_d:
                self._new_track(dets, di, (float(centres[di][0]), float(centres[di][1])), float(sizes[di]), t)

    def _observe(self, track: Track, dets: Detections, di: int, centre: Point, t: float) -> None:
        track.last_t = t
        if track.played is not None:
            return
        if np.hypot(centre[0] - track.anchor[0], centre[1] - track.anchor[1]) > self.config.still_frac * track.size:
            # Moving: reads of a card in a hand are blurred and it may still go elsewhere.
            track.anchor, track.still_since, track.moved = centre, t, True
            track.rejected = False
            track.votes.clear()
            track.reads = 0
        track.centre = centre
        track.vote(_top(dets, di))

    def _new_track(self, dets: Detections, di: int, centre: Point, size: float, t: float) -> None:
        track = Track(self._next_id, centre, centre, max(size, 1.0), t, t, centre, t)
        track.vote(_top(dets, di))
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
            elif gone <= cfg.gone_s or (current is not None and track.trick >= current and gone <= cfg.long_gone_s):
                keep.append(track)  # its trick is still on the table: occluded, not gathered
        self.tracks = keep
        return lost

    def _maybe_play(self, track: Track, t: float, force: bool = False) -> dict[str, Any] | None:
        cfg = self.config
        if track.played is not None or track.rejected or (track.last_t < t and not force):
            return None  # decided already, or no fresh read to decide on
        if t - track.still_since < cfg.still_s - 1e-6 or track.reads < cfg.min_frames:
            return None
        ranked = sorted(track.votes.items(), key=lambda kv: -kv[1])
        ranked = [(code, p / track.reads) for code, p in ranked if code != BACK]
        if not ranked:
            return None
        best, share = ranked[0]
        plausible = [(c, p) for c, p in ranked if self._plausible(c)]
        if self._repeat_of_a_played_card(track, best):
            return None
        waited = force or t - track.still_since >= cfg.max_wait_s
        if plausible and plausible[0][0] == best and share >= cfg.accept_share:
            return self._play(track, best, share, uncertain=False, t=t, alternatives=ranked[1:3])
        if not waited:
            return None  # keep reading: more frames usually settle it
        if max(share, plausible[0][1] if plausible else 0.0) < cfg.min_share:
            track.rejected = True  # no read of it is even a little sure: a shadow, not a card
            return None
        if not plausible:
            return self._play(track, best, share, uncertain=True, t=t, alternatives=ranked[1:3])
        card, p = plausible[0]
        if p < cfg.min_share / 2:  # the only possible card is barely in the running
            track.rejected = True
            return None
        others = [cp for cp in ranked if cp[0] != card][:2]
        return self._play(track, card, p, uncertain=True, t=t, alternatives=others)

    def _repeat_of_a_played_card(self, track: Track, best: str) -> bool:
        """A played card read again close to its spot: after a long occlusion, or a second
        hypothesis of the same card's extent (its centre is off by up to half a card)."""
        for other in self.tracks:
            if other is not track and other.played == best and np.hypot(
                other.centre[0] - track.centre[0], other.centre[1] - track.centre[1]
            ) < 0.5 * other.size:
                other.last_t = track.last_t
                track.played = best  # adopt silently: the same card, not a new play
                track.trick = other.trick
                return True
        return False

    def _seat_of_spot(self, centre: Point) -> str:
        """The seat whose play spot is nearest; a near tie goes to the seat whose turn it is
        (a half-hidden card's quad drifts toward its neighbour's spot)."""
        if not self.play_spots:
            return self.seat_of(centre)
        ranked = sorted(self.play_spots, key=lambda s: np.hypot(*np.subtract(self.play_spots[s], centre)))
        first = ranked[0]
        if len(ranked) > 1 and self.rules is not None:
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
        track.played = card
        track.trick = self.rules.trick_number() if self.rules is not None else 0
        # Where it came from, when the track followed it in from afar; else where it lies
        # (play spots are in front of their seats; a hand's first blurred glimpse near the
        # trick is no evidence of direction).
        travelled = np.hypot(track.origin[0] - track.centre[0], track.origin[1] - track.centre[1])
        if track.moved and travelled > self.config.origin_travel * track.size:
            seat = self.seat_of(track.origin)
        else:
            seat = self._seat_of_spot(track.centre)
        if self.rules is not None and self.rules.has_played(seat):
            uncertain = True  # a second card from one seat in one trick: more likely a misread
        event: dict[str, Any] = {
            "event": "play",
            "seat": seat,
            "card": card,
            "confidence": round(min(1.0, confidence), 3),
            "t": round(t, 3),
        }
        if uncertain:
            event["uncertain"] = True
            event["alternatives"] = [c for c, _ in alternatives]
        return event


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
        seen: Mapping[Any, int] = deal.seen
        return bool(int(seen.get(parsed, 0)) < int(deck.copies))

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
