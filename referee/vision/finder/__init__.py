"""Find card-sized pieces of white card stock in a frame: quads plus rectified portrait crops.

Why this method (measured on ``finder_scenes`` and simulator frames): plain contour finding on
edges drowns in the lines of check and stripe cloths.  Card stock is bright *and* unsaturated,
which a red/white check shares only in small squares and a stripe cloth only in thin bands, so we

1. segment "whiteness" (``min(B,G,R) - k * saturation``, Otsu threshold clamped to a sane
   range) at a reduced working width (640 px: ~1 ms per step instead of ~4)
   (``segmentation.py``);
2. fill the holes the card figures leave, then open with a kernel ~15% of a card's short side,
   which erases check squares and stripe bands glued to a card while a card survives;
3. take each blob (``blobs.py``): a blob that looks like one card (rectangular, card aspect,
   card area) gives its own quad; any other blob (overlapping trick cards, a card touching a
   white stripe) is explained by *card hypotheses* grown from its right-angle corners
   (``corners.py``) or fitted to card outlines (``referee.vision.outline``) with the card size
   known from the single cards (or the layout).  A convex corner of a union of cards is always
   a corner of one of them, so every card with one visible corner gets a hypothesis;
   hypotheses are scored by how much of them is white and how much of their outline is a blob
   border, then accepted greedily while they explain new area;
4. a rectangle one card wide but only part of a card long (the briscola half under the stock)
   is extended both ways to a full card; the two hypotheses share a ``group`` and the
   classifier keeps the better one.  Court cards whose white is an open frame come from
   ``courts.py``, cards on a light table from their edges (``edges.py``) and, in photos, as
   regions less white than the table (cream stock on a white table: ``darker.py``) and as four
   straight sides of a card's proportions where no outline closes (a card about as light as
   its table: ``lines.py``).

The finder over-proposes on purpose: the classifier's ``back`` class (face-down cards, cloth,
the stock) and its confidence are the precision stage (``referee.vision.pipeline``).

Modules: ``card_finder`` (:class:`CardFinder`: one frame's pass and the card size kept between
frames), ``config`` (:class:`FinderConfig`), ``segmentation`` (whiteness mask), ``hypothesis``
(the proposal type), ``blobs``, ``corners``, ``courts``, ``edges``, ``darker``, ``lines`` (the hypothesis generators),
``split_cache`` (splits reused while a trick lies still), ``quad`` (quad geometry and crops).
"""

from referee.vision.finder.card_finder import CardFinder, FrameError
from referee.vision.finder.config import FinderConfig
from referee.vision.finder.quad import portrait_order, rectify
from referee.vision.finder.segmentation import Mask, fill_holes, whiteness, whiteness_mask

__all__ = [
    "CardFinder",
    "FinderConfig",
    "FrameError",
    "Mask",
    "fill_holes",
    "portrait_order",
    "rectify",
    "whiteness",
    "whiteness_mask",
]
