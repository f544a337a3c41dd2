"""The finder's work image stays a frame's size whatever the image's shape: a tall thin image
(a 500x50 strip) scaled to ``work_width`` wide was 6400x640 work pixels, 18 times a 1280x720
frame's, and every pass of the finder costs in proportion to them."""

from __future__ import annotations

import numpy as np
import pytest

from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder.card_finder import work_scale

CFG = FinderConfig()
MAX_WORK_PIXELS = CFG.work_width * CFG.work_width * CFG.max_work_aspect


@pytest.mark.parametrize("shape", [(500, 50), (1000, 50), (4000, 40), (2000, 64)])
def test_tall_thin_noise_is_worked_at_most_at_a_frames_size(shape: tuple[int, int]) -> None:
    image = np.random.default_rng(0).integers(0, 256, (*shape, 3), dtype=np.uint8)
    finder = CardFinder(FinderConfig(upper_threshold=True, edge_regions=True))
    dets = finder.find(image)
    height, width = finder.last_work_shape
    assert height * width <= MAX_WORK_PIXELS + width  # + a row of rounding
    assert height <= CFG.max_work_aspect * CFG.work_width + 1
    assert len(dets) == 0  # noise holds no card


@pytest.mark.parametrize("shape", [(720, 1280), (480, 640), (4000, 3000), (113, 50), (1400, 640)])
def test_frames_and_card_scans_keep_the_work_width(shape: tuple[int, int]) -> None:
    """Up to aspect 2.5 (a card scan is at most 2.3) nothing changes: ``work_width`` wide."""
    assert work_scale(shape, CFG) == pytest.approx(CFG.work_width / shape[1])


def test_a_wide_strip_is_scaled_by_its_width() -> None:
    assert work_scale((50, 5000), CFG) == pytest.approx(CFG.work_width / 5000)
