"""Render one still table scene with ground truth (see the package docstring for the API)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.vision.layout import MARKER_SIZE, MAT_SIZE, marker_centres
from referee.vision.simulator.assets import Image, Mask, Sprite, back_sprite, face_sprite
from referee.vision.simulator.camera import CameraSpec, noise_fields
from referee.vision.simulator.textures import make_texture

#: skin tones (BGR) and sleeve colours for the hands
SKINS: tuple[tuple[float, float, float], ...] = (
    (150, 180, 225), (120, 155, 205), (80, 115, 165), (60, 85, 125), (170, 195, 235))
SLEEVES: tuple[tuple[float, float, float], ...] = (
    (60, 50, 40), (140, 60, 30), (200, 200, 200), (40, 40, 140), (30, 90, 30))
#: label values in the occlusion map that are not cards
_EMPTY, _HAND = -1, -2


@dataclass(frozen=True)
class CardSpec:
    """One card on the mat (or held above it), in mat units.

    ``angle`` is degrees clockwise on the image; ``lift`` > 0 means held above the cloth
    (longer shadow); ``role`` is a free tag kept in the ground truth (``trick``, ``stock``,
    ``briscola``, ``pile``, ``held``, ``table``).
    """

    code: str
    center: tuple[float, float]
    angle: float = 0.0
    face_up: bool = True
    seat: str | None = None
    role: str = "table"
    lift: float = 0.0


@dataclass(frozen=True)
class HandSpec:
    """A forearm entering the mat at ``edge`` with the fingertips at ``tip`` (mat units).

    ``velocity`` (mat units/s) blurs the hand and what it holds over the camera's exposure.
    """

    edge: tuple[float, float]
    tip: tuple[float, float]
    width: float = 95.0
    velocity: tuple[float, float] = (0.0, 0.0)
    skin: int = 0
    holding: CardSpec | None = None


@dataclass(frozen=True)
class SceneSpec:
    """Everything needed to render a frame; ``texture_seed`` keeps a game's cloth the same."""

    cards: tuple[CardSpec, ...]
    hands: tuple[HandSpec, ...] = ()
    face_set: str = "invido_regional_lowres/trevisane"
    texture: str = "check"
    texture_seed: int = 0
    camera: CameraSpec = field(default_factory=CameraSpec)
    card_height: float = 130.0
    markers: bool = True
    shadows: bool = True


@dataclass(frozen=True)
class GroundTruthCard:
    """A card as the camera shows it.

    ``quad`` is (4, 2) float32 image pixels: top-left, top-right, bottom-right, bottom-left
    of the upright printed face.  ``occluded_fraction`` is the part hidden by other cards or
    hands (0 fully visible, 1 hidden).
    """

    code: str
    quad: npt.NDArray[Any]
    face_up: bool
    seat: str | None
    occluded_fraction: float
    role: str = "table"
    moving: bool = False


@dataclass(frozen=True)
class SimFrame:
    """A rendered frame: BGR uint8 image, ground truth cards, time (s) and play events due."""

    image: Image
    cards: list[GroundTruthCard]
    t: float = 0.0
    index: int = 0
    events: tuple[dict[str, object], ...] = ()

    @property
    def face_up(self) -> list[GroundTruthCard]:
        """Face-up cards (held ones included) that are at least partly visible."""
        return [c for c in self.cards if c.face_up and c.occluded_fraction < 1.0]


def card_size(face_set: str, height: float) -> tuple[float, float]:
    """(width, height) in mat units of a card of ``face_set`` that is ``height`` tall."""
    w, h = face_sprite(face_set, _any_code(face_set)).size
    return height * w / h, height


def _any_code(face_set: str) -> str:
    return "AS" if "french" in face_set or face_set.split("/")[1] == "french" else "coppe_1"


