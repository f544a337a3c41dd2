"""Table layout and calibration: zones, the file format, the ArUco mat."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import calibrate as calibrate_cli
from referee.vision import calibrate
from referee.vision.layout import (
    MAT_SIZE,
    LayoutError,
    TableLayout,
    default_seat_names,
    marker_centres,
    straight_homography,
)
from referee.vision.simulator import CameraSpec, CardSpec, SceneSpec, render_scene

SEATS = ("N", "W", "S", "E")


def test_compass_seats_sit_where_their_names_say() -> None:
    layout = TableLayout.default(SEATS)
    assert layout.zone_of((640, 710)) == "S"
    assert layout.zone_of((640, 10)) == "N"
    assert layout.zone_of((10, 360)) == "W"
    assert layout.zone_of((1270, 360)) == "E"
    assert layout.zone_of((640, 360)) == "play"
    assert layout.zone_of(tuple(layout.to_image([layout.stock_spot()])[0])) == "stock"


def test_the_mat_markers_are_outside_every_zone() -> None:
    layout = TableLayout.default(SEATS)
    for centre in marker_centres().values():
        assert layout.zone_of(tuple(layout.to_image([centre])[0])) == "outside"


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_each_seats_play_and_pile_spots_are_its_own(count: int) -> None:
    layout = TableLayout.default(default_seat_names(count))
    for seat in layout.seats:
        play = layout.to_image([layout.play_spot(seat)])[0]
        pile = layout.to_image([layout.pile_spot(seat)])[0]
        assert layout.zone_of(play) == "play" and layout.seat_of(play) == seat
        assert layout.zone_of(pile) == seat


def test_named_seats_go_counter_clockwise_from_the_bottom() -> None:
    layout = TableLayout.default(("A", "B", "C", "D", "E"))
    assert layout.seat_of((640, 715)) == "A"
    # counter-clockwise seen from above = bottom, then right, then top...
    assert layout.seat_of((1275, 500)) == "B"
    assert layout.seat_of((5, 500)) == "E"


def test_points_round_trip_through_the_homography() -> None:
    hom = CameraSpec.random(np.random.default_rng(1)).matrix
    layout = TableLayout.default(SEATS, (1280, 720), hom)
    pts = np.array([[100.0, 50.0], [700.0, 400.0]])
    assert np.allclose(layout.to_mat(layout.to_image(pts)), pts)


def test_layout_file_round_trip_and_frame_size_check(tmp_path: Path) -> None:
    layout = TableLayout.default(SEATS, (1280, 720))
    path = tmp_path / "layout.json"
    layout.save(path)
    again = TableLayout.load(path)
    assert again.seats == SEATS and again.frame_size == (1280, 720)
    assert np.allclose(again.homography, layout.homography)
    again.check_frame((720, 1280, 3))
    with pytest.raises(LayoutError, match=r"1280x720.*640x480"):
        again.check_frame((480, 640, 3))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot read"),
        ("[]", "JSON object"),
        ('{"version": 1, "frame_size": [1280, 720], "seats": ["N", "S"]}', "'homography'"),
        ('{"version": 9, "frame_size": [1, 1], "seats": ["N", "S"], "homography": []}', "'version'"),
        ('{"version": 1, "frame_size": [1280, 720], "seats": ["N", "S"], "homography": [[0,0,0],[0,0,0],[0,0,0]]}',
         "invertible"),
        ('{"version": 1, "frame_size": [1280, 720], "seats": ["N"], "homography": [[1,0,0],[0,1,0],[0,0,1]]}',
         "2..5"),
    ],
)
def test_bad_layout_files_name_the_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "layout.json"
    path.write_text(content)
    with pytest.raises(LayoutError, match=message):
        TableLayout.load(path)


def test_missing_layout_file_is_a_layout_error(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="not found"):
        TableLayout.load(tmp_path / "nope.json")


def _sim_frame(camera: CameraSpec, cards: tuple[CardSpec, ...] = ()) -> np.ndarray:
    spec = SceneSpec(cards=cards, texture="check", camera=camera)
    return render_scene(spec, np.random.default_rng(0)).image


def test_calibration_on_a_simulated_frame_recovers_the_camera() -> None:
    camera = CameraSpec.random(np.random.default_rng(4))
    camera = CameraSpec(size=camera.size, homography=camera.homography, noise=2.0)  # no lens bend
    layout = calibrate.calibrate_image(_sim_frame(camera), SEATS)
    pts = np.array([[200.0, 150.0], [720.0, 405.0], [1300.0, 700.0]])
    assert np.abs(layout.to_image(pts) - camera.project(pts)).max() < 1.5
    assert layout.frame_size == (1280, 720)


def test_a_hidden_marker_is_tolerated_but_two_are_not() -> None:
    image = _sim_frame(CameraSpec())
    layout0 = TableLayout.default(SEATS)
    corner = layout0.to_image([[0, 0], [140, 140]]).astype(int)
    one_hidden = image.copy()
    one_hidden[corner[0][1] : corner[1][1], corner[0][0] : corner[1][0]] = (40, 90, 40)
    calibrate.calibrate_image(one_hidden, SEATS)
    two_hidden = one_hidden.copy()
    two_hidden[-150:, -150:] = (40, 90, 40)
    with pytest.raises(LayoutError, match=r"found mat markers \[1, 3\]"):
        calibrate.calibrate_image(two_hidden, SEATS)
    # Live recalibration keeps the old layout when markers are hidden.
    assert calibrate.recalibrate(layout0, two_hidden) is layout0


def test_recalibrate_follows_a_bumped_camera() -> None:
    layout = TableLayout.default(SEATS)
    bumped = CameraSpec.random(np.random.default_rng(9), strength=0.5)
    bumped = CameraSpec(size=bumped.size, homography=bumped.homography)
    moved = calibrate.recalibrate(layout, _sim_frame(bumped))
    assert np.abs(moved.to_image([[720, 405]]) - bumped.project([[720, 405]])).max() < 1.5


def test_printed_mat_has_the_four_markers_where_the_layout_says(tmp_path: Path) -> None:
    out = tmp_path / "mat.png"
    args = argparse.Namespace(print_mat=str(out), image=None, source=None, out="x", seats=None, players=None,
                              preview=None, mat="corners-A4")
    assert calibrate_cli.run(args) == 0
    mat = cv2.imread(str(out))
    assert mat is not None
    assert mat.shape[:2] == (round(MAT_SIZE[1] * 2), round(MAT_SIZE[0] * 2))
    markers = calibrate.find_markers(mat)
    assert sorted(markers) == [0, 1, 2, 3]
    hom, error = calibrate.homography_from_markers(markers)
    assert error < 1.0
    # (half-pixel offsets: printed squares start on pixel edges)
    assert np.allclose(hom / hom[2, 2], np.diag([2.0, 2.0, 1.0]), atol=0.6)


def test_calibrate_cli_writes_a_layout_and_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), _sim_frame(CameraSpec()))
    out, preview = tmp_path / "layout.json", tmp_path / "zones.png"
    args = argparse.Namespace(print_mat=None, image=str(frame), source=None, out=str(out), seats="A,B,C",
                              players=None, preview=str(preview), mat="corners-A4")
    assert calibrate_cli.run(args) == 0
    data = json.loads(out.read_text())
    assert data["seats"] == ["A", "B", "C"] and data["frame_size"] == [1280, 720]
    assert np.allclose(np.array(data["homography"]) / data["homography"][2][2], straight_homography((1280, 720)),
                       atol=0.6)
    assert preview.is_file()
    printed = capsys.readouterr()
    assert "wrote" in printed.out and "a card is italian" in printed.out
    assert "WARNING" not in printed.err  # the simulated camera frames the mat: cards > 80 px


def test_calibrate_cli_reports_an_unreadable_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(print_mat=None, image=str(tmp_path / "missing.png"), source=None,
                              out=str(tmp_path / "l.json"), seats=None, players=None, preview=None, mat="corners-A4")
    assert calibrate_cli.run(args) == 2
    assert "cannot read image" in capsys.readouterr().err
