"""Fitting quads to card edges (``referee.vision.refine``) on self-made scenes with known corners."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.finder_scenes import PlacedCard, make_scene
from referee.vision.refine import RefineCache, RefineConfig, refine_quads

Quad = npt.NDArray[np.float32]


def _worst(a: Quad, b: Quad) -> float:
    """Largest distance between corresponding corners (px)."""
    return float(np.linalg.norm(a - b, axis=1).max())


def _off(truth: Quad, shift: float, tilt: float) -> Quad:
    """The true quad with its top side moved out by ``shift`` px and its right side tilted by
    ``tilt`` px at each end: the finder's typical errors (a side off, a side at an angle)."""
    q = truth.copy()
    c = truth.mean(axis=0)
    up = (truth[0] + truth[1]) / 2 - c
    up /= np.linalg.norm(up)
    q[0] += shift * up
    q[1] += shift * up
    right = (truth[1] + truth[2]) / 2 - c
    right /= np.linalg.norm(right)
    q[1] += tilt * right
    q[2] -= tilt * right
    return q


@pytest.mark.parametrize("cloth", ["felt", "wood", "check"])
def test_a_quad_six_percent_off_is_fitted_to_within_one_and_a_half_percent(cloth: str) -> None:
    rng = np.random.default_rng(4)
    image, (truth,) = make_scene([PlacedCard((640, 360), 17.0, 170)], rng, cloth)
    rough = _off(truth, shift=10.0, tilt=5.0)
    assert _worst(rough, truth) >= 0.055 * 170
    refined, moved = refine_quads(image, rough[None])
    assert moved[0]
    assert _worst(refined[0], truth) <= 0.015 * 170


def test_a_large_photo_card_is_sampled_coarser_and_still_fitted() -> None:
    rng = np.random.default_rng(5)
    image, (truth,) = make_scene([PlacedCard((1000, 900), -25.0, 900)], rng, "wood", size=(2000, 1800))
    rough = _off(truth, shift=-45.0, tilt=20.0)  # 5% in, and a side tilted
    refined, moved = refine_quads(image, rough[None])
    assert moved[0] and _worst(refined[0], truth) <= 0.015 * 900


def test_a_side_hidden_under_another_card_stays_where_it_was_without_a_card_size() -> None:
    rng = np.random.default_rng(6)
    under, over = PlacedCard((600, 380), 0.0, 170), PlacedCard((600, 250), 0.0, 170)
    image, (truth, _) = make_scene([under, over], rng, "felt")  # the top third of ``under`` is covered
    rough = truth.copy()
    rough[:2, 1] += 20  # the finder's top side: somewhere on the covering card
    refined, _ = refine_quads(image, rough[None], cfg=RefineConfig(complete=False))
    assert np.allclose(refined[0, :2, 1], rough[:2, 1], atol=0.5)  # no edge there: not moved
    assert _worst(refined[0, 2:], truth[2:]) <= 0.015 * 170  # the visible corners are fitted


def test_a_hidden_side_is_placed_one_card_length_from_its_opposite_side() -> None:
    rng = np.random.default_rng(6)
    image, (truth, _) = make_scene([PlacedCard((600, 380), 0.0, 170), PlacedCard((600, 250), 0.0, 170)], rng, "felt")
    rough = truth.copy()
    rough[:2, 1] += 20
    rough[2:, 1] -= 6  # the bottom side a little inside too
    short, long_ = np.linalg.norm(truth[1] - truth[0]), np.linalg.norm(truth[2] - truth[1])
    refined, _ = refine_quads(image, rough[None], size=(float(short), float(long_)))
    assert _worst(refined[0], truth) <= 0.02 * 170
    plain, _ = refine_quads(image, rough[None], cfg=RefineConfig(complete=False), size=(float(short), float(long_)))
    assert np.allclose(plain[0, :2, 1], rough[:2, 1], atol=0.5)
    assert _worst(refined[0], truth) <= 0.02 * 170


def test_a_card_on_another_white_card_keeps_its_side_off_the_printed_frame_line() -> None:
    # Three cards of a trick: where the top card lies on the others its edge has no contrast,
    # and the frame line printed a few px inside must not be taken for it.
    rng = np.random.default_rng(11)
    spots = ((600, 330, 8), (690, 350, -20), (585, 405, -35))
    image, quads = make_scene([PlacedCard((x, y), a, 150) for x, y, a in spots], rng, "felt")
    rough = quads[2].copy()
    refined, _ = refine_quads(image, rough[None], cfg=RefineConfig(complete=False))
    assert _worst(refined[0], quads[2]) <= 0.03 * 150


