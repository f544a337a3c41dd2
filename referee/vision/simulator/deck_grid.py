"""A deck laid out face up in a grid under the box's camera, rendered: what ``referee enroll
--camera`` and the box's "Enrol deck" see on a simulated table (``camera.source = "sim"``) and
what ``benchmarks/enroll_table.py`` times.

The cards lie as a club lays them by eye: in the rows of a
:class:`~referee.vision.enroll_grid.GridPlan`, each a little off its place and turned a few
degrees, on a plain dark cloth, seen by a mildly oblique, unevenly lit camera.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from referee.vision.enroll_grid import GAP_X, GAP_Y, GridPlan
from referee.vision.layout import MAT_SIZE, marker_centres
from referee.vision.simulator.camera import CameraSpec
from referee.vision.simulator.random_scene import DEFAULT_FACE_SETS
from referee.vision.simulator.scene import CardSpec, SceneSpec, SimFrame, card_size, render_scene

#: how far a card lies off its place (share of the space between two cards) and turned (degrees)
SHIFT = 0.12
TURN = 4.0


def laid_out_scene(codes: Sequence[str], columns: int, card_px: float, rng: np.random.Generator,
                   face_set: str | None = None, texture: str = "felt", camera_strength: float = 0.3,
                   frame_size: tuple[int, int] = (1280, 720)) -> SceneSpec:
    """``codes`` face up in rows of ``columns`` (read row by row), centred on the mat, each card
    ``card_px`` tall in a ``frame_size`` frame."""
    family = "french" if codes and not any("_" in c for c in codes) else "italian"
    face_set = face_set or DEFAULT_FACE_SETS[family]
    scale = min(frame_size[0] / MAT_SIZE[0], frame_size[1] / MAT_SIZE[1])  # image px per mat unit
    height = card_px / scale
    width, _ = card_size(face_set, height)
    pitch_x, pitch_y = width * (1 + GAP_X), height * (1 + GAP_Y)
    rows = -(-len(codes) // columns)
    x0 = MAT_SIZE[0] / 2 - pitch_x * (min(columns, len(codes)) - 1) / 2
    y0 = MAT_SIZE[1] / 2 - pitch_y * (rows - 1) / 2
    cards = []
    for n, code in enumerate(codes):
        row, col = divmod(n, columns)
        centre = (x0 + col * pitch_x + rng.uniform(-SHIFT, SHIFT) * pitch_x * GAP_X / (1 + GAP_X),
                  y0 + row * pitch_y + rng.uniform(-SHIFT, SHIFT) * pitch_y * GAP_Y / (1 + GAP_Y))
        cards.append(CardSpec(code, (float(centre[0]), float(centre[1])), float(rng.uniform(-TURN, TURN))))
    return SceneSpec(tuple(cards), face_set=face_set, texture=texture, texture_seed=int(rng.integers(0, 2**31)),
                     camera=CameraSpec.random(rng, size=frame_size, strength=camera_strength), card_height=height)


class LaidOutDeck:
    """The club's table while it enrols: layout ``k`` of ``plan`` lies under the camera once
    :meth:`lay_out` put it there; :meth:`frames` are the camera's frames of it (sensor noise
    differs between frames, the cards do not move)."""

    def __init__(self, order: Sequence[str], plan: GridPlan, seed: int = 0, face_set: str | None = None,
                 texture: str = "felt", frame_size: tuple[int, int] = (1280, 720)) -> None:
        self.layout_codes = plan.layout_codes(order)
        self.plan, self.seed, self.face_set, self.texture, self.frame_size = plan, seed, face_set, texture, frame_size
        self.scene: SceneSpec | None = None
        self.rng = np.random.default_rng(seed)

    def lay_out(self, layout: int) -> None:
        rng = np.random.default_rng([self.seed, layout])
        self.scene = laid_out_scene(self.layout_codes[layout], self.plan.columns, self.plan.card_px, rng,
                                    self.face_set, self.texture, frame_size=self.frame_size)

    def markers(self) -> list[tuple[float, float]]:
        """The centres of the mat's corner markers in the frame (image px), as a calibrated
        layout gives them."""
        if self.scene is None:
            return []
        points = self.scene.camera.project(np.array(list(marker_centres().values()), np.float64))
        return [(float(x), float(y)) for x, y in points]

    def frames(self, count: int) -> Iterator[SimFrame]:
        if self.scene is None:
            raise ValueError("nothing laid out yet: call lay_out(layout) first")
        for _ in range(count):
            yield render_scene(self.scene, self.rng)
