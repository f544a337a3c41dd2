"""When a still card becomes a play, and what the operator's answers tell the tracker."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence

import numpy as np

from referee.cards import BACK
from referee.table.proposal import ProposedPlay
from referee.vision.detections import Detections
from referee.vision.tracker.association import Association
from referee.vision.tracker.track import Track


class PlayTracker(Association):
    """``update(detections, t) -> [ProposedPlay]``; see :mod:`referee.vision.tracker`."""

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

    def update(self, dets: Detections, t: float) -> list[ProposedPlay]:
        self._now = t
        dets = self._playable(dets)
        self._associate(dets, t)
        events: list[ProposedPlay] = []
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

    def _doubts(self, t: float) -> list[ProposedPlay]:
        """Corrections: sure plays whose card, still lying in the trick in progress, has since
        been read surely as another possible card, twice as often as itself (see
        ``TrackerConfig.doubt_reads``).  A ``play`` event with ``"correction"``: the card it was
        played as; the arbiter asks the operator before changing anything."""
        cfg = self.config
        if cfg.doubt_reads <= 0 or self.rules is None:
            return []
        current = self.rules.trick_number()
        out: list[ProposedPlay] = []
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
            out.append(ProposedPlay(str(track.seat), card, round(float(np.mean(sorted(ps))), 3), round(t, 3),
                                    track.id, (track.played,), uncertain=True, correction=track.played))
        return out

    def _undecided_before(self, track: Track) -> list[Track]:
        cfg = self.config
        return [
            other for other in sorted(self.tracks, key=lambda tr: tr.still_since)
            if other.played is None and other is not track and other.still_since < track.still_since
            and other.reads >= cfg.min_frames and track.last_t - other.still_since >= cfg.still_s - 1e-6
        ]

    def _maybe_play(self, track: Track, t: float, force: bool = False) -> ProposedPlay | None:
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

    def _play(
        self, track: Track, card: str, confidence: float, uncertain: bool, t: float,
        alternatives: Sequence[tuple[str, float]],
    ) -> ProposedPlay:
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
        self._note(track, t, "play", seat=seat, card=card, uncertain=uncertain)
        # the track: for settle() once the operator has named the card; the next guesses,
        # sure play or not: a question about it later offers them
        return ProposedPlay(seat, card, round(min(1.0, confidence), 3), round(t, 3), track.id,
                            tuple(c for c, _ in alternatives), uncertain)
