"""White balance gains from each channel's histogram: the pixels' own 98th percentile."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from referee.vision.refine import white_gains


def _gains_from_pixels(small: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    ref = np.percentile(small[::4, ::4].reshape(-1, 3), 98, axis=0).astype(np.float32) + 1.0
    gains = (ref.max() / ref).astype(np.float32)
    return np.ones(3, np.float32) if float(gains.max()) < 1.05 else np.minimum(gains, 1.5).astype(np.float32)


@settings(max_examples=80, deadline=None)
@given(small=arrays(np.uint8, st.tuples(st.integers(1, 40), st.integers(1, 40), st.just(3))))
def test_gains_are_the_pixels_percentiles_bit_for_bit(small: npt.NDArray[np.uint8]) -> None:
    assert white_gains(small).tobytes() == _gains_from_pixels(small).tobytes()


def test_warm_light_is_balanced_and_a_neutral_frame_is_left_alone() -> None:
    rng = np.random.default_rng(5)
    grey = rng.integers(0, 230, (360, 640, 1), dtype=np.uint8).repeat(3, axis=2)
    warm = np.clip(grey * np.array([0.8, 0.95, 1.0]), 0, 255).astype(np.uint8)  # BGR: blue dimmed
    assert white_gains(grey).tolist() == [1.0, 1.0, 1.0]
    gains = white_gains(warm)
    assert gains[0] > 1.2 and gains[2] == 1.0
    assert gains.tobytes() == _gains_from_pixels(warm).tobytes()