def test_a_quad_with_no_edges_near_it_is_left_alone() -> None:
    rng = np.random.default_rng(2)
    image, _ = make_scene([], rng, "felt")
    rough = np.array([[500, 300], [600, 300], [600, 470], [500, 470]], np.float32)
    refined, moved = refine_quads(image, rough[None])
    assert not moved[0] and np.array_equal(refined[0], rough)
    empty, none = refine_quads(image, np.zeros((0, 4, 2), np.float32))
    assert empty.shape == (0, 4, 2) and none.shape == (0,)


def test_the_finder_refines_its_quads_and_reuses_them_on_a_still_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.vision.refine as refine

    calls: list[int] = []
    real = refine._refine

    def counting(image: object, quads: Quad, *args: object) -> object:
        calls.append(len(quads))
        return real(image, quads, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(refine, "_refine", counting)
    rng = np.random.default_rng(3)
    image, quads = make_scene([PlacedCard((400, 300), 30.0, 170), PlacedCard((850, 420), -60.0, 170)], rng, "wood")
    finder = CardFinder(FinderConfig())
    first = finder.find(image)
    errors = [min(_best_order(q, t) for q in first.quad) for t in quads]
    assert max(errors) <= 0.02 * 170  # single cards: every corner within 2%
    again = finder.find(image)
    assert len(calls) == 1 and np.array_equal(again.quad, first.quad)  # still: nothing refined again
    raw = CardFinder(FinderConfig(refine=None)).find(image)
    assert max(min(_best_order(q, t) for q in raw.quad) for t in quads) > max(errors)


def test_a_moved_card_is_refined_again() -> None:
    rng = np.random.default_rng(3)
    image, (truth,) = make_scene([PlacedCard((640, 360), 10.0, 170)], rng, "felt")
    cache = RefineCache()
    cfg = RefineConfig()
    rough = _off(truth, 8.0, 0.0)
    first = cache.refine(image, rough[None], None, 1.5, cfg, None)
    shifted = np.roll(image, 30, axis=1)
    second = cache.refine(shifted, (rough + np.array([30, 0], np.float32))[None], None, 1.5, cfg, None)
    assert _worst(second[0], first[0] + np.array([30, 0], np.float32)) <= 1.0


def _best_order(q: Quad, truth: Quad) -> float:
    """Worst corner error of ``q`` against ``truth`` in the best corner correspondence."""
    orders = [np.roll(q, k, axis=0) for k in range(4)] + [np.roll(q[::-1], k, axis=0) for k in range(4)]
    return min(_worst(o, truth) for o in orders)


def test_on_a_photo_the_unrefined_quad_stays_as_an_alternative_for_the_same_card() -> None:
    rng = np.random.default_rng(8)
    image, (truth,) = make_scene([PlacedCard((640, 360), 12.0, 170)], rng, "felt")
    # the size 12% off, so the fit moves the quads; with and without the raw alternatives
    only = CardFinder(FinderConfig(card_height=150, upper_threshold=True, keep_unrefined=False)).find(image)
    photo = CardFinder(FinderConfig(card_height=150, upper_threshold=True)).find(image)  # a photo: kept
    assert len(photo) > len(only) and np.array_equal(photo.quad[: len(only)], only.quad)
    extra = photo.quad[len(only):]
    assert set(photo.group[len(only):].tolist()) <= set(only.group.tolist())  # alternatives for the same cards
    assert min(_best_order(q, truth) for q in only.quad) <= 0.02 * 170 < min(_best_order(q, truth) for q in extra)
    frame = CardFinder(FinderConfig(card_height=150)).find(image)  # one frame, not a photo: refined quads only
    assert len(frame) == len(CardFinder(FinderConfig(card_height=150, refine=None)).find(image))


def test_the_live_loop_refines_only_when_asked() -> None:
    rng = np.random.default_rng(8)
    image, (truth,) = make_scene([PlacedCard((640, 360), 12.0, 170)], rng, "felt")
    raw = CardFinder(FinderConfig(card_height=150, refine=None)).find(image)
    live = CardFinder(FinderConfig(card_height=150, split_when_still=True)).find(image)
    assert np.array_equal(live.quad, raw.quad)
    fitted = CardFinder(FinderConfig(card_height=150, split_when_still=True, refine_live=True)).find(image)
    assert min(_best_order(q, truth) for q in fitted.quad) < min(_best_order(q, truth) for q in raw.quad)
