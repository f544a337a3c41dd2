"""Splitting overlapping cards by their outlines (``referee.vision.outline``) on self-made scenes."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder_scenes import PlacedCard, make_scene

Quad = npt.NDArray[np.float32]


def _corner_error(found: Quad, truth: Quad) -> float:
    """Largest distance from a true corner to the nearest found corner (px)."""
    d = np.linalg.norm(truth[:, None, :] - found[None, :, :], axis=2)
    return float(d.min(axis=1).max())


def _best_error(quads: Quad, truth: Quad) -> float:
    return min((_corner_error(q, truth) for q in quads), default=np.inf)


def _trick(cloth: str) -> tuple[np.ndarray, list[Quad]]:
    """Three cards played into the middle, each overlapping the ones before (as in a trick)."""
    rng = np.random.default_rng(11)
    spots = ((600, 330, 8), (690, 350, -20), (585, 405, -35))
    return make_scene([PlacedCard((x, y), a, 150) for x, y, a in spots], rng, cloth)


@pytest.mark.parametrize("cloth", ["felt", "wood"])
def test_every_card_of_a_trick_is_found_by_its_outline(cloth: str) -> None:
    image, quads = _trick(cloth)
    dets = CardFinder(FinderConfig(card_height=145, split="outline")).find(image)
    assert all(_best_error(dets.quad, q) < 0.06 * 150 for q in quads)  # corners within 6% of the card
    assert len(dets) <= 5  # a few spare hypotheses at most: the classifier reads each


def test_outline_split_measures_the_card_size_when_the_guess_is_off() -> None:
    rng = np.random.default_rng(7)
    cards = [PlacedCard((600, 360), 4, 170), PlacedCard((660, 360), -6, 170)]
    image, quads = make_scene(cards, rng, "felt")
    for guess in (150.0, 190.0):  # the layout's card size 12% off either way
        dets = CardFinder(FinderConfig(card_height=guess, split="outline")).find(image)
        assert all(_best_error(dets.quad, q) < 0.06 * 170 for q in quads), guess


def test_live_finder_splits_a_trick_once_it_lies_still_and_reuses_the_split(monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.vision.outline import outline_quads as real

    calls: list[int] = []

    def counting(*args: object, **kwargs: object) -> list[tuple[float, Quad]]:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("referee.vision.finder.blobs.outline_quads", counting)
    image, quads = _trick("felt")
    finder = CardFinder(FinderConfig(card_height=145, split_when_still=True))
    finder.find(image)
    assert calls == []  # first sight (a card arriving, a hand passing): corners only
    still = finder.find(image)
    assert len(calls) == 1 and all(_best_error(still.quad, q) < 0.06 * 150 for q in quads)
    again = finder.find(image)
    assert len(calls) == 1  # the same blob: its split is reused
    assert np.allclose(np.sort(again.quad.reshape(-1)), np.sort(still.quad.reshape(-1)))
