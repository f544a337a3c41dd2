"""The live loop: auto deal, confirmations queueing plays in order, camera faults, CLI errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from tracker_doubles import StubTracker, Track

from referee.captions import call_text
from referee.cli import main
from referee.rules import Referee
from referee.table.proposal import ProposedPlay
from referee.vision.detections import Detections
from referee.vision.tracker import TrackerConfig
from referee.vision.watch import OperatorFeed, WatchLoop

SEATS = ["N", "W", "S", "E"]


class StubPipeline:
    def __init__(self) -> None:
        self.layout = self

    def zone_of(self, p: Sequence[float]) -> str:
        return "stock" if p[0] < 100 else "play"


class StubLive:
    """Scripted camera plays per frame, and what was 'seen' for the briscola read."""

    def __init__(self, script: list[list[ProposedPlay]], seen: Detections | None = None) -> None:
        self.script = script
        self.last = seen if seen is not None else Detections.empty()
        self.tracker = StubTracker()
        self.pipeline = StubPipeline()

    def update(self, image: Any, t: float, operator: Sequence[Any] = ()) -> list[ProposedPlay]:
        return self.script.pop(0) if self.script else []


def play(seat: str, card: str, confidence: float = 0.97, **extra: Any) -> ProposedPlay:
    return ProposedPlay.from_event({"event": "play", "seat": seat, "card": card, "confidence": confidence, **extra})


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
    assert ref.deal is not None and ref.deal.trick is not None and not ref.deal.trick.plays and ref.turn == "N"


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


def test_operator_feed_refuses_poison_lines_as_the_event_logs_do(tmp_path: Path) -> None:
    """NaN, a lone surrogate and bytes that are not UTF-8 are error calls naming the line; the
    reader thread goes on to the next line instead of dying or passing them to the referee."""
    path = tmp_path / "ops.jsonl"
    path.write_bytes(b'{"event": "undo", "x": NaN}\n{"seat": "\\ud800"}\n\xff\xfe\n{"event": "undo"}\n')
    feed = OperatorFeed(str(path))
    got: list[dict[str, Any]] = []
    for _ in range(200):
        got += feed.poll()
        if len(got) >= 4:
            break
        import time

        time.sleep(0.02)
    feed.stop()
    assert [g["event"] for g in got] == ["error", "error", "error", "undo"]
    assert ["line 1" in got[0]["detail"], "line 2" in got[1]["detail"], "line 3" in got[2]["detail"]] == [True] * 3


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


def test_cli_names_a_missing_enrollment_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from referee.paths import models_dir

    if not (models_dir() / "italian.onnx").exists():
        pytest.skip("no committed italian model")
    from referee.vision.layout import TableLayout

    TableLayout.default(SEATS, (64, 48)).save(tmp_path / "layout.json")
    cv2.imwrite(str(tmp_path / "f1.png"), np.zeros((48, 64, 3), np.uint8))
    assert main(["watch", "--source", str(tmp_path / "*.png"), "--game", "briscola-4", "--layout",
                 str(tmp_path / "layout.json"), "--enrollment", str(tmp_path / "club.npz")]) == 2
    assert f"enrollment file not found: {tmp_path / 'club.npz'}" in capsys.readouterr().err


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
                   "--annotate", str(tmp_path / "out.webm")])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert status == 0 and all("call" in x for x in lines)
    assert (tmp_path / "out.webm").stat().st_size > 0


def briscola4_deal() -> dict[str, Any]:
    return {"event": "deal", "game": "briscola-4", "seats": SEATS, "trump_card": "denari_1"}


def test_a_play_out_of_turn_after_an_unread_card_asks_about_the_seat_on_turn_instead() -> None:
    ref = Referee()
    live = StubLive([[], [play("W", "spade_1")], [], []])
    live.tracker.missed = Track(7, "coppe_5")  # N's card lay still but was never read
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    out = steps(loop, 4, {0: [briscola4_deal()], 2: [{"event": "confirm", "card": "coppe_5"}]})
    assert next(c for c in out if c["call"] == "confirm") | {"t": 0} == {
        "call": "confirm", "seat": "N", "card": "coppe_5", "confidence": 0.0, "alternatives": [],
        "missed": True, "t": 0}
    assert not [c for c in out if c["call"] == "violation"]
    assert [(s, str(c)) for s, c in ref.deal.trick.plays] == [("N", "coppe_5"), ("W", "spade_1")]  # type: ignore[union-attr]
    assert live.tracker.settled == [(7, "coppe_5", "N")]  # the unread card is N's play from now on


def test_when_the_operator_says_the_seat_on_turn_did_not_play_the_out_of_turn_play_is_called() -> None:
    ref = Referee()
    live = StubLive([[], [play("W", "spade_1")], [], []])
    live.tracker.missed = Track(7, "coppe_5")
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    out = steps(loop, 4, {0: [briscola4_deal()], 2: [{"event": "confirm", "accept": False}]})
    assert [c["rule"] for c in out if c["call"] == "violation"] == ["out_of_turn"]
    assert len([c for c in out if c["call"] == "confirm"]) == 1  # asked once, not about W again


def two_whole_tricks_then_w_out_of_turn() -> StubLive:
    first = [play("N", "coppe_1"), play("W", "coppe_2"), play("S", "coppe_3"), play("E", "coppe_4")]
    second = [play("N", "spade_1"), play("W", "spade_2"), play("S", "spade_3"), play("E", "spade_4")]
    return StubLive([[], first, second, [play("W", "denari_3")], []])  # N leads, W plays first


def test_a_clear_out_of_turn_play_is_called_at_once_where_the_table_trusts_the_camera() -> None:
    ref = Referee()
    live = two_whole_tricks_then_w_out_of_turn()
    loop = WatchLoop(live, ref, "briscola-4", SEATS, trust_after=2)  # type: ignore[arg-type]
    out = steps(loop, 4, {0: [briscola4_deal()]})
    assert not [c for c in out if c["call"] == "confirm"]  # two whole tricks seen: trusted
    assert [(c["seat"], c["rule"]) for c in out if c["call"] == "violation"] == [("W", "out_of_turn")]


def test_by_default_a_clear_out_of_turn_play_is_asked_about_before_it_is_called() -> None:
    ref = Referee()
    live = two_whole_tricks_then_w_out_of_turn()
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    no = [{"event": "confirm", "accept": False}]
    out = steps(loop, 7, {0: [briscola4_deal()], 4: no, 5: no, 6: no})
    # did N play? then who won the last trick: W's own card there, and the winning card
    assert [(c["seat"], c.get("correction"), c.get("missed")) for c in out if c["call"] == "confirm"] == [
        ("N", None, True), ("W", "spade_2", None), ("N", "spade_1", None)]
    assert [(c["seat"], c["rule"]) for c in out if c["call"] == "violation"] == [("W", "out_of_turn")]


@pytest.mark.parametrize(("call", "text"), [
    ({"call": "withdrawn", "seat": "W", "rule": "revoke", "trick": 1, "detail": "...", "reason": "false_declaration"},
     "WITHDRAWN W: revoke (trick 1, false_declaration)"),
    ({"call": "declaration", "seat": "N", "kind": "tierce", "cards": ["7S", "8S", "9S"], "points": 20},
     "N declares tierce (20): 7S 8S 9S"),
    ({"call": "declaration", "seat": "E", "kind": "belote", "points": 20}, "E declares belote (20)"),
])
def test_withdrawn_and_declaration_calls_get_a_caption(call: dict[str, Any], text: str) -> None:
    assert call_text(call) == text


BELOTTA_FALSE_DECLARATION: list[dict[str, Any]] = [
    {"event": "deal", "game": "belotta", "seats": SEATS, "dealer": "E", "turned": "7H"},
    {"event": "contract", "seat": "N", "trump": "H"},
    {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]},
    play("N", "7S").to_event(), play("W", "8C").to_event(), play("S", "AS").to_event(),
]


def test_a_real_declaration_and_its_withdrawn_revoke_are_the_video_caption() -> None:
    # Belotta 3f (docs/games.md, belotta): W declares a tierce it does not hold, a revoke
    # is proved by it, then S plays the declared AS: the revoke is withdrawn.
    ref = Referee()
    loop = WatchLoop(StubLive([]), ref, "belotta", SEATS)  # type: ignore[arg-type]
    texts = []
    for event in BELOTTA_FALSE_DECLARATION:
        calls = loop.session.apply(event)
        assert isinstance(calls, list), calls  # not refused
        texts += [call_text(c) for c in calls if c["call"] in ("declaration", "withdrawn")]
    assert texts == ["W declares terza (20): AS KS QS", "WITHDRAWN W: revoke (trick 1, false_declaration)"]


def test_cli_refuses_a_negative_trust_after_tricks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["watch", "--source", "sim:briscola-4:1", "--game", "briscola-4", "--trust-after-tricks", "-1"])
    assert "trust-after-tricks" in capsys.readouterr().err


def test_a_camera_that_has_just_missed_a_card_asks_before_calling_out_of_turn() -> None:
    ref = Referee()
    live = StubLive([[], [play("W", "spade_1")], [], []])  # first trick: no record yet
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    out = steps(loop, 4, {0: [briscola4_deal()], 2: [{"event": "confirm", "accept": False}]})
    assert [(c["seat"], c["card"]) for c in out if c["call"] == "confirm"] == [("N", None)]
    assert [(c["seat"], c["rule"]) for c in out if c["call"] == "violation"] == [("W", "out_of_turn")]


def test_a_trick_gathered_short_asks_for_the_missing_seat() -> None:
    ref = Referee()
    live = StubLive([[], [play("N", "coppe_3")]] + [[] for _ in range(40)])
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    steps(loop, 2, {0: [briscola4_deal()]})
    live.tracker.on_table = False  # the trick's cards are gone: gathered with W's card unseen
    out = [c for i in range(2, 40) for c in loop.step(np.zeros((4, 4, 3), np.uint8), i / 10, [])]
    confirms = [c for c in out if c["call"] == "confirm"]
    assert len(confirms) == 1 and confirms[0]["seat"] == "W" and confirms[0]["missed"] is True
    assert confirms[0]["t"] > 0.1 + TrackerConfig().long_gone_s
    answer = loop.step(np.zeros((4, 4, 3), np.uint8), 4.0, [{"event": "confirm", "card": "coppe_4"}])
    assert [(s, str(c)) for s, c in ref.deal.trick.plays] == [("N", "coppe_3"), ("W", "coppe_4")]  # type: ignore[union-attr]
    assert not [c for c in answer if c["call"] == "error"]


def test_after_the_deal_is_over_camera_plays_are_ignored_quietly() -> None:
    ref = Referee()
    live = StubLive([[], [play("N", "coppe_3")], [play("S", "coppe_4")], [play("N", "coppe_5")]])
    loop = WatchLoop(live, ref, "briscola-2", ["N", "S"])  # type: ignore[arg-type]
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "trump_card": "denari_1"}
    steps(loop, 1, {0: [deal]})
    ref.deal.phase = "over"  # type: ignore[union-attr]
    out = [c for i in range(1, 4) for c in loop.step(np.zeros((4, 4, 3), np.uint8), i / 10, [])]
    assert not [c for c in out if c["call"] in ("error", "violation", "confirm")]
    assert not loop.dealt  # briscola: waits for the next deal's briscola


def test_a_play_out_of_turn_over_the_spot_of_the_seat_on_turn_asks_about_that_seat() -> None:
    ref = Referee()
    live = StubLive([[], [play("W", "spade_1")], [], []])
    live.tracker.clear = False  # W's card lies where N's would: N's may be under it
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    out = steps(loop, 4, {0: [briscola4_deal()], 2: [{"event": "confirm", "card": "coppe_5"}]})
    assert [(c["seat"], c["card"]) for c in out if c["call"] == "confirm"] == [("N", None)]
    assert not [c for c in out if c["call"] in ("violation", "error")]
    assert [(s, str(c)) for s, c in ref.deal.trick.plays] == [("N", "coppe_5"), ("W", "spade_1")]  # type: ignore[union-attr]


def test_a_card_of_the_seat_on_turn_after_its_trick_was_gathered_short_starts_with_a_question() -> None:
    ref = Referee()
    live = StubLive([[], [play("N", "coppe_3")], [], [play("S", "coppe_4")], [], []])
    loop = WatchLoop(live, ref, "briscola-2", ["N", "S"])  # type: ignore[arg-type]
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "trump_card": "denari_1"}
    steps(loop, 2, {0: [deal]})
    live.tracker.on_table = False  # N's card was gathered with S's unseen; S now leads the next trick
    out = [c for i in range(2, 6) for c in loop.step(np.zeros((4, 4, 3), np.uint8), i / 10,
                                                     [{"event": "confirm", "card": "coppe_1"}] if i == 4 else [])]
    assert [(c["seat"], c["card"]) for c in out if c["call"] == "confirm"] == [("S", None)]
    assert not [c for c in out if c["call"] in ("violation", "error")]
    # S's missed card completed the old trick; its new one leads the next
    assert [c["cards"] for c in out if c["call"] == "trick"] == [[["N", "coppe_3"], ["S", "coppe_1"]]]
    assert [(s, str(c)) for s, c in ref.deal.trick.plays] == [("S", "coppe_4")]  # type: ignore[union-attr]


def test_the_card_the_operator_names_is_what_the_tracker_remembers_on_that_spot() -> None:
    ref = Referee()
    live = StubLive([[], [play("N", "coppe_3", 0.5, uncertain=True, alternatives=["coppe_2"], track=3)], []])
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    steps(loop, 3, {0: [briscola4_deal()], 2: [{"event": "confirm", "card": "coppe_2"}]})
    assert live.tracker.settled == [(3, "coppe_2", "N")]  # so the trick's cards are known on the table


def test_a_correction_is_asked_with_both_cards_and_replaces_the_play_on_yes() -> None:
    ref = Referee()
    fix = replace(play("N", "coppe_6"), correction="coppe_5", uncertain=True, alternatives=("coppe_5",))
    live = StubLive([[], [play("N", "coppe_5")], [fix], []])
    loop = WatchLoop(live, ref, "briscola-4", SEATS)  # type: ignore[arg-type]
    out = steps(loop, 3, {0: [briscola4_deal()]})
    asked = [c for c in out if c["call"] == "confirm"]
    assert [(c["seat"], c["card"], c["correction"]) for c in asked] == [("N", "coppe_6", "coppe_5")]
    assert loop.last_text == "CONFIRM? N coppe_6 (not coppe_5)"
    answer = loop.step(np.zeros((4, 4, 3), np.uint8), 0.3, [{"event": "confirm"}])
    assert [c["call"] for c in answer][:1] == ["undo"] and not any(c["call"] == "error" for c in answer)
    assert [(s, c.code) for s, c in ref.deal.trick.plays] == [("N", "coppe_6")]  # type: ignore[union-attr]
