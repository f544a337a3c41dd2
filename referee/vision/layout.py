"""Table layout: which part of the frame is whose seat, the play area and the stock.

Geometry lives on the *mat*: a rectangle of :data:`MAT_SIZE` units whose corners carry the
ArUco markers 0 (top left), 1 (top right), 2 (bottom right), 3 (bottom left).  A layout is the
mat's zones plus one homography ``mat -> image pixels`` measured on a frame of a given size
(``referee calibrate``), so a bumped camera only needs a new homography.

Seats are named in play order.  Compass names (``N``, ``W``, ``S``, ``E``, ...) sit where
they say, ``S`` at the bottom edge of the frame; other names go counter-clockwise seen from
above (the Italian direction of play), the first at the bottom.  Zones::

    layout = TableLayout.default(("N", "W", "S", "E"), frame_size=(1280, 720))
    layout.zone_of((640, 700))      # -> "S"; also "play", "stock" or "outside"
    layout.save("layout.json"); TableLayout.load("layout.json").check_frame((720, 1280, 3))
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import ConfigError
from referee.rules.playout import DEFAULT_SEATS

#: (n, 2) float arrays of points; loosely typed as OpenCV's stubs return plain Mats
Points = npt.NDArray[Any]

#: the mat in layout units (16:9 like the camera, so a top-down camera fills the frame with it)
MAT_SIZE: tuple[float, float] = (1440.0, 810.0)
#: ArUco dictionary and the ids at the mat's corners TL, TR, BR, BL
ARUCO_DICT = "DICT_4X4_50"
MARKER_IDS: tuple[int, int, int, int] = (0, 1, 2, 3)
#: marker side and the inset of each marker's centre from its mat corner, in mat units
MARKER_SIZE = 64.0
MARKER_INSET = 50.0
#: half extents of the central play area as a fraction of the mat's half extents
PLAY_HALF = (0.36, 0.5)
#: the stock (face-down pile with the briscola half under it): centre and half size, fractions
STOCK_CENTRE = (-0.62, -0.55)
STOCK_HALF = (0.16, 0.3)
LAYOUT_VERSION = 1


class LayoutError(ConfigError):
    """A layout file that cannot be read, or that does not fit the frames it is used on."""


def default_seat_names(count: int) -> tuple[str, ...]:
    """Seat names used when none are given: the rules core's defaults (play order)."""
    if count not in DEFAULT_SEATS:
        raise LayoutError(f"seat count must be 2..5, got {count}")
    return DEFAULT_SEATS[count]


#: compass seats sit where their name says (degrees counter-clockwise from the bottom edge)
COMPASS = {"S": 0.0, "SE": 45.0, "E": 90.0, "NE": 135.0, "N": 180.0, "NW": 225.0, "W": 270.0, "SW": 315.0}


def seat_angles(seats: Sequence[str]) -> dict[str, float]:
    """Angle (radians, counter-clockwise seen from above, 0 = bottom edge) of each seat.

    Compass names go to their compass point; other names are spread evenly in play order
    (counter-clockwise, the Italian direction of play), the first at the bottom.
    """
    if all(s in COMPASS for s in seats):
        return {s: math.radians(COMPASS[s]) for s in seats}
    return {s: 2 * math.pi * i / len(seats) for i, s in enumerate(seats)}


def marker_centres() -> dict[int, tuple[float, float]]:
    """Mat coordinates of each corner marker's centre."""
    w, h = MAT_SIZE
    i = MARKER_INSET
    corners = ((i, i), (w - i, i), (w - i, h - i), (i, h - i))
    return dict(zip(MARKER_IDS, corners, strict=True))


def marker_corners(marker_id: int) -> Points:
    """The 4 corners (TL, TR, BR, BL, as OpenCV's ArUco detector reports them) in mat units."""
    cx, cy = marker_centres()[marker_id]
    s = MARKER_SIZE / 2
    return np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]])


