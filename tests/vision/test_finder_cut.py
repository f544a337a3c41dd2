"""The finder's quads first, their crops later: the live frame cuts only the quads it keeps."""

from __future__ import annotations

import numpy as np

from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder_scenes import make_scene, random_cards


def _table() -> np.ndarray:
    rng = np.random.default_rng(4)
    image: np.ndarray = make_scene(random_cards(rng, 5, height=120), rng, "felt")[0]
    return image


def test_quads_found_uncut_then_cut_are_the_found_crops() -> None:
    image = _table()
    whole = CardFinder(FinderConfig(split_when_still=True)).find(image)
    finder = CardFinder(FinderConfig(split_when_still=True))
    quads = finder.find(image, cut=False)
    assert len(whole) >= 3 and quads.crops == []
    assert np.array_equal(quads.quad, whole.quad) and np.array_equal(quads.group, whole.group)
    kept = quads[np.arange(len(quads)) % 2 == 0]  # the caller drops some first
    cut = finder.cut(image, kept)
    assert len(cut.crops) == len(kept)
    assert all(np.array_equal(a, b) for a, b in zip(cut.crops, whole.crops[::2], strict=True))
