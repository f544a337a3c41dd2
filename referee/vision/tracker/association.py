"""Each frame's reads to tracks: played cards absorb the reads of their own spot, the rest is
greedy nearest matching; a second hypothesis of one card is one read; tracks gone for good
expire."""

from __future__ import annotations

import numpy as np

from referee.vision.detections import Detections
from referee.vision.tracker.config import NOT_PLAY_ZONES
from referee.vision.tracker.evidence import Evidence
from referee.vision.tracker.track import Point, Pose, Track, add_pose, long_side_angles, top_reads


class Association(Evidence):
    """Reads in, tracks kept up to date."""

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
        angles = long_side_angles(dets.quad)
        self._size = self._sizes.add(sizes)
        used_d = {di for di in range(len(dets))
                  if self._absorbed((*points[di], angles[di]), t, top_reads(dets, di)[0])}
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
                twin.revote(top_reads(dets, di), (*points[di], angles[di]))  # the finder's second hypothesis of one card
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
                add_pose(track, pose, str(read[0]))
        return True

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
        track.vote(top_reads(dets, di), pose)

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
        track.vote(top_reads(dets, di), pose)
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