def card_corners(card: CardSpec, size: tuple[float, float]) -> npt.NDArray[np.float64]:
    """Mat corners TL, TR, BR, BL of the upright face of ``card``."""
    w, h = size
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = math.radians(card.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out: npt.NDArray[np.float64] = local @ rot.T + np.asarray(card.center)
    return out


# ---- canvas pieces ------------------------------------------------------------------------
#: cloth beyond the mat on every side (mat units): an oblique camera sees past the mat's edge
MARGIN = 160


@cache
def _cloth(texture: str, seed: int, markers: bool) -> Image:
    size = (int(MAT_SIZE[0]) + 2 * MARGIN, int(MAT_SIZE[1]) + 2 * MARGIN)
    cloth = make_texture(texture, size, np.random.default_rng(seed))
    if markers:
        _draw_markers(cloth)
    return cloth


def _draw_markers(canvas: Image) -> None:
    """Printed ArUco markers on a white square at each mat corner (what `calibrate` finds)."""
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(aruco.DICT_4X4_50)
    side = int(MARKER_SIZE)
    for marker_id, (mx, my) in marker_centres().items():
        cx, cy = mx + MARGIN, my + MARGIN
        pad = int(side * 0.75)
        x0, y0 = int(cx) - pad, int(cy) - pad
        canvas[max(0, y0) : y0 + 2 * pad, max(0, x0) : x0 + 2 * pad] = 245
        tag = aruco.generateImageMarker(dictionary, marker_id, side)
        x1, y1 = int(cx) - side // 2, int(cy) - side // 2
        canvas[y1 : y1 + side, x1 : x1 + side] = cv2.cvtColor(tag, cv2.COLOR_GRAY2BGR) * 0.9 + 15


@cache
def _scaled(face_set: str, code: str | None, height: int) -> Sprite:
    """Face (or back when ``code`` is None) pre-shrunk to about 1.5x the drawn size: no aliasing."""
    if code is None:
        ref = face_sprite(face_set, _any_code(face_set))
        sprite = back_sprite(face_set, ref.size)
    else:
        sprite = face_sprite(face_set, code)
    w, h = sprite.size
    target_h = max(8, int(height * 1.5))
    if target_h >= h:
        return sprite
    tw = max(4, round(w * target_h / h))
    return Sprite(
        cv2.resize(sprite.image, (tw, target_h), interpolation=cv2.INTER_AREA),
        cv2.resize(sprite.alpha, (tw, target_h), interpolation=cv2.INTER_AREA),
    )


# ---- drawing ------------------------------------------------------------------------------
class _Canvas:
    """Float canvas in mat space plus the label map used to measure occlusion."""

    def __init__(self, cloth: Image) -> None:
        self.rgb = cloth.astype(np.float32)
        self.labels: npt.NDArray[Any] = np.full(cloth.shape[:2], _EMPTY, np.int16)
        self.areas: list[int] = []

    def patch(self, box: tuple[int, int, int, int]) -> _Canvas:
        """A private copy of the region ``box`` (x0, y0, x1, y1) to draw on."""
        x0, y0, x1, y1 = box
        twin = _Canvas.__new__(_Canvas)
        twin.rgb, twin.labels = self.rgb[y0:y1, x0:x1].copy(), self.labels[y0:y1, x0:x1].copy()
        twin.areas = []
        return twin

    def roi(self, mat_pts: npt.NDArray[np.float64], pad: int) -> tuple[int, int, int, int] | None:
        """Canvas box (x0, y0, x1, y1) around mat points, clipped; None when off the canvas."""
        h, w = int(self.labels.shape[0]), int(self.labels.shape[1])
        pts = mat_pts + MARGIN
        x0 = max(0, (math.floor(pts[:, 0].min())) - pad)
        y0 = max(0, (math.floor(pts[:, 1].min())) - pad)
        x1 = min(w, (math.ceil(pts[:, 0].max())) + pad + 1)
        y1 = min(h, (math.ceil(pts[:, 1].max())) + pad + 1)
        return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None

    def shade(self, box: tuple[int, int, int, int], alpha: Mask, offset: float, strength: float) -> None:
        """Soft drop shadow of ``alpha`` (already in box coordinates) shifted by ``offset``."""
        x0, y0, x1, y1 = box
        m = np.array([[1, 0, offset], [0, 1, offset * 0.8]], np.float32)
        shadow = cv2.warpAffine(alpha, m, (x1 - x0, y1 - y0))
        sigma = 2.0 + offset * 0.6
        if sigma > 4 and min(shadow.shape[:2]) > 16:
            # Wide soft shadows: blur at quarter size, the result is smooth anyway.
            h, w = shadow.shape[:2]
            small = cv2.resize(shadow, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
            shadow = cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma / 4), (w, h))
        else:
            shadow = cv2.GaussianBlur(shadow, (0, 0), sigma)
        self.rgb[y0:y1, x0:x1] *= (1.0 - strength * shadow)[..., None]

    def paste(self, box: tuple[int, int, int, int], image: npt.NDArray[Any], alpha: Mask, label: int) -> int:
        x0, y0, x1, y1 = box
        region = self.rgb[y0:y1, x0:x1]
        a = np.ascontiguousarray(alpha, np.float32)
        region[:] = cv2.blendLinear(np.ascontiguousarray(image, np.float32), region, a, 1.0 - a)
        solid = alpha > 0.5
        self.labels[y0:y1, x0:x1][solid] = label
        return int(solid.sum())


