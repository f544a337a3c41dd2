"""Print variation: a face as another publisher might print the same pattern.

The issue is judged on real frames of Trevisane decks, and ``../shared`` holds two low-resolution
Trevisane scans. A club's deck is the same pattern from another printer, or another edition: the
inks are other shades, the lines heavier or finer, the drawing redrawn a little (measured: a
Trevisane print held out of training reads ~96% of its renders, against ~99% for a pattern seen in
two or more prints; models/HISTORY.md). :func:`vary_print` draws one such variant of a face's art, so that
training sees each print as a family of prints rather than one exact drawing:

- **inks**: the hue of coloured ink turned by up to ±18°, its saturation scaled 0.7-1.25x, the
  ink's density (its darkness against the paper) 0.85-1.1x. Paper (unsaturated, light) stays
  paper; reds stay reds-to-oranges, so a red French suit never becomes a black one.
- **line weight**: in half the draws the dark lines are thickened by a grey-level erosion with a
  2-3 px square (art 320 px tall; 2 px on the low-resolution scans), or, on art at least
  :data:`THIN_MIN_HEIGHT` tall, thinned by a 2 px dilation (thinning a low-resolution scan's
  1 px lines would erase its corner index).
- **redrawing**: a smooth random displacement (a 4x5 grid of offsets, cubic-interpolated) of
  0.3-1.2% of the card's width moves the drawing's parts a little against each other.

The silhouette (border, rounded corners) is the blank's and is kept, so the card's shape is
untouched. Everything is drawn from the sample's own generator.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.recognition.synth import CardArt

#: Bump when the variation changes (part of the cache key of sets that use it).
PRINT_VARIATION_VERSION = 1
#: Hue turn (OpenCV hue units, 2° each), saturation and ink-density ranges.
HUE_TURN = 9.0
SATURATION = (0.7, 1.25)
INK_DENSITY = (0.85, 1.1)
#: Chance of a line-weight change; art shorter than this is only ever thickened.
LINE_WEIGHT_P = 0.5
THIN_MIN_HEIGHT = 250
#: Displacement amplitude as a share of the card's width, and the grid it is drawn on (rows, cols).
REDRAW = (0.003, 0.012)
REDRAW_GRID = (5, 4)


def vary_print(art: CardArt, rng: np.random.Generator) -> CardArt:
    """``art`` as another print of its pattern (module docstring); the mask is kept."""
    bgr = _inks(art.bgr, rng)
    if rng.random() < LINE_WEIGHT_P:
        bgr = _line_weight(bgr, rng)
    bgr = _redraw(bgr, rng)
    return CardArt(bgr, art.mask)


def _inks(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 0] = np.mod(hsv[..., 0] + rng.uniform(-HUE_TURN, HUE_TURN), 180.0)
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(*SATURATION), 0, 255)
    hsv[..., 2] = np.clip(255.0 - (255.0 - hsv[..., 2]) * rng.uniform(*INK_DENSITY), 0, 255)
    return np.asarray(cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR), np.uint8)


def _line_weight(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    big = bgr.shape[0] >= THIN_MIN_HEIGHT
    heavier = rng.random() < 0.5 or not big
    k = int(rng.integers(2, 4)) if heavier and big else 2
    kernel = np.ones((k, k), np.uint8)
    # Erosion (a minimum) spreads the dark ink: heavier lines; dilation thins them.
    out = cv2.erode(bgr, kernel) if heavier else cv2.dilate(bgr, kernel)
    return np.asarray(out, np.uint8)


def _redraw(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = bgr.shape[:2]
    amp = rng.uniform(*REDRAW) * w
    rows, cols = REDRAW_GRID
    dx, dy = (cv2.resize(rng.normal(0.0, amp / 2, (rows, cols)).astype(np.float32), (w, h),
                         interpolation=cv2.INTER_CUBIC) for _ in range(2))
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    out = cv2.remap(bgr, xs + dx, ys + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.uint8)
