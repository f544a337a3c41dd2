"""Still-scene rendering: ground truth must describe exactly what the image shows."""

from __future__ import annotations

import numpy as np
import pytest

from referee.vision.layout import TableLayout
from referee.vision.simulator import (
    CameraSpec,
    CardSpec,
    HandSpec,
    SceneSpec,
    face_sets,
    random_scene,
    render_scene,
    texture_names,
)
from referee.vision.simulator.assets import AssetError, face_sprite
from referee.vision.simulator.textures import make_texture

ITALIAN = "invido_regional_lowres/trevisane"
LAYOUT = TableLayout.default(("S", "E", "N", "W"))


def _spec(cards: tuple[CardSpec, ...], hands: tuple[HandSpec, ...] = (), texture: str = "felt") -> SceneSpec:
    return SceneSpec(cards=cards, hands=hands, face_set=ITALIAN, texture=texture, camera=CameraSpec())


def _mean_inside(image: np.ndarray, quad: np.ndarray) -> float:
    import cv2

    mask = np.zeros(image.shape[:2], np.uint8)
    # shrink the quad towards its centre so edge antialiasing does not count
    centre = quad.mean(axis=0)
    inner = centre + (quad - centre) * 0.8
    cv2.fillConvexPoly(mask, inner.astype(np.int32), 1)
    return float(image[mask > 0].mean())


def test_frame_is_1280x720_bgr_uint8() -> None:
    frame = render_scene(_spec((CardSpec("coppe_3", (720, 405)),)), np.random.default_rng(0))
    assert frame.image.shape == (720, 1280, 3)
    assert frame.image.dtype == np.uint8


def test_quad_covers_the_drawn_card_on_dark_felt() -> None:
    frame = render_scene(_spec((CardSpec("denari_1", (500, 300), angle=30),)), np.random.default_rng(0))
    (card,) = frame.cards
    assert card.code == "denari_1" and card.face_up and card.occluded_fraction < 0.01
    # Card stock is much brighter than the felt around it.
    assert _mean_inside(frame.image, card.quad) > 150
    outside = card.quad + np.array([300.0, 0.0])
    assert _mean_inside(frame.image, outside) < 120


def test_quad_corner_order_is_upright_face_tl_tr_br_bl() -> None:
    frame = render_scene(_spec((CardSpec("spade_7", (720, 405), angle=0),)), np.random.default_rng(0))
    tl, tr, br, bl = frame.cards[0].quad
    assert tl[0] < tr[0] and bl[0] < br[0]  # left before right
    assert tl[1] < bl[1] and tr[1] < br[1]  # top above bottom
    assert np.linalg.norm(bl - tl) > np.linalg.norm(tr - tl)  # portrait


def test_card_under_another_card_is_occluded() -> None:
    under = CardSpec("coppe_1", (720, 405))
    over = CardSpec("coppe_2", (720, 405))
    shifted = CardSpec("coppe_3", (760, 405))  # partly over the stack
    frame = render_scene(_spec((under, over, shifted)), np.random.default_rng(0))
    occ = {c.code: c.occluded_fraction for c in frame.cards}
    assert occ["coppe_1"] > 0.99
    assert 0.2 < occ["coppe_2"] < 0.95
    assert occ["coppe_3"] < 0.01


def test_hand_over_a_card_occludes_it_and_a_held_card_is_reported_moving() -> None:
    card = CardSpec("bastoni_5", LAYOUT.play_spot("S"))
    held = CardSpec("bastoni_6", LAYOUT.play_spot("E"), face_up=True, seat="E", role="held", lift=20)
    hand_over = HandSpec(LAYOUT.edge_point("S"), LAYOUT.play_spot("S"), width=110)
    hand_holding = HandSpec(LAYOUT.edge_point("E"), LAYOUT.play_spot("E"), velocity=(-400.0, 0.0), holding=held)
    frame = render_scene(_spec((card,), (hand_over, hand_holding)), np.random.default_rng(0))
    by_code = {c.code: c for c in frame.cards}
    assert by_code["bastoni_5"].occluded_fraction > 0.1
    assert by_code["bastoni_6"].moving and by_code["bastoni_6"].role == "held"
    assert not by_code["bastoni_5"].moving


