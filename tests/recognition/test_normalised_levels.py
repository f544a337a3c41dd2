"""The model input looked up per grey level is the per-pixel arithmetic's, bit for bit."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from referee.recognition import CardClassifier
from referee.recognition.preprocess import normalised, resize_crop


def _arithmetic(batch: npt.NDArray[np.uint8], mean: float, std: float) -> npt.NDArray[np.float32]:
    """The model input as the classifier computed it pixel by pixel (and training still does)."""
    rgb = batch[..., ::-1].astype(np.float32) * (1.0 / 255.0)
    out: npt.NDArray[np.float32] = np.ascontiguousarray(((rgb - mean) / std).transpose(0, 3, 1, 2))
    return out


@settings(max_examples=60, deadline=None)
@given(
    batch=arrays(np.uint8, st.tuples(st.integers(1, 4), st.integers(1, 12), st.integers(1, 9), st.just(3))),
    mean=st.floats(-2.0, 2.0), std=st.floats(0.01, 4.0),
)
def test_looked_up_levels_equal_the_arithmetic_bit_for_bit(batch: npt.NDArray[np.uint8], mean: float, std: float) -> None:
    got = normalised(batch, mean, std)
    want = _arithmetic(batch, mean, std)
    assert got.dtype == np.float32 and got.flags.c_contiguous and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_the_classifier_input_is_unchanged_for_crops_at_and_off_its_size() -> None:
    clf = CardClassifier.load("italian", threads=1, views=("turn", "tight"))
    w, h = clf.input_size
    rng = np.random.default_rng(7)
    crops = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8),  # the finder's crop: no resize
             rng.integers(0, 256, (2 * h, 2 * w, 3), dtype=np.uint8),  # a photo's: shrunk
             rng.integers(0, 256, (w, h, 3), dtype=np.uint8)]  # lying sideways: turned
    from referee.recognition.views import expand

    resized = np.stack([resize_crop(c, (w, h)) for c in crops])
    want = _arithmetic(expand(resized, clf.views), clf.info.mean, clf.info.std)
    assert clf.prepare(crops).tobytes() == want.tobytes()
