"""The live loop: auto deal, confirmations queueing plays in order, camera faults, CLI errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.rules import Referee
from referee.vision.detections import Detections
from referee.vision.watch import OperatorFeed, WatchLoop

SEATS = ["N", "W", "S", "E"]


class StubTracker:
    def __init__(self) -> None:
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1


class StubPipeline:
    def __init__(self) -> None:
        self.layout = self

    def zone_of(self, p: Sequence[float]) -> str:
        return "stock" if p[0] < 100 else "play"


class StubLive:
    """Scripted camera plays per frame, and what was 'seen' for the briscola read."""

    def __init__(self, script: list[list[dict[str, Any]]], seen: Detections | None = None) -> None:
        self.script = script
        self.last = seen if seen is not None else Detections.empty()
        self.tracker = StubTracker()
        self.pipeline = StubPipeline()

    def update(self, image: Any, t: float, operator: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.script.pop(0) if self.script else []


def play(seat: str, card: str, confidence: float = 0.97, **extra: Any) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card, "confidence": confidence, **extra}


def briscola_seen(card: str) -> Detections:
    quad = np.array([[[20, 20], [60, 20], [60, 90], [20, 90]]], np.float32)
    return Detections(quad=quad, card=np.array([card], object), confidence=np.array([0.95], np.float32))


def steps(loop: WatchLoop, n: int, operator: dict[int, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        out += loop.step(np.zeros((4, 4, 3), np.uint8), i / 10, (operator or {}).get(i, []))
    return out


def test_briscola_is_dealt_once_the_briscola_is_read_in_the_stock() -> None:
    ref = Referee()
    live = StubLive([[] for _ in range(6)] + [[play("N", "coppe_3")]], seen=briscola_seen("denari_1"))
    out = steps(WatchLoop(live, ref, "briscola-4", SEATS), 8)  # type: ignore[arg-type]
    assert ref.deal is not None and ref.deal.trump_card is not None
    assert str(ref.deal.trump_card) == "denari_1"
    assert out[0] == {"call": "turn", "seat": "N", "t": 0.4}
    assert {"call": "turn", "seat": "W", "t": 0.6} in out


def test_an_unsure_play_waits_for_the_operator_and_later_plays_queue_behind_it() -> None:
    ref = Referee()
    live = StubLive([[], [play("N", "coppe_3", 0.5, uncertain=True, alternatives=["coppe_2"])],
                     [play("W", "spade_1")], [], []])
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    deal = {"event": "deal", "game": "briscola-4", "seats": SEATS, "trump_card": "denari_1"}
    out = steps(loop, 5, {0: [deal], 3: [{"event": "confirm", "card": "coppe_2"}]})
    confirms = [c for c in out if c["call"] == "confirm"]
    assert confirms == [{"call": "confirm", "seat": "N", "card": "coppe_3", "confidence": 0.5,
                         "alternatives": ["coppe_2"], "t": 0.1}]
    assert [(s, str(c)) for s, c in ref.deal.trick.plays] == [("N", "coppe_2"), ("W", "spade_1")]  # type: ignore[union-attr]
    assert live.tracker.resets == 1


def test_a_rejected_play_is_not_played() -> None:
    ref = Referee()
    live = StubLive([[play("N", "coppe_3", 0.4)], []])
    loop = WatchLoop(live, ref, "briscola-2", ["N", "S"])  # type: ignore[arg-type]
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "trump_card": "denari_1"}
    steps(loop, 2, {0: [deal], 1: [{"event": "confirm", "accept": False}]})
    assert ref.deal is not None and not ref.deal.trick.plays and ref.turn == "N"


def test_camera_stops_and_comes_back_without_losing_the_game() -> None:
    ref = Referee()
    loop = WatchLoop(StubLive([[play("N", "coppe_3")]]), ref, "briscola-chiamata", list("ABCDE"))  # type: ignore[arg-type]
    down = loop.camera(False, "timeout", [])
    again = loop.camera(False, "timeout", [])
    up = loop.camera(True, "", [])
    assert down == [{"call": "camera", "status": "degraded", "detail": "timeout"}] and again == []
    assert up[0]["status"] == "ok"


def test_operator_feed_reads_lines_and_reports_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "ops.jsonl"
    path.write_text('{"event": "undo"}\nnot json\n')
    feed = OperatorFeed(str(path))
    got: list[dict[str, Any]] = []
    for _ in range(100):
        got += feed.poll()
        if len(got) >= 2:
            break
        import time

        time.sleep(0.02)
    feed.stop()
    assert got[0] == {"event": "undo"} and got[1]["event"] == "error" and "line 2" in got[1]["detail"]


def test_cli_rejects_a_layout_that_does_not_fit_the_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import referee.recognition as recognition
    from referee.vision.finder_scenes import StandInClassifier as FakeClassifier
    from referee.vision.layout import TableLayout

    monkeypatch.setattr(recognition.CardClassifier, "load", classmethod(lambda cls, *a, **k: FakeClassifier()))
    TableLayout.default(SEATS, (1280, 720)).save(tmp_path / "layout.json")
    cv2.imwrite(str(tmp_path / "f1.png"), np.zeros((480, 640, 3), np.uint8))
    status = main(["watch", "--source", str(tmp_path / "*.png"), "--game", "briscola-4",
                   "--layout", str(tmp_path / "layout.json")])
    assert status == 2 and "640x480" in capsys.readouterr().err


def test_cli_without_layout_for_a_camera_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "f1.png"), np.zeros((48, 64, 3), np.uint8))
    assert main(["watch", "--source", str(tmp_path / "*.png"), "--game", "briscola-4"]) == 2
    assert "calibrate" in capsys.readouterr().err


def test_cli_runs_frames_and_prints_json_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import referee.recognition as recognition
    from referee.vision.finder_scenes import PlacedCard, make_scene
    from referee.vision.finder_scenes import StandInClassifier as FakeClassifier
    from referee.vision.layout import TableLayout

    monkeypatch.setattr(recognition.CardClassifier, "load", classmethod(lambda cls, *a, **k: FakeClassifier()))
    TableLayout.default(SEATS, (1280, 720)).save(tmp_path / "layout.json")
    image, _ = make_scene([PlacedCard((640, 300), 10, 150)], np.random.default_rng(0), "felt")
    for i in range(6):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), image)
    ops = tmp_path / "ops.jsonl"
    ops.write_text(json.dumps({"event": "deal", "game": "briscola-4", "seats": SEATS, "trump_card": "denari_1"}) + "\n")
    status = main(["watch", "--source", str(tmp_path / "*.png"), "--game", "briscola-4",
                   "--layout", str(tmp_path / "layout.json"), "--events", str(ops),
                   "--annotate", str(tmp_path / "out.mp4")])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert status == 0 and all("call" in x for x in lines)
    assert (tmp_path / "out.mp4").stat().st_size > 0
