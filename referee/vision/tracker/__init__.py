"""Play events from identified cards over time: still long enough, read consistently, seat known.

    tracker = PlayTracker(seat_of=layout.seat_of, zone_of=layout.zone_of, rules=RefereeView(ref))
    for frame in source:
        for play in tracker.update(pipeline.process(frame.image), frame.t):
            ...   # ProposedPlay(seat="W", card="coppe_3", confidence=0.97, t=12.3, track=4, ...)

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
  Uncertain plays carry ``uncertain`` and their ``alternatives``, so the caller asks
  the operator (a ``confirm``) instead of guessing.
* **A sure misread can be put right.**  A camera play whose card, still lying in its trick, is
  re-read surely as another possible card is doubted once: a play with ``correction``
  (the card it was played as), for the arbiter to ask about.
* Cards in the stock zone (the briscola under the stock, belotta's turned card) and outside the
  mat are never plays.
"""

from referee.vision.tracker.config import NOT_PLAY_ZONES, TrackerConfig
from referee.vision.tracker.decisions import PlayTracker
from referee.vision.tracker.rules_view import RefereeView, RulesView
from referee.vision.tracker.track import Point, Pose, Track

__all__ = ["NOT_PLAY_ZONES", "PlayTracker", "Point", "Pose", "RefereeView", "RulesView", "Track", "TrackerConfig"]
