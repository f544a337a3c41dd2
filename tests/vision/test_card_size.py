"""The live card size is measured on the cards' edges (``referee.vision.card_size``), so sure
reads of quads cut at the wrong size or aspect cannot set it.

The scene that broke it (vision_e2e briscola-2 seed 2): a Napoletane print of aspect 1.38 on a
check cloth; the size learned from the sure reads' own quads drifted to aspect ~1.5, the trick
quads then cut the outer pips off, and coppe_5 was read as coppe_3.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from referee.rules import Referee
from referee.vision.card_size import EdgeSizes
from referee.vision.detections import Detections
from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.simulator import CameraSpec, CardSpec, SceneSpec, render_scene

pytestmark = pytest.mark.shared("faces")

Quad = npt.NDArray[np.float32]
NAPOLETANE = "beezlie_napoletane_digital/napoletane"  # aspect 1.38


def _card_on_cloth(face_set: str, texture: str = "check") -> tuple[npt.NDArray[np.uint8], Quad]:
    code = "5H" if face_set.endswith("/french") else "coppe_5"
    spec = SceneSpec(cards=(CardSpec(code, (700, 400), angle=25),),
                     face_set=face_set, texture=texture, camera=CameraSpec())
    frame = render_scene(spec, np.random.default_rng(0))
    (card,) = frame.cards
    return frame.image, np.asarray(card.quad, np.float32)


def _sides(quad: Quad) -> tuple[float, float]:
    a, b = float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[1]))
    return min(a, b), max(a, b)


def _recut(quad: Quad, aspect: float, shift: float = 0.0) -> Quad:
    """The card's quad with its long side kept and its short side set to long / ``aspect``
    (a rectangle built at the wrong card size), moved ``shift`` px along the short side."""
    long_ = _sides(quad)[1]
    u = (quad[1] - quad[0]) / np.linalg.norm(quad[1] - quad[0])
    v = (quad[3] - quad[0]) / np.linalg.norm(quad[3] - quad[0])
    if np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[3] - quad[0]):
        u, v = v, u
    centre = quad.mean(axis=0) + shift * u
    w, h = long_ / aspect / 2, long_ / 2
    return np.array([centre - u * w - v * h, centre + u * w - v * h, centre + u * w + v * h, centre - u * w + v * h], np.float32)


@pytest.mark.parametrize("face_set", [NAPOLETANE, "invido_regional_lowres/trevisane", "english_pattern_fomin_cc0/french"])
def test_a_sure_read_of_a_quad_cut_at_aspect_1_6_measures_the_real_card(face_set: str) -> None:
    image, truth = _card_on_cloth(face_set)
    short, long_ = _sides(truth)
    finder = CardFinder(FinderConfig(split_when_still=True))
    assert finder.observe(_recut(truth, 1.6)[None], image)
    size = finder.card_size
    assert size is not None
    assert abs(size[0] - short) < 0.05 * short and abs(size[1] - long_) < 0.05 * long_, (size, (short, long_))
    assert abs(size[1] / size[0] - long_ / short) < 0.06


def test_a_measured_size_is_not_moved_by_sure_reads_that_cannot_be_measured() -> None:
    image, truth = _card_on_cloth(NAPOLETANE)
    short, _ = _sides(truth)
    finder = CardFinder(FinderConfig(split_when_still=True))
    finder.observe(_recut(truth, 1.6)[None], image)
    for i in range(30):  # quads cut too narrow and off the card's middle, each a little apart
        finder.observe(_recut(truth, 1.9, shift=12.0 + 0.5 * i)[None], image)
    size = finder.card_size
    assert size is not None and abs(size[0] - short) < 0.05 * short, (size, short)
    assert 1.3 < size[1] / size[0] < 1.45  # the print's 1.38, never the quads' 1.9


def test_without_the_frame_the_quads_shape_is_blended_in_as_before() -> None:
    finder = CardFinder()
    assert finder.observe(np.array([[[0, 0], [80, 0], [80, 128], [0, 128]]], np.float32))
    assert finder.card_size == pytest.approx((80.0, 128.0))


def test_a_card_lying_still_is_measured_once_and_the_median_ignores_one_odd_card() -> None:
    image, truth = _card_on_cloth(NAPOLETANE)
    model = EdgeSizes()
    first = model.update(image, truth[None])
    assert first is not None and len(model._sizes) == 1
    model.update(image, truth[None])
    assert len(model._sizes) == 1  # the same quad again: not measured twice
    for shift in (1.5, 3.0):
        model.update(image, _recut(truth, _sides(truth)[1] / _sides(truth)[0], shift)[None])
    model._sizes.append((40.0, 200.0))  # one wild measurement
    size = model.size
    assert size is not None and abs(size[0] - first[0]) < 0.03 * first[0]


class _CutQuadPipeline:
    """A frame pipeline stand-in that reads one quad, cut at aspect 1.6, surely: as the live
    loop's quads built at a wrong card size were."""

    def __init__(self, quad: Quad) -> None:
        self.finder = CardFinder(FinderConfig(split_when_still=True))
        self.dets = Detections(quad=quad[None], card=np.array(["coppe_5"], object), confidence=np.array([0.95], np.float32))

    def process(self, image: npt.NDArray[np.uint8]) -> Detections:
        return self.dets

    find_card_size = process


