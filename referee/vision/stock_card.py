"""The briscola under the stock: card-sized hypotheses at the ends of the stock's blob.

In briscola the trump card lies face up, turned a quarter, half under the face-down stock.
The stock's back has a white border, so the finder sees stock and briscola as one white blob
with no card-shaped piece in it (its "one card wide, extend both ways" rule never fires).
Here, only inside the layout's stock zone, the blob's rectangle is found and a card is
proposed flush with each of its four ends, its long side along that axis and as long as the
blob is across it (the stock's long side); the classifier then decides, as for every other
hypothesis (the stock's own back reads ``back`` and is dropped)::

    quads = stock_card_quads(bgr_image, layout.image_polygons()["stock"], finder.config)
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.detections import FloatArray, Image
from referee.vision.finder import FinderConfig, Mask, fill_holes, whiteness

#: Long / short side of a card (Italian and French decks lie between 1.55 and 1.8).
CARD_ASPECT = 1.7
#: A hypothesis must be this white: the briscola's part sticks out of the stock in full,
#: while a cross-wise card over a lone stock would cover cloth on both of its sides.
MIN_WHITE = 0.85


def stock_card_quads(
    image: Image, stock_zone: FloatArray, cfg: FinderConfig, card_size: tuple[float, float] | None = None
) -> FloatArray:
    """(N, 4, 2) image-px quads of a card sticking out of the stock's blob (N = 0..8).

    ``card_size`` (short, long) in image px, when known (``CardFinder.card_size``), sizes the
    quads: a sure read of one is fed back into that size by the live loop, so it must not drift
    it.  Unknown, the card is as long as the blob is across and as wide as the white at its end."""
    roi, origin = _roi(image, stock_zone)
    if roi is None:
        return np.zeros((0, 4, 2), np.float32)
    scale = min(1.0, cfg.work_width / image.shape[1])
    small = np.asarray(cv2.resize(roi, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    mask = _stock_mask(small, cfg)
    zone = ((np.asarray(stock_zone, np.float32) - origin) * scale).reshape(-1, 1, 2)
    found = _stock_blob(mask, zone)
    if found is None:
        return np.zeros((0, 4, 2), np.float32)
    rect, blob = found
    size = None if card_size is None else (card_size[0] * scale, card_size[1] * scale)
    quads = [q for q in _end_quads(rect, blob, size) if _white_fraction(mask, q) >= MIN_WHITE]
    if not quads:
        return np.zeros((0, 4, 2), np.float32)
    out: FloatArray = (np.stack(quads) / scale + origin).astype(np.float32)
    return out


def _roi(image: Image, zone: FloatArray) -> tuple[Image | None, FloatArray]:
    """The stock zone's bounding box grown by a quarter (the briscola may stick out of it)."""
    pts = np.asarray(zone, np.float32).reshape(-1, 2)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.25 * (hi - lo)
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(lo - pad), 0, [w, h]).astype(int)
    x1, y1 = np.clip(np.ceil(hi + pad), 0, [w, h]).astype(int)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None, np.zeros(2, np.float32)
    return image[y0:y1, x0:x1], np.array([x0, y0], np.float32)


def _stock_mask(small: Image, cfg: FinderConfig) -> Mask:
    white = whiteness(small, cfg)
    otsu, _ = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = float(np.clip(otsu, *cfg.white_threshold))
    _, raw = cv2.threshold(white, thr, 255, cv2.THRESH_BINARY)
    return fill_holes(np.asarray(raw, np.uint8))


def _stock_blob(mask: Mask, zone: FloatArray) -> tuple[FloatArray, Mask] | None:
    """minAreaRect corners of the blob whose centre lies in the zone, opened so that cloth
    check squares come off; None when it is no more than one card (a stock with no briscola)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    areas = [float(cv2.contourArea(c)) for c in contours]
    best = None
    # the largest blob whose centre is in the zone (of equal ones the first): largest first
    for i in sorted(range(len(contours)), key=lambda i: -areas[i]):
        if areas[i] <= 0.0:
            break
        (cx, cy), _, _ = cv2.minAreaRect(contours[i])
        if cv2.pointPolygonTest(zone, (float(cx), float(cy)), False) >= 0:
            best = contours[i]
            break
    if best is None:
        return None
    (cx, cy), (w, h), angle = cv2.minAreaRect(best)
    side = min(w, h)
    k = max(3, round(0.3 * side)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    # opened in the blob's box grown by a kernel: nothing else is drawn, so nothing outside it
    # changes (the same mask at a fraction of the cost of opening the whole window)
    x, y, bw, bh = cv2.boundingRect(best)
    x0, y0, x1, y1 = max(0, x - k), max(0, y - k), min(mask.shape[1], x + bw + k), min(mask.shape[0], y + bh + k)
    one = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(one, [best], -1, 255, cv2.FILLED, offset=(-x0, -y0))
    opened = np.zeros_like(mask)
    opened[y0:y1, x0:x1] = cv2.morphologyEx(one, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    blob = max(contours, key=cv2.contourArea)
    (cx, cy), (w, h), angle = cv2.minAreaRect(blob)
    short, long_ = sorted((w, h))
    # one card (the lone stock) is long and narrow; a briscola across it makes the blob squarer
    if short <= 0 or long_ / short > 1.5:
        return None
    rect: FloatArray = cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)
    return rect, opened


def _end_quads(rect: FloatArray, mask: Mask, size: tuple[float, float] | None) -> list[FloatArray]:
    """A card flush with each end of the rectangle, its long side along it and as long as the
    rectangle is across; across, it sits on the white at that end (the briscola need not be
    centred on the stock)."""
    centre = rect.mean(axis=0)
    ys, xs = np.nonzero(mask)
    pts = np.stack([xs, ys], axis=1).astype(np.float32) - centre
    quads = []
    for a, b in ((rect[1] - rect[0], rect[2] - rect[1]), (rect[2] - rect[1], rect[1] - rect[0])):
        along, across = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        ua, ub = a / along, b / across
        long_ = across if size is None else size[1]  # unknown: the stock's long side
        if long_ > along:  # the card would be longer than the blob along that axis
            continue
        pu, pv = pts @ ua, pts @ ub
        inside = (np.abs(pu) <= along / 2) & (np.abs(pv) <= across / 2)
        for sign in (1.0, -1.0):
            end = inside & (sign * pu >= along / 2 - 0.25 * long_)  # the outer quarter card
            width = long_ / CARD_ASPECT if size is None else size[0]
            fits = [(width, 0.0)]  # centred on the stock
            if np.count_nonzero(end) > 10:
                lo, hi = np.percentile(pv[end], [2, 98])
                if 0.45 * long_ <= hi - lo <= 0.75 * long_:
                    fits.append((float(hi - lo) if size is None else width, float(lo + hi) / 2))
            for short, mid in fits:
                c = centre + sign * ua * (along - long_) / 2 + ub * mid
                half_u, half_v = ua * long_ / 2, ub * short / 2
                quads.append(np.array([c - half_u - half_v, c + half_u - half_v, c + half_u + half_v, c - half_u + half_v], np.float32))
    return quads


def _white_fraction(mask: Mask, quad: FloatArray) -> float:
    inside = np.zeros_like(mask)
    cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 255)
    total = np.count_nonzero(inside)
    return float(np.count_nonzero(mask & inside)) / total if total else 0.0
