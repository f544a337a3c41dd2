"""Court cards whose figure stands on a band running off the card's edge (beezlie Napoletane):
their white is a thin U the opening erases, so the finder proposes them from the blob's hull
(``finder._thin_card_hypotheses``).  Before, none of them was ever found, on any cloth."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.simulator import CameraSpec, CardSpec, SceneSpec, render_scene

pytestmark = pytest.mark.shared("faces")

NAPOLETANE = "beezlie_napoletane_digital/napoletane"
Quad = npt.NDArray[np.float32]


def _worst_corner(found: Quad, truth: Quad) -> float:
    d = np.linalg.norm(truth[:, None, :] - found[None, :, :], axis=2)
    return float(d.min(axis=1).max())


@pytest.mark.parametrize(("code", "texture"), [("bastoni_10", "felt"), ("denari_8", "legno"), ("coppe_10", "stripes")])
def test_a_court_card_on_a_band_is_found_whole(code: str, texture: str) -> None:
    spec = SceneSpec(cards=(CardSpec(code, (700, 400), angle=25),), face_set=NAPOLETANE, texture=texture, camera=CameraSpec())
    frame = render_scene(spec, np.random.default_rng(1))
    truth = np.asarray(frame.cards[0].quad, np.float32)
    long_side = float(max(np.linalg.norm(truth[1] - truth[0]), np.linalg.norm(truth[2] - truth[1])))
    finder = CardFinder(FinderConfig(split_when_still=True))
    finder.observe(truth[None])  # the card size known, as in the live loop after a few cards
    dets = finder.find(frame.image)
    assert min(_worst_corner(q, truth) for q in dets.quad) < 0.05 * long_side
    # one hypothesis, or two when the band's end is unknown; the mat's square ArUco markers are
    # no thin cards
    assert 1 <= list(finder.last_kinds.values()).count("thin") <= 2


@pytest.mark.parametrize("texture", ["felt", "legno"])
def test_a_court_card_on_top_of_a_trick_is_found_from_its_thin_margin(texture: str) -> None:
    cards = (CardSpec("coppe_5", (640, 360), angle=10, role="trick"), CardSpec("bastoni_10", (700, 400), angle=-25, role="trick"),
             CardSpec("spade_2", (620, 430), angle=80, role="trick"))
    frame = render_scene(SceneSpec(cards=cards, face_set=NAPOLETANE, texture=texture, camera=CameraSpec()), np.random.default_rng(1))
    court = np.asarray(frame.cards[1].quad, np.float32)
    long_side = float(max(np.linalg.norm(court[1] - court[0]), np.linalg.norm(court[2] - court[1])))
    finder = CardFinder(FinderConfig(split_when_still=True))
    finder.observe(np.asarray(frame.cards[2].quad, np.float32)[None])
    play_area = np.array([[500, 250], [820, 250], [820, 550], [500, 550]], np.float32)
    for _ in range(2):  # the trick lies still: split on the second look, as in the live loop
        dets = finder.find(frame.image, focus=play_area)
    assert min(_worst_corner(q, court) for q in dets.quad) < 0.05 * long_side
    assert "strip" in finder.last_kinds.values()
    # without the play area (a single photo) no strip hypotheses
    finder.find(frame.image)
    assert "strip" not in finder.last_kinds.values()
