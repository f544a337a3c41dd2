"""The black-pips vote (:mod:`referee.recognition.black_pips`): the bundled Kennard print's clubs
have a club's pips and its spades a spade's, at the box's card sizes; a spade read turns into a
club only when its pips say so, never the other way; a bad ``"black_pips"`` block is refused
naming the file and key."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.errors import ModelError
from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.black_pips import PIP_RANKS, PipShape, PipVote, pip_shapes
from referee.recognition.faces import read_bgra
from referee.vision.detections import Detections
from referee.vision.finder_scenes import StandInClassifier
from referee.vision.pipeline import FramePipeline, clubs_by_pips

KENNARD = Path(__file__).resolve().parents[2] / "referee" / "vision" / "assets" / "faces" / "kennard_cc0_svg" / "french"
SUIT_FILE = {"C": "clubs", "S": "spades"}
#: the thresholds adopted in models/french.json (docs/lab/2026-12-04-black-pips-vote.md)
VOTE = PipVote((4, 5), (0.60, 0.82), 2, 0.66, 12.0)


def face(card: str, height: int) -> np.ndarray:
    """The bundled Kennard face of ``card`` (``10C``) over white, ``height`` px tall (BGR)."""
    rank, suit = card[:-1], card[-1]
    bgra = read_bgra(KENNARD / f"{SUIT_FILE[suit]}_{rank}.png").astype(np.float32)
    alpha = bgra[..., 3:4] / 255.0
    bgr = bgra[..., :3] * alpha + 255.0 * (1.0 - alpha)
    h, w = bgr.shape[:2]
    return np.asarray(np.clip(cv2.resize(bgr, (round(w * height / h), height), interpolation=cv2.INTER_AREA), 0, 255), np.uint8)


@pytest.mark.parametrize("height", [160, 120])
def test_every_kennard_club_votes_club_and_no_spade_does(height: int) -> None:
    clubs = [rank for rank in PIP_RANKS if VOTE.votes_club(face(f"{rank}C", height))]
    spades = [rank for rank in PIP_RANKS if VOTE.votes_club(face(f"{rank}S", height))]
    assert clubs == list(PIP_RANKS)
    assert spades == []


def test_a_tens_whole_pips_are_found_and_a_cut_one_is_not() -> None:
    ten = face("10C", 160)
    whole = pip_shapes(ten, 12.0)
    assert len(whole) >= 6
    assert sum(VOTE.is_club(s) for s in whole) >= 0.66 * len(whole)
    # the card's lower half, its upper edge through the middle pips: fewer whole pips
    assert len(pip_shapes(ten[ten.shape[0] // 2:], 12.0)) < len(whole)


def test_too_small_a_card_abstains() -> None:
    assert pip_shapes(face("10C", 60), 12.0) == []
    assert not VOTE.votes_club(face("10C", 60))


def test_a_blank_or_a_court_card_abstains() -> None:
    assert not VOTE.votes_club(np.full((160, 110, 3), 245, np.uint8))
    assert not VOTE.votes_club(face("10S", 160))


def test_only_a_spade_pip_card_has_a_club_to_become() -> None:
    assert PipVote.club_of("10S") == "10C"
    assert PipVote.club_of("2S") == "2C"
    assert [PipVote.club_of(c) for c in ("AS", "KS", "QS", "JS", "10C", "10H", "back")] == [None] * 7


def test_a_club_shape_is_four_or_five_notches_and_a_clubs_solidity() -> None:
    assert VOTE.is_club(PipShape(20.0, 0.72, 4))
    assert not VOTE.is_club(PipShape(20.0, 0.72, 2))  # a spade's two notches
    assert not VOTE.is_club(PipShape(20.0, 0.90, 4))  # too solid: a spade
    assert not VOTE.is_club(PipShape(20.0, 0.50, 5))  # pips run together


# --- clubs_by_pips on a photo --------------------------------------------------------------------


def _on_table(card_face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The face pasted on a green table; its quad (tl, tr, br, bl)."""
    table = np.zeros((400, 400, 3), np.uint8)
    table[:] = (40, 110, 40)
    h, w = card_face.shape[:2]
    table[100:100 + h, 120:120 + w] = card_face
    quad = np.array([[120, 100], [120 + w, 100], [120 + w, 100 + h], [120, 100 + h]], np.float32)
    return table, quad


