"""The recognition benchmarks' court/pip split of a print's accuracy."""

from __future__ import annotations

import numpy as np


def test_benchmark_splits_courts_from_pips() -> None:
    from referee.recognition.evaluate import court_pip_split, is_court_code

    assert is_court_code("QS") and is_court_code("coppe_9") and is_court_code("spade_10")
    assert not is_court_code("10S") and not is_court_code("coppe_1") and not is_court_code("back")
    labels = ["QS", "10S", "back"]
    truth = np.array([0, 0, 1, 1, 2])
    pred = np.array([0, 1, 1, 1, 0])
    split = court_pip_split(pred, truth, ["a", "a", "a", "b", "a"], labels)
    assert split == {"a": {"courts": [2, 0.5], "pips": [1, 1.0]}, "b": {"pips": [1, 1.0]}}
