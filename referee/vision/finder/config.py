"""The finder's knobs (:class:`FinderConfig`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.vision.refine import RefineConfig


@dataclass(frozen=True)
class FinderConfig:
    """Knobs of :class:`CardFinder`; defaults suit a 1280x720 top-down table view."""

    work_width: int = 640
    #: The work image is at most this many ``work_width`` tall: a tall thin image (a 500x50
    #: strip) scaled to ``work_width`` would be many times a frame's pixels, and every pass of
    #: the finder costs in proportion to them.  2.5 leaves a card scan (aspect up to 2.3) at
    #: ``work_width``.
    max_work_aspect: float = 2.5
    #: (w, h) of the rectified portrait crops: the classifier's input size.
    crop_size: tuple[int, int] = (64, 112)
    #: Card long side in full-frame pixels when the layout knows it; None = estimate per frame.
    card_height: float | None = None
    #: Fallback card long side as a fraction of the frame height before any card was measured.
    default_height_frac: float = 0.17
    #: Long / short side of a card: Italian prints 1.6-1.8, Trevisane-family scans up to ~2.2,
    #: and a card seen at a slant squatter or taller.  Single photos (``process_still``) take
    #: up to 2.4 (an aspect-2.3 card with rounded corners measures a little over).
    aspect_range: tuple[float, float] = (1.25, 2.2)
    #: A sure read's quad longer than this (long / short) does not set the card size: a quad
    #: cut badly (two cards' length) can be read surely.  Single photos take ``aspect_range``'s.
    size_max_aspect: float = 2.0
    saturation_weight: float = 1.5
    #: The Otsu threshold on whiteness is clamped into this range (dark room .. white cloth).
    white_threshold: tuple[int, int] = (80, 200)
    min_coverage: float = 0.9
    #: A corner hypothesis scoring this (fully white, outline mostly free) is accepted at once.
    sure_score: float = 1.1
    #: Opening kernel as a fraction of the card's short side: erases check squares and stripe
    #: bands narrower than that (glued to a card or not) while whole cards survive.
    open_frac: float = 0.3
    #: Corner hypotheses also come from the blob opened with this (wider) disc.
    smooth_corners: bool = True
    smooth_open_frac: float = 0.5
    max_candidates: int = 24
    #: Also look with a second, higher threshold (Otsu among the brighter pixels): cards on a
    #: light table. Doubles the segmentation work, so it is for photos (``referee detect``).
    upper_threshold: bool = False
    #: No card covers more than this fraction of the frame (a white table or board would).
    max_card_frac: float = 0.3
    #: Also propose card-shaped regions closed by edges (a white card on a white or light
    #: table has no whiteness contrast, but it has an outline).  None = only when the table
    #: looks light (more than ``light_table_frac`` of the frame passes as card stock).
    edge_regions: bool | None = None
    light_table_frac: float = 0.3
    #: Also propose cards from regions closed by faint edges, read as blobs at the known card
    #: size (``edge_blobs.py``): on a light table no whiteness blob is a card.  None = in the
    #: live loop (``split_when_still``) on a light table once the card size is known (the
    #: layout's, or a read's): single photos have the straight-edge proposer instead.
    edge_blobs: bool | None = None
    #: Canny's (low, high) thresholds for ``edge_blobs``: a card's side on a table nearly as
    #: light as itself is a step of a few grey levels.
    edge_blob_canny: tuple[int, int] = (20, 60)
    #: With ``edge_regions`` True (photos): the opening (a fraction of the frame's short side) that parts a
    #: card darker than its light table from dark spots touching it (``darker.py``).
    darker_open_frac: float = 0.01
    #: Also propose quads whose four sides are straight edges (``lines.py``): a card about as
    #: light as its table, whose outline does not close.  None = with ``edge_regions`` True
    #: (photos: ``process_still``); the live loop's cost stays as it is.
    line_regions: bool | None = None
    #: The straight edges are found on the image at most this many px on its long side.
    line_max_side: int = 1280
    #: At most this many line quads per image, best supported first.
    line_max_quads: int = 16
    #: A line quad's sides are each an edge along at least the first fraction of their length,
    #: and along the second on average (``lines.py``).  A card on speckled stone shrunk to the
    #: box camera's sizes keeps three sides at 0.8-1.0 and its fourth at 0.4-0.5 (the stone as
    #: light as the card along part of it): ``FramePipeline.process_still`` looks once more
    #: with :data:`FALLBACK_LINE_SUPPORT` where nothing was read surely.
    line_support: tuple[float, float] = (0.5, 0.7)
    #: A line quad whose three best-supported sides are each an edge along at least this much
    #: of their length also passes, whatever its fourth (None: never).  A grey card on grey
    #: stone at the box camera's 80-100 px keeps three sides at 0.8-1.0 and its fourth at
    #: 0.0-0.3 (the stone as light as the card all along it): ``FramePipeline.process_still``'s
    #: last look, where nothing else was read surely (:data:`FALLBACK_THREE_SIDES`).
    line_three_sides: float | None = None
    #: A line quad each of whose four sides bounds more saturation inside than outside along
    #: at least this much of its length also passes, whatever its edges (None: never): yellowed
    #: paper on neutral grey stone with two sides no edge at all (``lines.py``).
    #: ``FramePipeline.process_still``'s very last look (:data:`FALLBACK_TINTED_SIDES`).
    line_tinted: float | None = None
    #: Also propose regions of card stock more saturated than its table (``chroma.py``):
    #: yellowed paper on neutral grey stone where some of the card's sides are no edge at all.
    #: ``FramePipeline.process_still``'s very last look only, where nothing else was read surely.
    chroma_regions: bool = False
    #: A line's far side (the parallel edge a card side away) is looked for from lines at least
    #: this share of the shortest card side long: a card seen along one side only in a piece
    #: shorter than its width (a white card on white lace at 80 px in a frame) gets its far side
    #: only below 1 (``FramePipeline.process_still``'s last look where no look found any card:
    #: :data:`FALLBACK_FAR_FROM`)
    line_far_from: float = 1.0
    #: Fraction of a blob that must be non-white printing for it to count as a card when
    #: measuring the card size (a white check square has none).
    min_ink: float = 0.02
    #: Blobs larger than this many cards are cloth (a bright table), not cards.
    max_blob_cards: float = 8.0
    #: A blob whose outline runs along the frame border for more than this fraction of the
    #: frame's perimeter is the table (a light table, lace), not cards: card rectangles grown
    #: from its corners and outlines straddle the card on it and the table around it.
    max_border_frac: float = 0.25
    #: How blobs of overlapping cards are split: "corners" (rectangles grown from the blob's
    #: right-angle corners), "outline" (card outlines inside the blob, ``outline.py``), or
    #: "both" (outline rectangles, then corner rectangles not already proposed).
    split: str = "both"
    #: Split a blob by outlines only once it is the same in two frames running (the live loop:
    #: the tracker takes still cards only, and splitting costs ~10x the rest of a frame); off
    #: for single photos.
    split_when_still: bool = False
    #: Fit every quad's sides to the card edges in the full frame (``refine.py``); None = off.
    refine: RefineConfig | None = field(default_factory=RefineConfig)
    #: Refine in the live loop too (``split_when_still``).  Off: on simulated deals
    #: (``vision_e2e.py --seeds 2``, 10 deals) it made 2 more trick winners right but 3 refused
    #: questions and 7 false violation calls (0 without), as the tracker and arbiter were tuned
    #: on the unrefined quads; single frames and photos (``referee detect``) gain clearly.
    refine_live: bool = False
    #: Also propose the unrefined quad where the fit moved it, as an alternative for the same
    #: card (the classifier keeps the better read).  On photos the size is a guess at first and
    #: a quad the wrong size can have its sides fitted onto the printed figures inside the
    #: card.  None = with ``upper_threshold`` (single photos: twice the crops to read).
    keep_unrefined: bool | None = None


#: ``FinderConfig.line_support`` of a photo's last look when no card was read surely (real
#: Napoletane photos of a grey card on grey stone at 80-245 px in a camera frame: the card's
#: quad then has a side at 0.3-0.5 or a mean at 0.6-0.7; a card's quad is read surely, the
#: looser quads around the table's marks are not)
FALLBACK_LINE_SUPPORT = (0.3, 0.6)

#: ``FinderConfig.line_three_sides`` of a photo's very last look, when even the looser quads read
#: no card surely: a card's three sides found as edges along 0.75 or more each
FALLBACK_THREE_SIDES = 0.75

#: ``FinderConfig.line_tinted`` of a photo's very last look, when even the card-stock tint's
#: regions read no card surely: each side of a grey card on grey stone shrunk to 80 px bounds its
#: yellowed paper along 0.67-1.0 of it (a quad's colour steps at +-5 px; the JPEG keeps colour
#: in 16-px blocks)
FALLBACK_TINTED_SIDES = 0.75

#: ``FinderConfig.line_far_from`` of that very last look where no earlier look found any card:
#: far sides also from a piece half a card side long (where a card was found, however unsurely,
#: boxes closed from such pieces around its pip groups or half its figure read surely as other
#: cards)
FALLBACK_FAR_FROM = 0.5