def _read(image: np.ndarray, quad: np.ndarray, card: str) -> Detections:
    other = "10C" if card == "10S" else "10S"
    return Detections(quad=quad[None], card=np.array([card], object), confidence=np.array([0.9], np.float32),
                      top=[[(card, 0.9), (other, 0.08)]])


def test_a_ten_of_clubs_read_as_a_spade_is_the_club_with_the_probabilities_swapped() -> None:
    image, quad = _on_table(face("10C", 160))
    out = clubs_by_pips(image, _read(image, quad, "10S"), VOTE)
    assert out.card.tolist() == ["10C"]
    assert out.top == [[("10C", 0.9), ("10S", 0.08)]]
    assert out.confidence.tolist() == pytest.approx([0.9])


def test_a_spade_stays_a_spade_and_a_club_is_never_turned() -> None:
    image, quad = _on_table(face("10S", 160))
    assert clubs_by_pips(image, _read(image, quad, "10S"), VOTE).card.tolist() == ["10S"]
    # a club read as a club whose pips (here a spade's) disagree: the vote only ever adds a club
    assert clubs_by_pips(image, _read(image, quad, "10C"), VOTE).card.tolist() == ["10C"]


def test_no_vote_no_change() -> None:
    image, quad = _on_table(face("10C", 160))
    found = _read(image, quad, "10S")
    assert clubs_by_pips(image, found, None) is found


# --- the model JSON's block ----------------------------------------------------------------------

GOOD: dict[str, Any] = {"club_notches": [4, 5], "club_solidity": [0.6, 0.82], "min_pips": 2, "club_share": 0.66,
                        "min_pip_px": 12}


def test_the_committed_french_model_carries_the_tested_thresholds() -> None:
    path = models_dir() / "french.json"
    # and asks for it on the live loop's frames too (docs/lab/2026-12-05-live-pip-vote.md)
    assert PipVote.from_info(json.loads(path.read_text()), path) == replace(VOTE, live=True)


def test_a_good_block_is_read() -> None:
    assert PipVote.from_info({"black_pips": GOOD}, Path("french.json")) == VOTE
    assert PipVote.from_info({}, Path("french.json")) is None


def test_the_live_key_is_optional_and_off_when_absent() -> None:
    assert not VOTE.live
    assert PipVote.from_info({"black_pips": {**GOOD, "live": False}}, Path("french.json")) == VOTE
    assert PipVote.from_info({"black_pips": {**GOOD, "live": True}}, Path("french.json")) == replace(VOTE, live=True)


@pytest.mark.parametrize(("block", "words"), [
    ([1, 2], "black_pips: expected an object"),
    ({**GOOD, "pip_scale": 1}, "unknown key(s) pip_scale"),
    ({k: v for k, v in GOOD.items() if k != "min_pips"}, "missing key(s) min_pips"),
    ({**GOOD, "club_notches": [5, 4]}, "black_pips.club_notches"),
    ({**GOOD, "club_notches": [4.5, 5]}, "black_pips.club_notches"),
    ({**GOOD, "club_solidity": [0.6, 1.2]}, "black_pips.club_solidity"),
    ({**GOOD, "min_pips": 2.5}, "black_pips.min_pips"),
    ({**GOOD, "min_pips": 1}, "black_pips.min_pips"),
    ({**GOOD, "club_share": True}, "black_pips.club_share"),
    ({**GOOD, "min_pip_px": "12"}, "black_pips.min_pip_px"),
    ({**GOOD, "live": "yes"}, "black_pips.live: expected true or false"),
    ({**GOOD, "live": 1}, "black_pips.live: expected true or false"),
])
def test_a_bad_block_names_the_file_and_key(block: object, words: str) -> None:
    with pytest.raises(ModelError) as err:
        PipVote.from_info({"black_pips": block}, Path("models/french.json"))
    assert "models/french.json" in str(err.value)
    assert words in str(err.value)