def test_the_live_loop_learns_a_napoletane_cards_aspect_not_the_sure_quads_one() -> None:
    from referee.vision.live import LiveVision
    from referee.vision.tracker import PlayTracker, RefereeView

    image, truth = _card_on_cloth(NAPOLETANE)
    short, long_ = _sides(truth)
    pipeline = _CutQuadPipeline(_recut(truth, 1.6))
    referee = Referee()
    live = LiveVision(pipeline, PlayTracker(lambda p: "S", lambda p: "play", RefereeView(referee)), referee)  # type: ignore[arg-type]
    for _ in range(5):
        live.detect(image)
    size = pipeline.finder.card_size
    assert size is not None and abs(size[1] / size[0] - long_ / short) < 0.06, (size, long_ / short)


def _scaled(quad: Quad, factor: float, shift: float = 0.0, corner: int | None = None) -> Quad:
    """``quad`` scaled by ``factor`` about its centre, or about one of its corners (a quad built
    from one card corner at the wrong size), then moved ``shift`` px."""
    pivot = quad.mean(axis=0) if corner is None else quad[corner]
    out: Quad = (pivot + (quad - pivot) * factor + np.float32(shift)).astype(np.float32)
    return out


def _two_cards_on_cloth() -> tuple[npt.NDArray[np.uint8], Quad]:
    spec = SceneSpec(cards=(CardSpec("coppe_5", (480, 400), angle=25), CardSpec("spade_2", (820, 360), angle=-10)),
                     face_set="invido_regional_lowres/trevisane", texture="check", camera=CameraSpec())
    frame = render_scene(spec, np.random.default_rng(0))
    return frame.image, np.stack([np.asarray(c.quad, np.float32) for c in frame.cards])


@pytest.mark.parametrize(("factor", "corner"), [(1.4, None), (1.75, None), (0.75, None), (1.33, 0), (1.33, 2), (1.75, 1)])
def test_before_any_measurement_cards_cut_at_a_far_wrong_size_are_measured_rescaled(factor: float, corner: int | None) -> None:
    """The live loop's first size can be far off (an arm read surely, a card held near the camera):
    the quads cut at it miss the card edges by more than the fit reaches, so the quads of cards
    lying still are tried rescaled, and two cards must agree."""
    image, truth = _two_cards_on_cloth()
    short, long_ = _sides(truth[0])
    cut = np.stack([_scaled(t, factor, corner=corner) for t in truth])
    plain = EdgeSizes(bootstrap_scales=())
    assert plain.update(image, cut) is None and plain.update(image, cut) is None  # out of the fit's reach
    model = EdgeSizes()
    assert model.update(image, cut) is None  # first seen: moving, perhaps in a hand
    size = model.update(image, cut)  # lying still
    assert size is not None
    assert abs(size[0] - short) < 0.05 * short and abs(size[1] - long_) < 0.05 * long_, (size, (short, long_))


def test_one_card_measured_rescaled_is_not_enough() -> None:
    image, truth = _two_cards_on_cloth()
    model = EdgeSizes()
    cut = _scaled(truth[0], 1.4)[None]
    for _ in range(4):
        assert model.update(image, cut) is None
    assert len(model._pending) == 1  # tried once while it lies still


