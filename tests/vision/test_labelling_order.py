"""Blobs taken from their outlines come in the order OpenCV's labelling gives them: the court
card proposers keep their hypotheses' order (and groups) without labelling the whole frame."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.finder.courts import _labelling_order


@pytest.mark.parametrize("density", [0.05, 0.3, 0.5])
def test_sorting_blobs_by_labelling_order_gives_opencvs_labels(density: float) -> None:
    rng = np.random.default_rng(2)
    mask = np.where(rng.random((90, 150)) < density, 255, 0).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    assert n > 3
    keys = []
    for i in range(1, n):
        x, y, w, h = (int(v) for v in stats[i, :4])
        keys.append(_labelling_order(labels[y : y + h, x : x + w] == i, x, y))
    assert sorted(range(1, n), key=lambda i: keys[i - 1]) == list(range(1, n))
    assert len(set(keys)) == n - 1  # no two blobs share their first 2x2 block