def test_face_down_card_is_not_face_up_and_looks_like_a_back() -> None:
    back = CardSpec("coppe_9", (720, 405), face_up=False, role="pile", seat="S")
    frame = render_scene(_spec((back,)), np.random.default_rng(0))
    assert not frame.cards[0].face_up and frame.cards[0].seat == "S"
    assert frame.face_up == []


def test_same_spec_and_seed_give_the_same_image_and_seed_varies_only_noise() -> None:
    spec = random_scene(np.random.default_rng(5), family="french")
    a = render_scene(spec, np.random.default_rng(1)).image
    b = render_scene(spec, np.random.default_rng(1)).image
    c = render_scene(spec, np.random.default_rng(2)).image
    assert np.array_equal(a, b)
    assert 0 < np.abs(a.astype(int) - c.astype(int)).mean() < 6


def test_lens_distortion_moves_ground_truth_with_the_image() -> None:
    ideal = CameraSpec()
    barrel = CameraSpec(k1=0.1)
    corner = [[100.0, 100.0]]
    p_ideal, p_barrel = ideal.project(corner)[0], barrel.project(corner)[0]
    centre = np.array([640.0, 360.0])
    # Barrel distortion pulls off-centre points towards the centre.
    assert np.linalg.norm(p_barrel - centre) < np.linalg.norm(p_ideal - centre) - 2
    mx, my = barrel.maps()
    x, y = (round(float(v)) for v in p_barrel)
    # The image pixel where the point is drawn sees (about) the same mat point.
    assert abs(mx[y, x] - 100) < 1.5 and abs(my[y, x] - 100) < 1.5


@pytest.mark.parametrize("family", ["italian", "french"])
def test_random_scenes_have_face_up_cards_and_the_stock(family: str) -> None:
    rng = np.random.default_rng(3)
    roles: set[str] = set()
    for _ in range(4):
        frame = render_scene(random_scene(rng, family=family), rng)
        roles |= {c.role for c in frame.cards}
        for c in frame.cards:
            assert c.quad.shape == (4, 2)
    assert {"trick", "stock"} <= roles


def test_every_texture_fills_the_table() -> None:
    rng = np.random.default_rng(0)
    for name in texture_names():
        cloth = make_texture(name, (320, 180), rng)
        assert cloth.shape == (180, 320, 3) and cloth.dtype == np.uint8, name
        assert cloth.std() > 1.0, name  # a cloth, not a flat fill


@pytest.mark.shared("faces")  # the borderless scans are not bundled
def test_both_families_have_face_sets_and_borderless_scans_get_a_white_border() -> None:
    assert "invido_regional_lowres/trevisane" in face_sets("italian")
    assert "kennard_cc0_svg/french" in face_sets("french")
    sprite = face_sprite("omerkel_scopa_commons/napoletane", "coppe_3")
    # The added margin is white card stock, and the corners are rounded away.
    assert sprite.image[sprite.image.shape[0] // 2, 2].mean() > 240
    assert sprite.alpha[0, 0] < 0.1 and sprite.alpha[sprite.alpha.shape[0] // 2, 2] > 0.9


def test_missing_face_names_the_set_and_card() -> None:
    with pytest.raises(AssetError, match="nope/none"):
        face_sprite("nope/none", "coppe_3")


def test_template_oracle_reads_ground_truth_crops() -> None:
    import cv2

    from referee.vision.simulator.oracle import TemplateClassifier

    rng = np.random.default_rng(11)
    spec = random_scene(rng, family="italian", face_set=ITALIAN, hands=0)
    frame = render_scene(spec, rng)
    cards = [c for c in frame.cards if c.occluded_fraction < 0.05]
    dst = np.array([[0, 0], [63, 0], [63, 111], [0, 111]], np.float32)
    crops = [cv2.warpPerspective(frame.image, cv2.getPerspectiveTransform(c.quad, dst), (64, 112)) for c in cards]
    preds = TemplateClassifier(ITALIAN, "italian").classify(crops)
    assert [p.card for p in preds] == [c.code if c.face_up else "back" for c in cards]
    assert all(p.top[0][0] == p.card for p in preds)
