"""The simulated camera: mat -> image homography, lens distortion, uneven light, noise.

The image is made by one ``cv2.remap`` of the mat-space canvas (maps cached per camera), so a
whole video costs one map build.  Ground-truth points go the other way through
:meth:`CameraSpec.project`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.layout import MAT_SIZE, straight_homography

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class CameraSpec:
    """How the camera sees the mat.

    ``homography`` maps mat units to ideal (undistorted) image pixels; ``k1`` is radial lens
    distortion (positive = barrel, as in cheap wide lenses) over the half diagonal; light is a
    linear gradient of ``light_gradient`` (fraction) towards ``light_angle`` radians, a
    vignette and one brighter spot; ``noise`` is the sensor noise sigma in grey levels;
    ``exposure_s`` sets the motion-blur length of moving hands.
    """

    size: tuple[int, int] = (1280, 720)
    homography: tuple[tuple[float, ...], ...] = field(
        default_factory=lambda: tuple(tuple(r) for r in straight_homography((1280, 720)).tolist())
    )
    k1: float = 0.0
    light_gradient: float = 0.0
    light_angle: float = 0.0
    vignette: float = 0.0
    spot: tuple[float, float, float] = (0.5, 0.5, 0.0)  # (x, y) fraction of frame, strength
    brightness: float = 1.0
    noise: float = 0.0
    defocus: float = 0.0
    exposure_s: float = 1 / 30

    @property
    def matrix(self) -> npt.NDArray[np.float64]:
        return np.array(self.homography, np.float64)

    @staticmethod
    def random(rng: np.random.Generator, size: tuple[int, int] = (1280, 720), strength: float = 1.0) -> CameraSpec:
        """A mildly oblique, slightly rotated, unevenly lit camera (``strength`` 0 = ideal)."""
        w, h = size
        s = strength
        mat = np.array([[0, 0], [MAT_SIZE[0], 0], [MAT_SIZE[0], MAT_SIZE[1]], [0, MAT_SIZE[1]]], np.float32)
        base = cv2.perspectiveTransform(mat[None], straight_homography(size))[0]
        # Pull corners inwards by different amounts (oblique view) and rotate a little.
        inset = rng.uniform(0.0, 0.06 * s, (4, 2)) * np.array([w, h])
        toward = np.sign(np.array([w / 2, h / 2]) - base)
        dst = base + toward * inset
        ang = np.deg2rad(rng.uniform(-3, 3) * s)
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        dst = (dst - [w / 2, h / 2]) @ rot.T * (1 - 0.03 * s) + [w / 2, h / 2]
        hom = cv2.getPerspectiveTransform(mat, dst.astype(np.float32))
        return CameraSpec(
            size=size,
            homography=tuple(tuple(float(x) for x in row) for row in hom),
            k1=float(rng.uniform(0.0, 0.08) * s),
            light_gradient=float(rng.uniform(0.0, 0.45) * s),
            light_angle=float(rng.uniform(0, 2 * np.pi)),
            vignette=float(rng.uniform(0.0, 0.3) * s),
            spot=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)), float(rng.uniform(0, 0.25) * s)),
            brightness=float(rng.uniform(0.8, 1.1)) if s > 0 else 1.0,
            noise=float(rng.uniform(1.0, 4.0) * s),
            defocus=float(rng.uniform(0.0, 0.7) * s),
        )

    # ---- geometry -----------------------------------------------------------------------
    def project(self, mat_points: npt.ArrayLike) -> FloatArray:
        """Mat points -> distorted image pixels (where the camera shows them)."""
        pts = np.asarray(mat_points, np.float64).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.matrix).reshape(-1, 2)
        if self.k1 == 0.0:
            return ideal.astype(np.float32)
        centre, norm = self._centre_norm()
        d_u = (ideal - centre) / norm
        r_u = np.linalg.norm(d_u, axis=1)
        r_d = r_u.copy()
        for _ in range(20):  # invert r_u = r_d (1 + k1 r_d^2) by fixed point
            r_d = r_u / (1 + self.k1 * r_d**2)
        scale = np.where(r_u > 0, r_d / np.maximum(r_u, 1e-12), 1.0)
        out: FloatArray = (centre + d_u * scale[:, None] * norm).astype(np.float32)
        return out

    def _centre_norm(self) -> tuple[npt.NDArray[np.float64], float]:
        w, h = self.size
        return np.array([w / 2, h / 2]), float(np.hypot(w / 2, h / 2))

    def maps(self) -> tuple[FloatArray, FloatArray]:
        """``cv2.remap`` maps: for every image pixel, the mat point it sees (cached)."""
        return _maps(self)

    def gain(self) -> FloatArray:
        """Per-pixel light gain (h, w, 1) for the uneven light (cached)."""
        return _gain(self)


@cache
def _maps(cam: CameraSpec) -> tuple[FloatArray, FloatArray]:
    w, h = cam.size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    if cam.k1 != 0.0:
        centre, norm = cam._centre_norm()
        d = (pts - centre) / norm
        r2 = (d**2).sum(axis=1, keepdims=True)
        pts = centre + d * (1 + cam.k1 * r2) * norm
    mat = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.linalg.inv(cam.matrix)).reshape(h, w, 2)
    return mat[..., 0].astype(np.float32), mat[..., 1].astype(np.float32)


@cache
def _gain(cam: CameraSpec) -> FloatArray:
    w, h = cam.size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = xs / w - 0.5, ys / h - 0.5
    g = 1.0 + cam.light_gradient * (u * np.cos(cam.light_angle) + v * np.sin(cam.light_angle))
    g *= 1.0 - cam.vignette * (u**2 + v**2) * 2
    sx, sy, ss = cam.spot
    g *= 1.0 + ss * np.exp(-((xs / w - sx) ** 2 + (ys / h - sy) ** 2) / 0.03)
    out: FloatArray = (g * cam.brightness).astype(np.float32)[..., None]
    return out


@cache
def noise_fields(size: tuple[int, int], sigma: float, seed: int = 0) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Sensor noise a bit larger than the frame, split in its positive and negative parts.

    Frames take shifted windows and apply them with saturating uint8 adds (fast, no floats).
    """
    w, h = size
    rng = np.random.default_rng(seed)
    noise = np.round(rng.normal(0, sigma, (h + 64, w + 64, 3)))
    up = np.clip(noise, 0, 255).astype(np.uint8)
    down = np.clip(-noise, 0, 255).astype(np.uint8)
    return up, down