@pytest.fixture
def model(copy_models: Callable[..., Path]) -> Path:
    return copy_models("french", "italian")


def _set_block(folder: Path, deck: str, block: object) -> None:
    path = folder / f"{deck}.json"
    data = json.loads(path.read_text())
    data["black_pips"] = block
    path.write_text(json.dumps(data))


def test_the_block_reaches_the_classifier(model: Path) -> None:
    _set_block(model, "french", GOOD)
    clf = CardClassifier.load("french", model)
    assert clf.black_pips == VOTE
    clf.enrollment = object()  # type: ignore[assignment]  # an enrolled deck's prototypes know its clubs
    assert clf.black_pips is None


def test_a_bad_block_stops_the_load_naming_the_file(model: Path) -> None:
    _set_block(model, "french", {**GOOD, "club_share": 2})
    with pytest.raises(ModelError, match=r"french\.json: black_pips\.club_share"):
        CardClassifier.load("french", model)


def test_an_italian_model_may_not_carry_the_block(model: Path) -> None:
    _set_block(model, "italian", GOOD)
    with pytest.raises(ModelError, match="black_pips"):
        CardClassifier.load("italian", model)


# --- wired into the still path, and into the live loop where the block says live ---------------


class SpadeReader(StandInClassifier):
    """The stand-in reading every card ``10S``, with the vote of a model JSON's block."""

    def __init__(self, vote: PipVote = VOTE) -> None:
        super().__init__("10S")
        self.black_pips = vote


def _photo_of(card: str) -> np.ndarray:
    image = np.zeros((720, 1280, 3), np.uint8)
    image[:] = (40, 110, 40)
    card_face = face(card, 240)
    h, w = card_face.shape[:2]
    image[200:200 + h, 500:500 + w] = card_face
    return image


def test_a_photo_read_through_the_still_path_is_voted_and_the_live_loop_is_not() -> None:
    pipe = FramePipeline.create(SpadeReader())
    assert pipe.process_still(_photo_of("10C")).card.tolist() == ["10C"]
    assert pipe.process_still(_photo_of("10S")).card.tolist() == ["10S"]
    assert pipe.process(_photo_of("10C")).card.tolist() == ["10S"]


def test_a_live_block_votes_the_live_loops_frames_too() -> None:
    pipe = FramePipeline.create(SpadeReader(replace(VOTE, live=True)))
    assert pipe.process(_photo_of("10C")).card.tolist() == ["10C"]
    assert pipe.process(_photo_of("10S")).card.tolist() == ["10S"]
    assert pipe.find_card_size(_photo_of("10C")).card.tolist() == ["10C"]  # a live frame too


def test_a_still_photo_is_voted_once_on_what_its_looks_settle_on_with_a_live_block(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The looks of ``process_still`` are ``process`` calls; a live block must not vote inside
    them (that would change which look wins, and ``referee detect``'s output), only once at the end."""
    asked: list[int] = []
    votes_club = PipVote.votes_club

    def counted(self: PipVote, crop: np.ndarray) -> bool:
        asked.append(crop.shape[0])
        return votes_club(self, crop)

    monkeypatch.setattr(PipVote, "votes_club", counted)
    pipe = FramePipeline.create(SpadeReader(replace(VOTE, live=True)))
    assert pipe.process_still(_photo_of("10S")).card.tolist() == ["10S"]  # a spade stays one: asked each time
    assert len(asked) == 1
    assert pipe.process_still(_photo_of("10C")).card.tolist() == ["10C"]
    assert pipe.pip_vote_frames  # and the live loop's frames are voted on again afterwards