def _norm_to_mat(u: float, v: float) -> tuple[float, float]:
    w, h = MAT_SIZE
    return (w / 2 * (1 + u), h / 2 * (1 + v))


def _rect(cu: float, cv: float, hu: float, hv: float) -> Points:
    return np.array([_norm_to_mat(cu + du, cv + dv) for du, dv in ((-hu, -hv), (hu, -hv), (hu, hv), (-hu, hv))])


def _direction(angle: float) -> tuple[float, float]:
    """Unit direction on the mat (mat units, not squashed to a square) towards ``angle``."""
    return (math.sin(angle), math.cos(angle))


def _to_border(angle: float) -> float:
    """Distance from the mat's centre to its border along ``angle`` (mat units)."""
    dx, dy = _direction(angle)
    w, h = MAT_SIZE
    return min(w / 2 / abs(dx) if abs(dx) > 1e-9 else math.inf, h / 2 / abs(dy) if abs(dy) > 1e-9 else math.inf)


def _along(angle: float, distance: float) -> tuple[float, float]:
    dx, dy = _direction(angle)
    return (MAT_SIZE[0] / 2 + dx * distance, MAT_SIZE[1] / 2 + dy * distance)


def _sector(lo: float, hi: float, samples: int = 24) -> Points:
    """The mat sector between two angles: the centre plus the mat border from ``lo`` to ``hi``."""
    w, h = MAT_SIZE
    angles = [lo + (hi - lo) * k / samples for k in range(samples + 1)]
    for cx, cy in ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)):  # keep the mat's corners square
        a = math.atan2(cx - w / 2, cy - h / 2)
        a = lo + (a - lo) % (2 * math.pi)
        if a < hi:
            angles.append(a)
    pts = [_along(0.0, 0.0)] + [_along(a, _to_border(a)) for a in sorted(angles)]
    return np.array(pts)


def _sectors(angles: dict[str, float]) -> dict[str, Points]:
    """Each seat's sector reaches half-way to its neighbours on either side."""
    order = sorted(angles, key=angles.__getitem__)
    two_pi = 2 * math.pi
    zones = {}
    for i, seat in enumerate(order):
        a = angles[seat]
        prev_a = angles[order[i - 1]] - (two_pi if i == 0 else 0.0)
        next_a = angles[order[(i + 1) % len(order)]] + (two_pi if i == len(order) - 1 else 0.0)
        zones[seat] = _sector((a + prev_a) / 2, (a + next_a) / 2)
    return zones


