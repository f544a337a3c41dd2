"""``referee enroll`` on a club's slips: a missing or empty folder, a photo misnamed or too small
is one line naming the folder or the photo and what a valid name is, status 2, nothing written."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.paths import models_dir

pytestmark = pytest.mark.skipif(not (models_dir() / "italian.onnx").exists(), reason="no committed italian model")
VALID = "name each photo by a card code of the italian deck and an image suffix (.jpg, .jpeg, .png, .bmp): " \
        "bastoni_1.jpg, bastoni_1-2.jpg for a second shot, back.jpg for the back"


def _enroll(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], photos: Path, out: Path) -> str:
    """``referee enroll`` as the installed command runs it; its one error line."""
    monkeypatch.setattr(sys, "argv", ["referee", "enroll", "--deck", "italian", "--photos", str(photos),
                                      "--out", str(out), "--threads", "1"])
    assert main() == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1 and not out.exists()
    assert err.startswith("referee enroll: error: ")
    return err.strip()


def _photo(path: Path, size: tuple[int, int] = (90, 60)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((*size, 3), 220, np.uint8))


def test_a_missing_folder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    err = _enroll(monkeypatch, capsys, tmp_path / "nowhere", tmp_path / "club.npz")
    assert err.endswith(f"--photos: no such folder {tmp_path / 'nowhere'}")


def test_a_file_given_as_the_folder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _photo(tmp_path / "coppe_1.jpg")
    err = _enroll(monkeypatch, capsys, tmp_path / "coppe_1.jpg", tmp_path / "club.npz")
    assert err.endswith("coppe_1.jpg is a file, not a folder of card photos")


def test_an_empty_folder_says_what_the_photos_should_be_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "deck").mkdir()
    (tmp_path / "deck" / "notes.txt").write_text("not a photo")
    err = _enroll(monkeypatch, capsys, tmp_path / "deck", tmp_path / "club.npz")
    assert f"--photos: no photos in {tmp_path / 'deck'}: one photo per card, named by a card code" in err


@pytest.mark.parametrize(("name", "why"), [
    ("coppe_13.jpg", "file name is not a card code"),
    ("joker.png", "file name is not a card code"),
    ("10H.jpg", "10H is not a card of the italian deck"),
])
def test_a_misnamed_photo_is_named_with_what_a_valid_name_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, why: str
) -> None:
    _photo(tmp_path / "deck" / "coppe_1.jpg")
    _photo(tmp_path / "deck" / name)
    err = _enroll(monkeypatch, capsys, tmp_path / "deck", tmp_path / "club.npz")
    assert f"{tmp_path / 'deck' / name}: {why}" in err and err.endswith(VALID)


def test_a_photo_too_small_to_read_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    _photo(tmp_path / "deck" / "coppe_1.jpg")
    _photo(tmp_path / "deck" / "coppe_2.jpg", size=(1, 1))
    err = _enroll(monkeypatch, capsys, tmp_path / "deck", tmp_path / "club.npz")
    assert f"--photos {tmp_path / 'deck'}: coppe_2.jpg: the card cut from it is unusable (1x1 px is too small" in err


def test_a_layout_file_that_is_not_utf8_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _photo(tmp_path / "deck" / "a.png")
    layout = tmp_path / "layout.csv"
    layout.write_bytes("image,code,x0,y0,x1,y1\na.png,coppe_1,0,0,60,90 # caf\xe9\n".encode("latin-1"))
    monkeypatch.setattr(sys, "argv", ["referee", "enroll", "--deck", "italian", "--photos", str(tmp_path / "deck"),
                                      "--layout", str(layout), "--out", str(tmp_path / "club.npz")])
    assert main() == 2
    err = capsys.readouterr().err
    assert f"cannot read layout file {layout}: 'utf-8' codec can't decode byte 0xe9" in err and "Traceback" not in err


def test_an_enrollment_that_cannot_be_written_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    for code in ("coppe_1", "coppe_2"):
        _photo(tmp_path / "deck" / f"{code}.jpg")
    out = Path("/proc/club.npz")  # /proc refuses even root
    err = _enroll(monkeypatch, capsys, tmp_path / "deck", out)
    assert err.startswith("referee enroll: error: --out: cannot write /proc/club.npz: ")