def test_rescaled_fits_that_disagree_are_not_taken() -> None:
    model = EdgeSizes()
    model._pending += [(55.0, 99.0, 100.0, 100.0), (70.0, 125.0, 400.0, 100.0)]
    blank = np.full((720, 1280, 3), 90, np.uint8)  # no edges anywhere: nothing fits at any scale
    quad = np.array([[[600, 300], [670, 300], [670, 420], [600, 420]]], np.float32)
    assert model.update(blank, quad) is None and model.update(blank, quad) is None


def test_once_a_card_is_measured_rescaled_fits_are_not_tried() -> None:
    image, truth = _two_cards_on_cloth()
    model = EdgeSizes()
    first = model.update(image, truth[:1])
    assert first is not None
    cut = np.stack([truth[0], _scaled(truth[1], 1.5)])
    model.update(image, cut)
    model.update(image, cut)
    assert len(model._sizes) == 1 and not model._pending and not model._tried


def test_a_card_has_a_white_margin_and_a_rectangle_of_check_squares_has_not() -> None:
    from referee.vision.refine import measured_sizes, white_gains, white_margin

    image, truth = _two_cards_on_cloth()
    gains = white_gains(image[::2, ::2])
    sizes, _, corners = measured_sizes(image, truth, gains)
    assert len(sizes) == 2 and (white_margin(image, corners, gains) >= 0.9).all()
    sizes, _, corners = measured_sizes(image, _scaled(truth[1], 1.75)[None], gains)
    assert len(sizes) == 1 and sizes[0, 0] > 1.5 * _sides(truth[1])[0]  # four sides on square edges
    assert white_margin(image, corners, gains)[0] < 0.6


class _CountingPipeline:
    """A frame pipeline stand-in that reads nothing surely and counts the size searches."""

    def __init__(self, finder: CardFinder) -> None:
        self.finder = finder
        self.searches = 0

    def process(self, image: npt.NDArray[np.uint8]) -> Detections:
        return Detections.empty()

    def find_card_size(self, image: npt.NDArray[np.uint8]) -> Detections:
        self.searches += 1
        return Detections.empty()


def _live(finder: CardFinder) -> tuple[object, _CountingPipeline]:
    from referee.vision.live import LiveVision
    from referee.vision.tracker import PlayTracker, RefereeView

    pipeline = _CountingPipeline(finder)
    referee = Referee()
    live = LiveVision(pipeline, PlayTracker(lambda p: "S", lambda p: "play", RefereeView(referee)), referee)  # type: ignore[arg-type]
    return live, pipeline


def test_a_size_from_quads_alone_is_searched_again_when_nothing_is_read_surely_for_3_s() -> None:
    """An arm read surely as the first card set 98x173 px for cards of 55x99, and then no card
    was read surely for 14 s: a size never measured on card edges is a guess, searched again."""
    from referee.vision.live import LOST_FRAMES

    image = np.zeros((720, 1280, 3), np.uint8)
    guessed = CardFinder()
    guessed.observe(np.array([[[0, 0], [98, 0], [98, 173], [0, 173]]], np.float32))  # quads only
    assert guessed.observed and not guessed.measured
    live, pipeline = _live(guessed)
    for _ in range(LOST_FRAMES):
        live.detect(image)  # type: ignore[attr-defined]
    assert pipeline.searches == 0
    for _ in range(10):
        live.detect(image)  # type: ignore[attr-defined]
    assert pipeline.searches == 2  # every 5th frame, as at the start


def test_a_measured_size_is_never_searched_again() -> None:
    image, truth = _card_on_cloth(NAPOLETANE)
    finder = CardFinder(FinderConfig(split_when_still=True))
    finder.observe(truth[None], image)
    assert finder.measured
    live, pipeline = _live(finder)
    for _ in range(60):
        live.detect(np.zeros_like(image))  # type: ignore[attr-defined]
    assert pipeline.searches == 0


def test_one_card_measured_twice_is_not_two_cards_agreeing() -> None:
    from referee.vision.card_size import _agreeing

    same_card = [(55.0, 99.0, 300.0, 200.0), (55.5, 98.5, 302.0, 201.0)]
    assert _agreeing(same_card, 0.08) == []
    two_cards = [(55.0, 99.0, 300.0, 200.0), (55.5, 98.5, 420.0, 200.0)]
    assert _agreeing(two_cards, 0.08) == [(55.0, 99.0), (55.5, 98.5)]