@dataclass(frozen=True)
class TableLayout:
    """Seat zones, play area and stock on the mat, plus the mat -> image homography."""

    seats: tuple[str, ...]
    frame_size: tuple[int, int]
    homography: npt.NDArray[np.float64]
    seat_zones: dict[str, Points] = field(repr=False)
    play_area: Points = field(repr=False)
    stock: Points = field(repr=False)
    #: the printed mat calibrated on (a name of ``table_scale.MAT_PRINTS``), whose printed
    #: size turns the homography into px per cm of table; ``None``: a layout written before
    #: it was recorded (read as the corner kit, ``referee calibrate``'s default)
    mat: str | None = None

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def default(
        cls,
        seats: Sequence[str],
        frame_size: tuple[int, int] = (1280, 720),
        homography: npt.ArrayLike | None = None,
    ) -> TableLayout:
        """Standard zones for ``seats`` (play order); homography defaults to a straight top view."""
        seats = tuple(seats)
        if not 2 <= len(seats) <= 5 or len(set(seats)) != len(seats):
            raise LayoutError(f"seats must be 2..5 distinct names, got {list(seats)}")
        if homography is None:
            homography = straight_homography(frame_size)
        zones = _sectors(seat_angles(seats))
        return cls(
            seats=seats,
            frame_size=(int(frame_size[0]), int(frame_size[1])),
            homography=np.asarray(homography, np.float64).reshape(3, 3),
            seat_zones=zones,
            play_area=_rect(0.0, 0.0, *PLAY_HALF),
            stock=_rect(*STOCK_CENTRE, *STOCK_HALF),
        )

    def with_homography(self, homography: npt.ArrayLike, frame_size: tuple[int, int]) -> TableLayout:
        """The same zones seen through another camera pose (after ``referee calibrate``)."""
        return TableLayout(
            self.seats, (int(frame_size[0]), int(frame_size[1])),
            np.asarray(homography, np.float64).reshape(3, 3), self.seat_zones, self.play_area, self.stock,
            self.mat,
        )

    # ---- checks and mapping -------------------------------------------------------------
    def check_frame(self, shape: Sequence[int]) -> None:
        """Raise :class:`LayoutError` when a frame of ``shape`` (h, w[, c]) is not the calibrated size."""
        h, w = int(shape[0]), int(shape[1])
        if (w, h) != self.frame_size:
            raise LayoutError(
                f"layout was calibrated on {self.frame_size[0]}x{self.frame_size[1]} frames, "
                f"got a {w}x{h} frame: run `referee calibrate` on this camera's frames"
            )

    def to_image(self, mat_points: npt.ArrayLike) -> Points:
        pts = np.asarray(mat_points, np.float64).reshape(-1, 1, 2)
        out: Points = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return out

    def to_mat(self, image_points: npt.ArrayLike) -> Points:
        pts = np.asarray(image_points, np.float64).reshape(-1, 1, 2)
        out: Points = cv2.perspectiveTransform(pts, self._image_to_mat).reshape(-1, 2)
        return out

    @cached_property
    def _image_to_mat(self) -> npt.NDArray[np.float64]:
        """The homography's inverse, once: the live loop maps every card's centre every frame."""
        inverse: npt.NDArray[np.float64] = np.asarray(np.linalg.inv(self.homography), np.float64)
        return inverse

    def zone_of(self, image_point: Sequence[float]) -> str:
        """``"stock"``, ``"play"``, a seat name, or ``"outside"`` for a point in image pixels.

        The mat's corner markers count as outside: white squares are no one's cards.
        """
        u, v = (float(c) for c in self.to_mat([image_point])[0])
        w, h = MAT_SIZE
        if not (0 <= u <= w and 0 <= v <= h):
            return "outside"
        if any(abs(u - cx) < MARKER_SIZE and abs(v - cy) < MARKER_SIZE for cx, cy in marker_centres().values()):
            return "outside"
        if _inside(self.stock, u, v):
            return "stock"
        if _inside(self.play_area, u, v):
            return "play"
        return self.seat_of_mat((u, v))

    def seat_of(self, image_point: Sequence[float]) -> str:
        """The seat whose sector (play area included) holds an image point."""
        return self.seat_of_mat(tuple(self.to_mat([image_point])[0]))

    def seat_of_mat(self, mat_point: Sequence[float]) -> str:
        """The seat whose direction (seen from the mat's centre) is nearest the point's."""
        w, h = MAT_SIZE
        angle = math.atan2(float(mat_point[0]) - w / 2, float(mat_point[1]) - h / 2)
        angles = seat_angles(self.seats)

        def gap(seat: str) -> float:
            d = (angle - angles[seat]) % (2 * math.pi)
            return min(d, 2 * math.pi - d)

        return min(self.seats, key=gap)

    # ---- where things go (the simulator and the annotator use these) ---------------------
    def play_spot(self, seat: str, reach: float = 0.2) -> tuple[float, float]:
        """Mat point where ``seat`` lays its card in a trick (overlapping its neighbours').

        ``reach`` is the distance from the centre as a fraction of the mat's half height.
        """
        return _along(seat_angles(self.seats)[seat], reach * MAT_SIZE[1] / 2)

    def edge_point(self, seat: str) -> tuple[float, float]:
        """Where ``seat``'s arm enters the mat (just past its border, behind its play spot)."""
        angle = seat_angles(self.seats)[seat]
        return _along(angle, _to_border(angle) * 1.08)

    def pile_spot(self, seat: str) -> tuple[float, float]:
        """Where ``seat`` (or its team) keeps its face-down won cards: near its edge, off to a side."""
        phi = seat_angles(self.seats)[seat]
        for side in (0.3, -0.3, 0.55, -0.55):
            u, v = _along(phi + side, _to_border(phi + side) * 0.72)
            if not _inside(self.stock, u, v, margin=110.0) and self.seat_of_mat((u, v)) == seat:
                return (u, v)
        return _along(phi, _to_border(phi) * 0.72)

    def stock_spot(self) -> tuple[float, float]:
        return _norm_to_mat(*STOCK_CENTRE)


    def image_polygons(self) -> dict[str, Points]:
        """Every zone as an image-pixel polygon (for drawing seat zones on frames)."""
        polys = {seat: self.to_image(zone) for seat, zone in self.seat_zones.items()}
        polys["play"] = self.to_image(self.play_area)
        polys["stock"] = self.to_image(self.stock)
        return polys

    # ---- file format --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": LAYOUT_VERSION,
            "mat_size": list(MAT_SIZE),
            "frame_size": list(self.frame_size),
            "seats": list(self.seats),
            "homography": [[float(x) for x in row] for row in self.homography],
        }
        if self.mat is not None:
            data["mat"] = self.mat
        return data

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Any, source: str = "layout") -> TableLayout:
        if not isinstance(data, dict):
            raise LayoutError(f"{source}: expected a JSON object")
        for key in ("version", "frame_size", "seats", "homography"):
            if key not in data:
                raise LayoutError(f"{source}: missing key {key!r}")
        if data["version"] != LAYOUT_VERSION:
            raise LayoutError(f"{source}: key 'version' must be {LAYOUT_VERSION}, got {data['version']!r}")
        try:
            frame = (int(data["frame_size"][0]), int(data["frame_size"][1]))
            hom = np.asarray(data["homography"], np.float64).reshape(3, 3)
        except (TypeError, ValueError, IndexError) as exc:
            raise LayoutError(f"{source}: bad 'frame_size' or 'homography' ({exc})") from exc
        if not np.all(np.isfinite(hom)) or abs(np.linalg.det(hom)) < 1e-12:
            raise LayoutError(f"{source}: key 'homography' is not an invertible 3x3 matrix")
        seats = data["seats"]
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise LayoutError(f"{source}: key 'seats' must be a list of seat names")
        layout = cls.default(seats, frame, hom)
        mat = data.get("mat")
        if mat is None:
            return layout
        from referee.vision.table_scale import MAT_PRINTS  # it reads MAT_SIZE from here

        if mat not in MAT_PRINTS:
            raise LayoutError(f"{source}: key 'mat' must name a printed mat ({', '.join(MAT_PRINTS)}), got {mat!r}")
        return replace(layout, mat=str(mat))

    @classmethod
    def load(cls, path: str | Path) -> TableLayout:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise LayoutError(f"layout file not found: {p}") from exc
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LayoutError(f"cannot read layout file {p}: {exc}") from exc
        return cls.from_dict(data, source=str(p))


def straight_homography(frame_size: tuple[int, int]) -> npt.NDArray[np.float64]:
    """Mat -> image for a camera straight above the mat's centre that just fits the mat in."""
    fw, fh = frame_size
    s = min(fw / MAT_SIZE[0], fh / MAT_SIZE[1])
    tx, ty = (fw - MAT_SIZE[0] * s) / 2, (fh - MAT_SIZE[1] * s) / 2
    return np.array([[s, 0, tx], [0, s, ty], [0, 0, 1]], np.float64)


def _inside(poly: Points, u: float, v: float, margin: float = 0.0) -> bool:
    contour = poly.astype(np.float32).reshape(-1, 1, 2)
    return bool(cv2.pointPolygonTest(contour, (float(u), float(v)), True) >= -margin)
