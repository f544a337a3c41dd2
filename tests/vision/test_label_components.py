"""The finder's component labelling is OpenCV's, at 16 bits where a mask cannot need more."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.finder.segmentation import label_components


@pytest.mark.parametrize("connectivity", [8, 4])
@pytest.mark.parametrize("fill", [0.1, 0.3, 0.6])
def test_labels_and_stats_are_opencvs(connectivity: int, fill: float) -> None:
    rng = np.random.default_rng(3)
    mask = np.where(rng.random((90, 160)) < fill, 255, 0).astype(np.uint8)
    n, labels, stats = label_components(mask, connectivity)
    n32, labels32, stats32, _ = cv2.connectedComponentsWithStats(mask, connectivity=connectivity, ltype=cv2.CV_32S)
    assert n == n32 and n > 1
    assert np.array_equal(labels, labels32) and np.array_equal(stats, stats32)


def test_a_checkerboard_at_the_work_width_keeps_every_component_apart() -> None:
    # 4-connected, a 640x360 checkerboard is 115200 components: more than 16 bits count
    mask = (np.indices((360, 640)).sum(axis=0) % 2 * 255).astype(np.uint8)
    n, labels, stats = label_components(mask, 4)
    assert n == 360 * 640 // 2 + 1 and labels.dtype == np.int32
    assert len(np.unique(labels)) == n and (stats[1:, cv2.CC_STAT_AREA] == 1).all()
    # 8-connected it is one component, counted in 16 bits
    n8, labels8, _ = label_components(mask, 8)
    assert n8 == 2 and labels8.dtype == np.uint16
