"""An ``AS`` read whose central pip has a club's notches is read ``AC``
(:mod:`referee.recognition.ace_pips`); nothing else changes, and a bad ``ace_pips`` block in a
model's JSON is refused naming the file and key. The faces are the Kennard scans bundled in the
package (CC0): its ace of spades is an ornate one, whose outline has more notches than a club's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ModelError
from referee.paths import BUNDLED_ASSETS, models_dir
from referee.recognition import CardClassifier
from referee.recognition.ace_pips import AcePips, central_pip
from referee.recognition.faces import read_bgra
from referee.recognition.preprocess import resize_crop

LABELS = RECOGNISER_LABELS["french"]
RULE = AcePips(club_notches=(4, 5), club_solidity=(0.65, 0.82))
KENNARD = BUNDLED_ASSETS / "faces" / "kennard_cc0_svg" / "french"


def _face(name: str, size: tuple[int, int] = (64, 96)) -> np.ndarray:
    """A bundled face on white, at the model's input size."""
    bgra = read_bgra(KENNARD / f"{name}.png").astype(np.float32)
    alpha = bgra[..., 3:] / 255.0
    bgr = (bgra[..., :3] * alpha + 255.0 * (1.0 - alpha)).astype(np.uint8)
    return resize_crop(bgr, size)


def _read(card: str, p: float = 0.9) -> np.ndarray:
    """One read naming ``card`` at ``p``, the rest on the other black ace."""
    other = "AC" if card == "AS" else "AS"
    out = np.zeros((1, len(LABELS)), np.float32)
    out[0, LABELS.index(card)] = p
    out[0, LABELS.index(other)] = 1 - p
    return out


def test_a_clubs_pip_has_four_notches_and_an_ornate_spade_more() -> None:
    club, spade = central_pip(_face("clubs_A")), central_pip(_face("spades_A"))
    assert club is not None and club.notches == 4 and RULE.is_club(club)
    assert spade is not None and spade.notches > 5 and not RULE.is_club(spade)
    for red in ("hearts_A", "diamonds_A"):
        assert not RULE.is_club(central_pip(_face(red)))


def test_a_plain_card_with_no_pip_has_no_shape() -> None:
    assert central_pip(np.full((96, 64, 3), 230, np.uint8)) is None


def test_an_ace_of_spades_read_on_a_clubs_pip_is_read_the_ace_of_clubs() -> None:
    out = RULE.apply(_read("AS"), [_face("clubs_A")], LABELS)
    assert LABELS[int(out[0].argmax())] == "AC" and out[0].max() == pytest.approx(0.9)
    assert out.sum() == pytest.approx(1.0)


def test_a_spade_stays_a_spade_and_a_club_read_is_never_turned() -> None:
    spade = _read("AS")
    assert np.array_equal(RULE.apply(spade, [_face("spades_A")], LABELS), spade)
    # a small club pip loses its notches when blurred: a notch count says nothing against a club read
    club = _read("AC")
    assert np.array_equal(RULE.apply(club, [_face("spades_A")], LABELS), club)


def test_no_other_card_is_touched_whatever_its_pip() -> None:
    probs = np.zeros((1, len(LABELS)), np.float32)
    probs[0, LABELS.index("2C")] = 1.0
    assert np.array_equal(RULE.apply(probs, [_face("clubs_A")], LABELS), probs)


def test_a_deck_without_french_aces_is_left_alone() -> None:
    italian = RECOGNISER_LABELS["italian"]
    probs = np.full((1, len(italian)), 1.0 / len(italian), np.float32)
    assert np.array_equal(RULE.apply(probs, [_face("clubs_A")], italian), probs)


# --- a model's JSON carrying the rule -----------------------------------------------------------

@pytest.fixture
def model(tmp_path: Path) -> Path:
    """A copy of the committed French model, its JSON to edit."""
    if not (models_dir() / "french.onnx").exists():
        pytest.skip("no committed french model")
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("french.onnx", "french.json"):
        shutil.copy(models_dir() / name, folder / name)
    return folder


def _edit(folder: Path, block: Any) -> None:
    path = folder / "french.json"
    data = json.loads(path.read_text())
    data["ace_pips"] = block
    path.write_text(json.dumps(data))


def test_a_model_carrying_the_rule_reads_a_clubs_pip_as_the_ace_of_clubs(model: Path) -> None:
    _edit(model, {"club_notches": [4, 5], "club_solidity": [0.65, 0.82]})
    clf = CardClassifier.load("french", model, threads=1)
    assert clf.ace_pips == RULE
    crop = _face("clubs_A")
    read = clf.probabilities([crop])
    clf.ace_pips = None
    plain = clf.probabilities([crop])
    if LABELS[int(plain[0].argmax())] == "AS":  # the rule turned it
        assert LABELS[int(read[0].argmax())] == "AC"
    else:  # nothing to turn: the same read
        assert np.array_equal(read, plain)


@pytest.mark.parametrize(("block", "message"), [
    ({"club_notches": [4, 5], "club_solidity": [0.65, 0.82], "spade_notches": 2},
     r"french\.json: ace_pips: unknown key\(s\) \['spade_notches'\]"),
    ({"club_notches": [4, 5]}, r"french\.json: ace_pips: missing key\(s\) \['club_solidity'\]"),
    ({"club_notches": [5, 4], "club_solidity": [0.65, 0.82]}, r"french\.json: ace_pips\.club_notches: expected \[fewest, most\]"),
    ({"club_notches": [4, 5], "club_solidity": [0.9, 0.8]}, r"french\.json: ace_pips\.club_solidity: expected \[low, high\]"),
    ([4, 0.65], r"french\.json: ace_pips: expected an object"),
])
def test_a_bad_ace_pips_block_is_refused_naming_the_file_and_key(model: Path, block: Any, message: str) -> None:
    _edit(model, block)
    with pytest.raises(ModelError, match=message):
        CardClassifier.load("french", model)


def test_the_pip_is_looked_for_in_the_middle_of_the_card_not_at_its_corner_indices() -> None:
    crop = _face("spades_A")
    blank_middle = crop.copy()
    h, w = crop.shape[:2]
    blank_middle[h // 4: 3 * h // 4, w // 5: 4 * w // 5] = 255
    shape = central_pip(blank_middle)
    assert shape is None
    # a pip drawn there alone is found
    cv2.circle(blank_middle, (w // 2, h // 2 - 6), 6, (0, 0, 0), -1)
    assert central_pip(blank_middle) is not None
