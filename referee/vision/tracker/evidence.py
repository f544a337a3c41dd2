"""Evidence about a still card's identity beyond the mean of its votes: sure reads pooled over
frames, a read that settled, reads against it from the very place it lies, a played card read
again on its spot, the next trick's card laid where a gathered one lay."""

from __future__ import annotations

import numpy as np

from referee.cards import BACK
from referee.vision.tracker.base import TrackerBase
from referee.vision.tracker.track import Pose, Track, angle_gap


class Evidence(TrackerBase):
    """How sure the reads of a track are, and whether they are of another card."""

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
            # it for are that card misread again, not a new one: taken as a new play it would be
            # out of turn and put every later trick out of step (test_tracker.py,
            # test_a_card_the_operator_corrected_read_again_as_the_cameras_guess_is_not_a_new_play)
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
        return bool(np.hypot(a[0] - b[0], a[1] - b[1]) <= near and angle_gap(a[2], b[2]) <= cfg.pose_deg)
