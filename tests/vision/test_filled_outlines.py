"""The outlines traced to fill a mask's holes are the filled mask's own: steps after it reuse them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.finder.segmentation import fill_holes, filled_with_outlines


@pytest.mark.parametrize("density", [0.2, 0.45, 0.55, 0.7])
def test_the_outlines_are_the_filled_masks_own_in_the_same_order(density: float) -> None:
    rng = np.random.default_rng(11)
    raw = np.where(rng.random((120, 200)) < density, 255, 0).astype(np.uint8)
    raw[30:90, 40:80] = 255
    raw[50:60, 55:65] = 0  # a pip: a hole, with a speck inside it
    raw[54, 59] = 255
    filled, outlines = filled_with_outlines(raw)
    assert np.array_equal(filled, fill_holes(raw)) and filled[50:60, 55:65].all()
    traced, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    assert len(outlines) == len(traced) > 1
    assert all(np.array_equal(a, b) for a, b in zip(outlines, traced, strict=True))