def _warp_card(
    canvas: _Canvas, sprite: Sprite, corners: npt.NDArray[np.float64], pad: int
) -> tuple[tuple[int, int, int, int], npt.NDArray[Any], Mask] | None:
    box = canvas.roi(corners, pad)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    sw, sh = sprite.size
    src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
    dst = (corners + MARGIN - [x0, y0]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    img = cv2.warpPerspective(sprite.image, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    alpha = cv2.warpPerspective(sprite.alpha, m, size, flags=cv2.INTER_LINEAR)
    return box, img, alpha


def _draw_card(canvas: _Canvas, spec: SceneSpec, card: CardSpec, label: int) -> None:
    size = card_size(spec.face_set, spec.card_height)
    sprite = _scaled(spec.face_set, card.code if card.face_up else None, int(spec.card_height))
    corners = card_corners(card, size)
    pad = int(6 + card.lift * 0.3)
    warped = _warp_card(canvas, sprite, corners, pad)
    if warped is None:
        canvas.areas.append(0)
        return
    box, img, alpha = warped
    if spec.shadows:
        canvas.shade(box, alpha, 2.0 + card.lift * 0.25, 0.35)
    canvas.areas.append(canvas.paste(box, img, alpha, label))


#: hands are drawn at this fraction of the canvas resolution (smooth shapes, usually blurred)
HAND_SCALE = 0.5


def _hand_layer(
    spec: SceneSpec, hand: HandSpec, canvas: _Canvas
) -> tuple[tuple[int, int, int, int], npt.NDArray[Any], Mask, Mask] | None:
    """Draw arm, palm, fingers (and the held card) into a layer: (box, rgb, alpha, card alpha)."""
    ex, ey = hand.edge
    tx, ty = hand.tip
    direction = np.array([tx - ex, ty - ey])
    length = float(np.linalg.norm(direction)) or 1.0
    d = direction / length
    n = np.array([-d[1], d[0]])
    wrist = np.array([tx, ty]) - d * hand.width * 0.9
    pts = [np.array(hand.edge), np.array(hand.tip), wrist]
    held_corners = None
    if hand.holding is not None:
        held_corners = card_corners(hand.holding, card_size(spec.face_set, spec.card_height))
        pts.extend(held_corners)
    blur = np.array(hand.velocity) * spec.camera.exposure_s
    pad = int(hand.width * 0.8 + abs(blur).max() + 4)
    box = canvas.roi(np.array(pts), pad)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    k = HAND_SCALE
    size = (max(1, math.ceil((x1 - x0) * k)), max(1, math.ceil((y1 - y0) * k)))
    off = np.array([x0, y0]) - MARGIN  # mat point -> layer pixel: (p - off) * k

    def at(q: npt.NDArray[Any]) -> npt.NDArray[Any]:
        out: npt.NDArray[Any] = (q - off) * k
        return out

    rgb: npt.NDArray[Any] = np.zeros((size[1], size[0], 3), np.float32)
    alpha: npt.NDArray[Any] = np.zeros((size[1], size[0]), np.float32)
    card_alpha: npt.NDArray[Any] = np.zeros_like(alpha)
    if hand.holding is not None and held_corners is not None:
        sprite = _scaled(spec.face_set, hand.holding.code if hand.holding.face_up else None, int(spec.card_height))
        sw, sh = sprite.size
        m = cv2.getPerspectiveTransform(
            np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32), at(held_corners).astype(np.float32)
        )
        card_alpha = cv2.warpPerspective(sprite.alpha, m, size)
        rgb = cv2.warpPerspective(sprite.image, m, size).astype(np.float32) * card_alpha[..., None]
        alpha = card_alpha.copy()
    skin = SKINS[hand.skin % len(SKINS)]
    sleeve = SLEEVES[hand.skin % len(SLEEVES)]
    body = np.zeros_like(alpha)
    colour = np.zeros_like(rgb)

    def poly(points: list[npt.NDArray[np.float64]], col: tuple[float, ...]) -> None:
        p = np.array([at(q) for q in points], np.int32)
        cv2.fillPoly(body, [p], 1.0, lineType=cv2.LINE_AA)
        cv2.fillPoly(colour, [p], col, lineType=cv2.LINE_AA)

    half = hand.width * 0.32
    mid = wrist - d * min(length * 0.5, 220)
    edge = np.array(hand.edge)
    poly([edge + n * half * 1.3, mid + n * half * 1.2, mid - n * half * 1.2, edge - n * half * 1.3], sleeve)
    poly([mid + n * half * 1.05, wrist + n * half, wrist - n * half, mid - n * half * 1.05],
         tuple(c * 0.95 for c in skin))
    palm_c = wrist + d * hand.width * 0.35
    centre = tuple(int(v) for v in at(palm_c))
    axes = (int(hand.width * 0.42 * k), int(hand.width * 0.36 * k))
    angle = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(body, centre, axes, angle, 0, 360, 1.0, -1, cv2.LINE_AA)
    cv2.ellipse(colour, centre, axes, angle, 0, 360, skin, -1, cv2.LINE_AA)
    thick = max(1, int(hand.width * 0.12 * k))
    for f in (-1.5, -0.5, 0.5, 1.5):  # fingers, slightly fanned
        base = palm_c + n * f * hand.width * 0.15
        tip = base + (d + n * f * 0.08) * hand.width * 0.55
        p0, p1 = tuple(int(v) for v in at(base)), tuple(int(v) for v in at(tip))
        cv2.line(body, p0, p1, 1.0, thick, cv2.LINE_AA)
        cv2.line(colour, p0, p1, skin, thick, cv2.LINE_AA)
    # Shading across the arm so it is not a flat sticker.
    shade = (0.85 + 0.15 * np.clip(body, 0, 1)) * body
    rgb = rgb * (1 - body[..., None]) + colour * shade[..., None]
    alpha = np.maximum(alpha, body)
    card_alpha = card_alpha * (1 - body)
    if abs(blur).max() * k >= 1.0:
        kernel = _motion_kernel(blur * k)
        rgb = cv2.filter2D(np.dstack([rgb, alpha]), -1, kernel)
        rgb, alpha = rgb[..., :3], rgb[..., 3]
        card_alpha = cv2.filter2D(card_alpha, -1, kernel)
    full = (x1 - x0, y1 - y0)
    return (
        box,
        cv2.resize(rgb, full, interpolation=cv2.INTER_LINEAR),
        cv2.resize(np.ascontiguousarray(alpha), full, interpolation=cv2.INTER_LINEAR),
        cv2.resize(card_alpha, full, interpolation=cv2.INTER_LINEAR),
    )


def _motion_kernel(blur: npt.NDArray[np.float64]) -> npt.NDArray[Any]:
    length = (math.ceil(float(np.linalg.norm(blur)))) | 1
    k = np.zeros((length, length), np.float32)
    c = length // 2
    ux, uy = blur / (np.linalg.norm(blur) or 1.0)
    half = (length - 1) / 2
    cv2.line(k, (round(float(c - ux * half)), round(float(c - uy * half))),
             (round(float(c + ux * half)), round(float(c + uy * half))), 1.0, 1, cv2.LINE_AA)
    total = float(k.sum())
    return k / total if total > 0 else k


#: the last few canvases with their still cards drawn: in a video only the hands change
_STATIC: dict[tuple[object, ...], _Canvas] = {}
#: developed (pre-noise) photos and visible-pixel counts of hand-free scenes, by scene + camera
_STILL: dict[tuple[object, ...], tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]] = {}


