"""The play tracker's thresholds, each a guard against a named failure."""

from __future__ import annotations

from dataclasses import dataclass

#: zones where a card is never a play
NOT_PLAY_ZONES = frozenset({"stock", "outside"})


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
    #: next cards can be read surely as another card the moment its trick ends (a card 48%
    #: hidden read as another at 0.99 0.4 s after its trick ended would become the next
    #: trick's lead and put every later trick out of step: ``test_tracker.py``,
    #: ``test_a_trick_card_read_surely_as_another_card_right_after_its_trick_is_no_new_play``);
    #: gathering takes longer
    replace_after_s: float = 1.0
    #: ... and only when the read does not lie as the old card lay: a card laid down almost
    #: never lands within this fraction of a card's long side of where the card before it lay
    #: *and* within ``pose_deg`` of its angle, but the old card re-read does, however it is
    #: read (see :meth:`PlayTracker._same_pose`)
    pose_frac: float = 0.08
    pose_deg: float = 4.0

