"""Crop -> model input: the one preprocessing shared by training, export and runtime.

Training renders its synthetic crops through :func:`resize_crop` too, so the model never
sees a resampling it will not meet at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import BadCardError

#: Model input (width, height): portrait, about the aspect of an Italian/French card.
INPUT_SIZE: tuple[int, int] = (64, 96)
#: Per-channel normalisation applied after scaling RGB to 0..1.
MEAN = 0.5
STD = 0.25
#: Smallest crop side accepted; anything smaller is not a card crop.
MIN_SIDE = 8

U8Image = npt.NDArray[np.uint8]
F32Array = npt.NDArray[np.float32]


def check_input_size(size: Sequence[int]) -> tuple[int, int]:
    """``size`` as a model input (width, height): portrait, each side 32-256 px, else a ValueError."""
    if len(size) != 2:
        raise ValueError(f"model input size {tuple(size)}: expected width and height")
    w, h = (int(v) for v in size)
    if not (32 <= w <= 256 and 32 <= h <= 256 and h >= w):
        raise ValueError(f"model input size {w}x{h}: expected a portrait width x height, each 32-256 px")
    return w, h


def check_crop(crop: object, index: int = 0) -> U8Image:
    """Return ``crop`` if it is a BGR uint8 image of usable size, else raise naming it."""
    if not isinstance(crop, np.ndarray) or crop.dtype != np.uint8:
        kind = getattr(crop, "dtype", type(crop).__name__)
        raise BadCardError(f"crop {index}: expected a uint8 BGR numpy image, got {kind}")
    if crop.ndim != 3 or crop.shape[2] != 3:
        raise BadCardError(f"crop {index}: expected shape (height, width, 3), got {crop.shape}")
    if min(crop.shape[:2]) < MIN_SIDE:
        raise BadCardError(f"crop {index}: {crop.shape[1]}x{crop.shape[0]} px is too small")
    return crop


def resize_crop(crop: U8Image, size: tuple[int, int] = INPUT_SIZE) -> U8Image:
    """Portrait BGR crop resized to ``size`` (landscape crops are turned a quarter first)."""
    h, w = crop.shape[:2]
    if w > h:
        # The contract is portrait; a landscape crop is a card lying sideways.
        crop = np.asarray(cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE), np.uint8)
    interp = cv2.INTER_AREA if crop.shape[0] >= size[1] else cv2.INTER_LINEAR
    out = np.asarray(cv2.resize(crop, size, interpolation=interp), np.uint8)
    return out


def to_tensor(resized: Sequence[U8Image] | U8Image) -> F32Array:
    """Resized BGR uint8 crops (N,H,W,3) -> normalised RGB float32 NCHW."""
    batch = np.asarray(resized, dtype=np.uint8)
    if batch.ndim == 3:
        batch = batch[None]
    rgb = batch[..., ::-1].astype(np.float32) * (1.0 / 255.0)
    out: F32Array = np.ascontiguousarray(((rgb - MEAN) / STD).transpose(0, 3, 1, 2))
    return out


def normalised(batch: U8Image, mean: float, std: float) -> F32Array:
    """BGR uint8 crops (N, H, W, 3) -> RGB float32 NCHW ``(x / 255 - mean) / std``, as
    :func:`to_tensor` computes it (bit for bit), looked up per grey level: a quarter of the
    cost of the arithmetic on every pixel of a frame's crops."""
    rgb_nchw = np.asarray(batch, np.uint8)[..., ::-1].transpose(0, 3, 1, 2)
    out: F32Array = np.take(_levels(float(mean), float(std)), rgb_nchw)
    return out


@lru_cache(maxsize=8)
def _levels(mean: float, std: float) -> F32Array:
    """The 256 grey levels normalised with :func:`to_tensor`'s float32 arithmetic."""
    levels: F32Array = ((np.arange(256, dtype=np.uint8).astype(np.float32) * (1.0 / 255.0) - mean) / std).astype(np.float32)
    levels.flags.writeable = False
    return levels


def prepare(crops: Sequence[U8Image], size: tuple[int, int] = INPUT_SIZE) -> F32Array:
    """Validate, resize and normalise a batch of crops into one model input tensor."""
    return to_tensor([resize_crop(check_crop(c, i), size) for i, c in enumerate(crops)])