def _remember(cache_: dict[tuple[object, ...], Any], key: tuple[object, ...], value: Any) -> None:
    if len(cache_) >= 4:
        cache_.pop(next(iter(cache_)))
    cache_[key] = value


def _static_key(spec: SceneSpec) -> tuple[object, ...]:
    return (spec.cards, spec.face_set, spec.texture, spec.texture_seed, spec.markers,
            spec.card_height, spec.shadows)


def _static_canvas(spec: SceneSpec) -> _Canvas:
    """The cloth with the still cards drawn (shared: never draw on it)."""
    key = _static_key(spec)
    base = _STATIC.get(key)
    if base is None:
        base = _Canvas(_cloth(spec.texture, spec.texture_seed, spec.markers))
        for k, card in enumerate(spec.cards):
            _draw_card(base, spec, card, k)
        _remember(_STATIC, key, base)
    return base


def _still(spec: SceneSpec) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    """(remapped, developed, visible counts) of the still cards: computed once per table state."""
    key = (*_static_key(spec), spec.camera)
    still = _STILL.get(key)
    if still is None:
        base = _static_canvas(spec)
        raw = _remap(base.rgb, spec.camera)
        still = (raw, _develop(raw, spec.camera), _visible(base.labels, len(spec.cards)))
        _remember(_STILL, key, still)
    return still


