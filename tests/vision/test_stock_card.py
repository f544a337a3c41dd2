"""The briscola half under the stock is read (``referee/vision/stock_card.py``), the stock's back
never is (simulated frames with the committed Italian model)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.cards import BACK
from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.views import LIVE_VIEWS
from referee.vision.calibrate import calibrate_image
from referee.vision.detections import Detections, Image
from referee.vision.finder import FinderConfig
from referee.vision.layout import TableLayout
from referee.vision.pipeline import FramePipeline, identify
from referee.vision.simulator.scene import SceneSpec, render_scene
from referee.vision.simulator.video import SimulatedGame, simulate_game
from referee.vision.stock_card import stock_card_quads

pytestmark = [
    pytest.mark.skipif(not (models_dir() / "italian.onnx").exists(), reason="no committed italian model"),
]

FRAME = 45  # dealt, the briscola turned, no hand over the table

CASES = [("briscola-4", 1, "check"), ("briscola-2", 1, "felt"), ("briscola-4", 2, "wood"), ("briscola-2", 2, "plain")]


@pytest.fixture(scope="module")
def classifier() -> CardClassifier:
    # the live loop reads each crop once, whatever views the model names for a single photo
    return CardClassifier.load("italian", threads=1, views=LIVE_VIEWS)


def _frame(sim: SimulatedGame, drop_briscola: bool = False) -> tuple[Image, list[tuple[str, bool]], TableLayout]:
    """The frame, the (code, face up) of the cards in the stock zone, and the layout."""
    frame = next(sim.frames(FRAME, FRAME + 1))
    layout = calibrate_image(frame.image, sim.seats)
    if not drop_briscola:
        stock = [(c.code, c.face_up) for c in frame.cards if layout.zone_of(tuple(np.mean(c.quad, axis=0))) == "stock"]
        return frame.image, stock, layout
    shot = next(s for s in reversed(sim.shots) if s.start <= FRAME / sim.fps)
    cards = tuple(c for c in shot.cards if c.role != "briscola")
    spec = SceneSpec(
        cards=cards, face_set=sim.face_set, texture=sim.texture, texture_seed=sim.seed, camera=sim.camera, card_height=sim.card_height
    )
    image = render_scene(spec, np.random.default_rng(0)).image
    return image, [(c.code, c.face_up) for c in cards if c.role == "stock"], layout


def _in_stock(dets: Detections, layout: TableLayout) -> list[str]:
    return [str(c) for q, c in zip(dets.quad, dets.card, strict=True) if layout.zone_of(tuple(q.mean(axis=0))) == "stock"]


@pytest.mark.parametrize(("game", "seed", "texture"), CASES)
def test_the_briscola_under_the_stock_is_read(classifier: CardClassifier, game: str, seed: int, texture: str) -> None:
    image, truth, layout = _frame(simulate_game(game, seed=seed, fps=10, texture=texture))
    briscola = [code for code, up in truth if up]
    assert len(briscola) == 1 and any(code == BACK for code, _ in truth)  # the scene is what we test
    dets = FramePipeline.create(classifier, layout=layout).process(image)
    assert _in_stock(dets, layout) == briscola


@pytest.mark.parametrize(("game", "seed", "texture"), CASES[:2])
def test_a_lone_stock_gives_no_card(classifier: CardClassifier, game: str, seed: int, texture: str) -> None:
    image, truth, layout = _frame(simulate_game(game, seed=seed, fps=10, texture=texture), drop_briscola=True)
    assert truth and all(not up for _, up in truth)
    stock_zone = layout.image_polygons()["stock"]
    assert len(stock_card_quads(image, stock_zone, FinderConfig())) == 0  # one card's blob: no guess
    dets = FramePipeline.create(classifier, layout=layout).process(image)
    assert _in_stock(dets, layout) == []


def test_no_stock_zone_no_extra_hypotheses(classifier: CardClassifier) -> None:
    """Without a layout (``referee detect`` on a photo) the pipeline is the finder and the
    classifier, as before."""
    image, _, _ = _frame(simulate_game("briscola-4", seed=1, fps=10, texture="check"))
    pipe = FramePipeline.create(classifier)
    assert len(pipe._stock_card(image)) == 0
    dets = pipe.process(image)
    plain = identify(FramePipeline.create(classifier).finder.find(image), classifier)
    assert dets.card.tolist() == plain.card.tolist()
    np.testing.assert_allclose(dets.quad, plain.quad)
