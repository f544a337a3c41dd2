"""Table simulator: rendered top-down frames of a card table, with exact ground truth.

Still scenes::

    import numpy as np
    from referee.vision.simulator import random_scene, render_scene
    rng = np.random.default_rng(0)
    frame = render_scene(random_scene(rng, family="italian"), rng)
    frame.image            # BGR uint8, 1280x720 by default
    frame.cards            # list[GroundTruthCard]: code, quad (4x2 float32 image px, TL TR BR BL
                           # of the upright face), face_up, seat (or None), occluded_fraction,
                           # role ("trick" "stock" "briscola" "pile" "held"), moving

Scenes are plain data (:class:`SceneSpec` of :class:`CardSpec` and :class:`HandSpec` in *mat*
units, see :mod:`referee.vision.layout`, plus a :class:`CameraSpec`): build your own for tests.
Card faces come from ``../shared/faces/<set>/<deck>`` (:func:`face_sets`); cloths are the photos
in ``../shared/faces/scopy_lowres_and_textures/table_textures`` or generated ``check``,
``stripes``, ``felt``, ``wood``, ``plain`` (:func:`texture_names`).  The four ArUco markers of
the mat are drawn at its corners, so ``referee calibrate`` works on simulated frames.

Whole games as video: :func:`referee.vision.simulator.video.simulate_game` (imported lazily).
One deal refereed end to end (``referee demo``, ``benchmarks/vision_e2e.py``):
:func:`referee.vision.simulator.harness.run_demo` (the vision stage in ``stages``, the simulated
operator in ``operator``, what it writes in ``outputs``, the score in ``scoring``); its
detections saved and refereed again in seconds: ``recording`` (``.npz``, no pickle).
"""

from __future__ import annotations

from referee.vision.simulator.assets import AssetError, face_sets
from referee.vision.simulator.camera import CameraSpec
from referee.vision.simulator.random_scene import DEFAULT_FACE_SETS, random_scene
from referee.vision.simulator.scene import (
    CardSpec,
    GroundTruthCard,
    HandSpec,
    SceneSpec,
    SimFrame,
    render_scene,
)
from referee.vision.simulator.textures import texture_names

__all__ = [
    "DEFAULT_FACE_SETS",
    "AssetError",
    "CameraSpec",
    "CardSpec",
    "GroundTruthCard",
    "HandSpec",
    "SceneSpec",
    "SimFrame",
    "face_sets",
    "random_scene",
    "render_scene",
    "texture_names",
]