def render_scene(spec: SceneSpec, rng: np.random.Generator) -> SimFrame:
    """Render ``spec`` through its camera; ``rng`` only varies sensor noise between frames."""
    size = card_size(spec.face_set, spec.card_height)
    records: list[tuple[CardSpec, npt.NDArray[np.float64], bool]] = [
        (card, card_corners(card, size), False) for card in spec.cards
    ]
    base = _static_canvas(spec)
    raw, clean, visible = _still(spec)
    areas = list(base.areas)
    if spec.hands:
        clean, visible = _with_hands(spec, base, raw, clean, visible, records, areas, size)
    truth = []
    for k, (card, corners, moving) in enumerate(records):
        area = areas[k] if k < len(areas) else 0
        seen = visible[k] if k < len(visible) else 0
        occluded = 1.0 - min(1.0, seen / area) if area > 0 else 1.0
        truth.append(
            GroundTruthCard(
                code=card.code,
                quad=spec.camera.project(corners),
                face_up=card.face_up,
                seat=card.seat,
                occluded_fraction=round(float(occluded), 4),
                role=card.role,
                moving=moving,
            )
        )
    return SimFrame(image=_expose(clean, spec.camera, rng), cards=truth)


def _with_hands(
    spec: SceneSpec, base: _Canvas, raw: npt.NDArray[Any], clean: npt.NDArray[Any], visible: npt.NDArray[Any],
    records: list[tuple[CardSpec, npt.NDArray[np.float64], bool]], areas: list[int], size: tuple[float, float],
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Draw the hands on a patch of the canvas and re-photograph only the pixels they touch."""
    layers = []
    for hand in spec.hands:
        label = -1
        if hand.holding is not None:
            moving = bool(abs(np.array(hand.velocity)).max() > 0)
            records.append((hand.holding, card_corners(hand.holding, size), moving))
            areas.append(int(size[0] * size[1]))  # full area: a part off the canvas counts as hidden
            label = len(records) - 1
        layer = _hand_layer(spec, hand, base)
        if layer is not None:
            layers.append((layer, label))
    if not layers:
        return clean, visible
    ux0 = min(lay[0][0][0] for lay in layers)
    uy0 = min(lay[0][0][1] for lay in layers)
    ux1 = max(lay[0][0][2] for lay in layers)
    uy1 = max(lay[0][0][3] for lay in layers)
    patch = base.patch((ux0, uy0, ux1, uy1))
    n = len(records)
    before = _visible(patch.labels, n)
    for ((x0, y0, x1, y1), rgb, alpha, card_alpha), label in layers:
        box = (x0 - ux0, y0 - uy0, x1 - ux0, y1 - uy0)
        if spec.shadows:
            patch.shade(box, alpha, 14.0, 0.3)
        patch.paste(box, rgb, alpha, _HAND)
        if label >= 0:
            patch.labels[box[1] : box[3], box[0] : box[2]][card_alpha > 0.5] = label
    counts = np.zeros(n, np.int64)
    counts[: len(visible)] = visible
    counts += _visible(patch.labels, n) - before
    # Only the image pixels that look into the patch change.
    cam = spec.camera
    xs = np.linspace(ux0, ux1, 9) - MARGIN
    ys = np.linspace(uy0, uy1, 9) - MARGIN
    border = np.array([(x, y) for x in xs for y in (ys[0], ys[-1])] + [(x, y) for y in ys for x in (xs[0], xs[-1])])
    img_pts = cam.project(border)
    w, h = cam.size
    ix0, iy0 = max(0, math.floor(img_pts[:, 0].min()) - 12), max(0, math.floor(img_pts[:, 1].min()) - 12)
    ix1, iy1 = min(w, math.ceil(img_pts[:, 0].max()) + 12), min(h, math.ceil(img_pts[:, 1].max()) + 12)
    if ix1 <= ix0 or iy1 <= iy0:
        return clean, counts
    mx, my = _shifted_maps(cam)
    sub: npt.NDArray[Any] = raw[iy0:iy1, ix0:ix1].copy()
    cv2.remap(patch.rgb, mx[iy0:iy1, ix0:ix1] - ux0, my[iy0:iy1, ix0:ix1] - uy0, cv2.INTER_LINEAR,
              dst=sub, borderMode=cv2.BORDER_TRANSPARENT)
    sub *= cam.gain()[iy0:iy1, ix0:ix1]
    if cam.defocus > 0.05:
        sub = cv2.GaussianBlur(sub, (0, 0), cam.defocus)
    out = clean.copy()
    out[iy0:iy1, ix0:ix1] = _to_u8(sub)
    return out, counts


def _visible(labels: npt.NDArray[Any], count: int) -> npt.NDArray[Any]:
    """Visible pixels per card label (labels start at 0; hands and cloth are negative)."""
    counts: npt.NDArray[Any] = np.bincount(labels.ravel() + 2, minlength=count + 2)[2:]
    return counts


@cache
def _shifted_maps(cam: CameraSpec) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    mx, my = cam.maps()
    return mx + MARGIN, my + MARGIN


def _remap(rgb: npt.NDArray[Any], cam: CameraSpec) -> npt.NDArray[Any]:
    """Mat canvas -> what the lens projects (float, before light and defocus)."""
    mx, my = _shifted_maps(cam)
    img: npt.NDArray[Any] = cv2.remap(rgb, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)
    return img


def _develop(raw: npt.NDArray[Any], cam: CameraSpec) -> npt.NDArray[Any]:
    """Remapped image -> noiseless camera image: uneven light, defocus."""
    img: npt.NDArray[Any] = raw * cam.gain()
    if cam.defocus > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), cam.defocus)
    return _to_u8(img)


def _to_u8(img: npt.NDArray[Any]) -> npt.NDArray[Any]:
    out: npt.NDArray[Any] = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _expose(clean: npt.NDArray[Any], cam: CameraSpec, rng: np.random.Generator) -> Image:
    """This frame's sensor noise on the developed (uint8) image."""
    if cam.noise <= 0:
        return clean.copy()
    up, down = noise_fields(cam.size, round(cam.noise, 1))
    oy, ox = int(rng.integers(0, 64)), int(rng.integers(0, 64))
    h, w = clean.shape[:2]
    out: Image = cv2.subtract(cv2.add(clean, up[oy : oy + h, ox : ox + w]), down[oy : oy + h, ox : ox + w])
    return out
