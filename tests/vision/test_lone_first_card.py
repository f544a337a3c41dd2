"""The first card laid on a table whose card size the live loop does not know yet (no card read
surely since the box started): it is played as itself, or asked about, never played surely as
another card.

Regression: a lone ``coppe_3`` on the check cloth, at the size search's larger prior (a card 0.24
of the frame tall), merged with the white check squares beside it into a hull one guessed card
wide, proposed as a 'thin' court card about 1.5 cards tall, read ``coppe_7`` at 0.98 and played
surely at 0.3 s; the card size learned from it stayed wrong (105 x 173 px for a 62 x 113 px card).
A guessed size is now borne out only by sure cards whose own outline has it."""

from __future__ import annotations

import numpy as np
import pytest

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.views import LIVE_VIEWS
from referee.rules.referee import Referee
from referee.table.proposal import ProposedPlay
from referee.vision.layout import TableLayout, default_seat_names
from referee.vision.live import LiveVision
from referee.vision.simulator.camera import CameraSpec
from referee.vision.simulator.scene import CardSpec, SceneSpec, render_scene

pytestmark = pytest.mark.skipif(not (models_dir() / "italian.onnx").exists(), reason="no committed italian model")

FACES = "invido_regional_lowres/trevisane"  # bundled with the package (referee/vision/assets)
CAMERA = CameraSpec()
CARD_HEIGHT = 130.0
FPS = 10.0
#: the arbiter's ``confirm_below``: a play under it is put to the operator, never applied
CONFIRM_BELOW = 0.8


def _plays(card: CardSpec, texture: str, seed: int, frames: int = 24) -> list[ProposedPlay]:
    layout = TableLayout.default(default_seat_names(2), CAMERA.size, CAMERA.matrix)
    live = LiveVision.create(layout, CardClassifier.load("italian", threads=1, views=LIVE_VIEWS), Referee(), apply_plays=False)
    rng = np.random.default_rng(seed)
    spec = SceneSpec(cards=(card,), face_set=FACES, texture=texture, texture_seed=seed, camera=CAMERA,
                     card_height=CARD_HEIGHT)
    plays: list[ProposedPlay] = []
    for i in range(frames):
        plays += live.update(render_scene(spec, rng).image, i / FPS)
    return plays


def _sure_wrong(plays: list[ProposedPlay], card: str) -> list[str]:
    return [p.card for p in plays
            if p.card != card and not p.uncertain and (p.confidence or 0.0) >= CONFIRM_BELOW and p.correction is None]


def test_a_lone_first_card_on_felt_is_played_as_itself() -> None:
    card = CardSpec("coppe_3", (720.0, 353.8), 8.0, seat="N", role="trick")
    plays = _plays(card, "felt", 0)
    assert [p.card for p in plays] == ["coppe_3"]


def test_a_lone_first_card_on_the_check_cloth_is_never_played_surely_as_another() -> None:
    card = CardSpec("coppe_3", (720.0, 353.8), 8.0, seat="N", role="trick")
    plays = _plays(card, "check", 1)
    assert _sure_wrong(plays, "coppe_3") == []
    assert [p.card for p in plays] == ["coppe_3"]
