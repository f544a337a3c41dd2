"""Splits of overlapping-card blobs kept between frames (:class:`SplitCache`)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from referee.vision.detections import Image
from referee.vision.finder.hypothesis import Hypothesis


class SplitCache:
    """Last frame's splits of overlapping-card blobs: a trick lying still gives the same blob
    (box and area within a pixel or two of noise, same whiteness), so it is not split again
    (splitting costs ~10x the rest of a frame; a trick lies still most of the time)."""

    def __init__(self, max_diff: float = 3.0) -> None:
        self.max_diff = max_diff
        self.pass_no = 0
        # (pass, x, y, w, h, area, short, long) -> (whiteness in the box, hypotheses)
        self.prev: dict[tuple[int, ...], tuple[Image, list[Hypothesis]]] = {}
        self.now: dict[tuple[int, ...], tuple[Image, list[Hypothesis]]] = {}
        self.seen_prev: set[tuple[int, ...]] = set()
        self.seen_now: set[tuple[int, ...]] = set()

    def _match(self, key: tuple[int, ...], keys: Iterable[tuple[int, ...]]) -> tuple[int, ...] | None:
        full = (self.pass_no, *key)
        for k in keys:
            if k[0] == full[0] and k[6:] == full[6:] and max(abs(a - b) for a, b in zip(k[1:5], full[1:5], strict=True)) <= 2 \
                    and abs(k[5] - full[5]) <= 0.03 * full[5]:
                return k
        return None

    def was_seen(self, key: tuple[int, ...]) -> bool:
        """Whether the same blob was in the last frame (and note it is in this one)."""
        self.seen_now.add((self.pass_no, *key))
        return self._match(key, self.seen_prev) is not None

    def get(self, key: tuple[int, ...], white: Image | None) -> list[Hypothesis] | None:
        k = self._match(key, self.prev)
        if k is None or white is None:
            return None
        roi, hyps = self.prev[k]
        x, y, w, h = k[1:5]
        if float(np.abs(white[y : y + h, x : x + w].astype(np.int16) - roi).mean()) > self.max_diff:
            return None
        self.now[k] = (roi, hyps)
        self.seen_now.add((self.pass_no, *key))
        return hyps

    def put(self, key: tuple[int, ...], white: Image | None, hyps: list[Hypothesis]) -> None:
        self.seen_now.add((self.pass_no, *key))
        if white is not None:
            x, y, w, h = key[:4]
            self.now[(self.pass_no, *key)] = (white[y : y + h, x : x + w].copy(), hyps)

    def roll(self) -> None:
        """End of a frame: its blobs and splits become the ones to compare with."""
        self.prev, self.now = self.now, {}
        self.seen_prev, self.seen_now = self.seen_now, set()

    def clear(self) -> None:
        self.prev, self.now = {}, {}
        self.seen_prev, self.seen_now = set(), set()
