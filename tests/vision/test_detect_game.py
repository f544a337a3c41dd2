"""``referee detect --game NAME``: the game gives the deck family, the copies and the faces read;
a ``--deck`` or ``--copies`` it contradicts is one clear line (status 2), an unknown game lists the
known ones, and without ``--game`` the output is byte for byte what it was."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import referee.recognition as recognition
from referee.cards import BINOCOLO_48, parse_card
from referee.cli import main
from referee.errors import ConfigError
from referee.paths import models_dir, shared_dir
from referee.recognition import CardClassifier
from referee.recognition.game_faces import GameFaces
from referee.vision.detect import detect_file
from referee.vision.finder_scenes import PlacedCard, StandInClassifier, make_scene
from referee.vision.pipeline import FramePipeline

needs_french = pytest.mark.skipif(not (models_dir() / "french.onnx").exists(), reason="no committed french model")
PINOCHLE = "photos/french_pinochle_voc_train"


def _command_line(monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    """``referee ARGV`` as the installed command runs it (main() reads sys.argv)."""
    monkeypatch.setattr(sys, "argv", ["referee", *argv])
    return main()


def _table(path: Path) -> None:
    image, _ = make_scene([PlacedCard((300, 300), 10, 150)], np.random.default_rng(3), "felt")
    cv2.imwrite(str(path), image)


@pytest.mark.parametrize(("argv", "named"), [
    (["--game", "binocolo", "--deck", "italian"], "--deck italian contradicts --game binocolo, played with a french deck"),
    (["--game", "briscola-4", "--deck", "french"], "--deck french contradicts --game briscola-4, played with a italian deck"),
    (["--game", "binocolo", "--copies", "1"], "--copies 1 contradicts --game binocolo, whose deck holds 2 of each card"),
    (["--game", "belotta", "--copies", "2"], "--copies 2 contradicts --game belotta, whose deck holds 1 of each card"),
])
def test_a_deck_or_copies_the_game_contradicts_is_one_clear_line(
    argv: list[str], named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded: list[Any] = []

    def load(*a: Any, **k: Any) -> StandInClassifier:
        loaded.append(a)
        return StandInClassifier()

    monkeypatch.setattr(recognition.CardClassifier, "load", load)
    with pytest.raises(ConfigError, match=re.escape(named)):
        main(["detect", *argv, "x.png"])
    assert _command_line(monkeypatch, "detect", *argv, "x.png") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and "Traceback" not in err
    assert not loaded  # refused before any model is loaded


def test_no_deck_and_no_game_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _command_line(monkeypatch, "detect", "x.png") == 2
    err = capsys.readouterr().err
    assert "give --deck italian|french, or --game NAME" in err and "Traceback" not in err


def test_an_unknown_game_lists_the_known_ones(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _command_line(monkeypatch, "detect", "--game", "pinochle", "x.png")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'pinochle'" in err and "Traceback" not in err
    assert all(name in err for name in ("briscola-2", "briscola-4", "briscola-chiamata", "belotta", "binocolo"))


def test_the_game_gives_the_recogniser_its_family_faces_and_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    copies: list[int] = []

    def load(*a: Any, **k: Any) -> StandInClassifier:
        calls.append((a, k))
        return StandInClassifier()

    monkeypatch.setattr(recognition.CardClassifier, "load", load)
    real_create = FramePipeline.create

    def create(classifier: Any, *a: Any, **k: Any) -> FramePipeline:
        pipe = real_create(classifier, *a, **k)
        original = pipe.process_still

        def still(image: Any, sure: float = 0.8) -> Any:
            copies.append(pipe.copies)
            return original(image, sure)

        pipe.process_still = still  # type: ignore[method-assign]
        return pipe

    monkeypatch.setattr(FramePipeline, "create", staticmethod(create))
    image = tmp_path / "table.png"
    _table(image)
    for argv in (["--game", "binocolo"], ["--game", "binocolo", "--deck", "french", "--copies", "2"],
                 ["--deck", "french"], ["--deck", "french", "--copies", "2"], ["--game", "briscola-chiamata"]):
        assert main(["detect", *argv, str(image)]) == 0
    assert [(a[0], k["game"]) for a, k in calls] == [
        ("french", GameFaces.of("binocolo")), ("french", GameFaces.of("binocolo")),
        ("french", None), ("french", None), ("italian", GameFaces.of("briscola-chiamata")),
    ]
    assert copies == [2, 2, 1, 2, 1]


def _without_ms(text: str) -> str:
    return re.sub(r', "ms": [0-9.]+', "", text)


@needs_french
@pytest.mark.shared(PINOCHLE)
def test_without_a_game_the_output_is_byte_for_byte_what_the_whole_family_reads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    photos = [str(shared_dir() / PINOCHLE / "images" / name) for name in ("IMG_2396.JPG", "IMG_2481.JPG")]
    for copies in (1, 2):
        # what `referee detect --deck french [--copies 2]` ran before it knew of games
        pipeline = FramePipeline.create(CardClassifier.load("french", threads=1))
        pipeline.min_confidence, pipeline.copies = 0.3, copies
        want = "".join(json.dumps(detect_file(pipeline, p)) + "\n" for p in photos)
        capsys.readouterr()
        assert main(["detect", "--deck", "french", *(["--copies", "2"] if copies == 2 else []), *photos]) == 0
        assert _without_ms(capsys.readouterr().out) == _without_ms(want)


@needs_french
@pytest.mark.shared(PINOCHLE)
def test_pinochle_photos_read_as_binocolo_name_only_binocolo_cards(capsys: pytest.CaptureFixture[str]) -> None:
    # over the whole French deck, a box over part of IMG_2514's queen and the carpet reads as the
    # 8 and 9 of spades, and IMG_2588's nine of diamonds has a second box read 6D
    photos = [str(shared_dir() / PINOCHLE / "images" / name) for name in ("IMG_2514.JPG", "IMG_2588.JPG")]
    assert main(["detect", "--game", "binocolo", *photos]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    cards = [c["card"] for line in lines for c in line["cards"]]
    assert len(lines) == 2 and cards and all(parse_card(c) in BINOCOLO_48 for c in cards)
