"""``referee demo``: runs a whole simulated deal end to end and writes its outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from referee.cli import main
from referee.errors import RefereeError
from referee.vision.simulator.harness import VIDEO_WIDTH, run_demo, video_stride


@pytest.mark.slow
def test_demo_referees_a_whole_deal_and_writes_video_screens_and_logs(tmp_path: Path) -> None:
    result = run_demo(game="briscola-2", seed=2, out=tmp_path, fps=2.0, truth_vision=True, quiet=True,
                      video_fps=1.0)
    assert result.calls[-1]["call"] == "deal_end"
    assert sum(1 for c in result.calls if c["call"] == "trick") == 20
    assert (tmp_path / "annotated.webm").stat().st_size > 10_000
    # the video keeps every other frame (1 of the camera's 2 a second), at the default width
    video = cv2.VideoCapture(str(tmp_path / "annotated.webm"))
    kept = 0
    while (frame := video.read())[0]:
        kept += 1
        assert frame[1].shape == (360, VIDEO_WIDTH, 3)
    video.release()
    assert kept == (result.frames + 1) // 2
    screens = sorted(p.name for p in (tmp_path / "screens").glob("*.png"))
    assert screens[0].endswith("_trick.png") and screens[-1].endswith("_score.png")
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert calls == result.calls
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    plays = [e for e in result.events if e["event"] == "play"]
    assert [(t["seat"], t["card"]) for t in truth] == [(p["seat"], p["card"]) for p in plays]
    fed = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert all(isinstance(e["t"], float) for e in fed)  # each with the frame time it was fed at


@pytest.mark.slow
def test_demo_cli_prints_calls_and_the_final_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--game", "belotta", "--seed", "4", "--fps", "2", "--out", str(tmp_path),
                 "--no-video", "--truth-vision"])
    assert code == 0
    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert any(c["call"] == "trick" for c in lines)
    assert "final score:" in out and "32/32 plays right, 0 misread, 0 phantom" in out
    delay_line = next(line for line in out.splitlines() if "delay from a card lying still" in line)
    assert float(delay_line.rsplit("max ", 1)[1].split()[0]) <= 0.5  # truth: within one frame at 2 fps
    assert not (tmp_path / "annotated.webm").exists()
    assert "annotated" not in out  # --no-video: the summary does not claim a video


@pytest.mark.parametrize(("fps", "video_fps", "every"), [(10, 5, 2), (10, 10, 1), (2, 5, 1), (10, 3, 3), (30, 4, 8)])
def test_the_demo_video_keeps_the_frame_stride_nearest_its_rate(fps: float, video_fps: float, every: int) -> None:
    assert video_stride(fps, video_fps) == every


def test_demo_refuses_a_video_rate_or_width_it_cannot_write_before_simulating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RefereeError, match="frame rate must be above 0"):
        video_stride(10, 0)
    assert main(["demo", "--video-width", "100", "--out", str(tmp_path)]) == 2
    assert "width must be at least 320 px, got 100" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # refused before anything was simulated or written


def test_demo_refuses_a_deck_that_does_not_fit_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "briscola-4", "--deck", "french", "--out", str(tmp_path)]) == 2
    assert "italian" in capsys.readouterr().err


def test_simulated_operator_confirms_the_true_card_and_refuses_phantoms() -> None:
    from referee.table.question import Question
    from referee.vision.simulator.operator import SimOperator
    from referee.vision.simulator.stages import RecordingReferee
    from referee.vision.simulator.video import PlayTruth

    ref = RecordingReferee()
    ref.apply({"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"})
    ref.apply({"event": "play", "seat": "N", "card": "coppe_3"})
    plays = [PlayTruth("N", "coppe_3", 1.0, 1), PlayTruth("S", "spade_5", 2.0, 1), PlayTruth("N", "denari_2", 5.0, 2)]
    operator = SimOperator(plays, ref)
    operator.ask(Question.from_call({"call": "confirm", "seat": "S", "card": "spade_6"}), t=2.5)  # misread: S really laid spade_5
    operator.ask(Question.from_call({"call": "confirm", "seat": "N", "card": "coppe_3"}), t=2.5)  # N's card is already in
    assert operator.answers() == [{"event": "confirm", "card": "spade_5"}, {"event": "confirm", "accept": False}]
    assert operator.answers() == [] and operator.asked == 2 and operator.refused == 1
    # N's denari_2 was lost to a misread; asked about the card N has on the table now, the
    # operator names that one, and asked whether N played (missed), the oldest one missing.
    operator.plays.append(PlayTruth("N", "denari_5", 8.0, 3))
    operator.ask(Question.from_call({"call": "confirm", "seat": "N", "card": "denari_4"}), t=8.5)
    operator.ask(Question.from_call({"call": "confirm", "seat": "N", "card": None, "missed": True}), t=8.5)
    assert operator.answers() == [{"event": "confirm", "card": "denari_5"}, {"event": "confirm", "card": "denari_2"}]


def test_score_counts_right_phantom_and_winners() -> None:
    from referee.vision.simulator.result import DemoResult
    from referee.vision.simulator.scoring import score

    result = DemoResult(
        events=[{"event": "deal"}, {"event": "play", "seat": "N", "card": "coppe_3"},
                {"event": "play", "seat": "S", "card": "coppe_4"}, {"event": "play", "seat": "S", "card": "coppe_5"}],
        truth_plays=[("N", "coppe_3"), ("S", "coppe_5")],
        truth_calls=[{"call": "trick", "number": 1, "winner": "S"}],
        calls=[{"call": "trick", "number": 1, "winner": "N"}],
    )
    sc = score(result)
    assert (sc.plays, sc.right, sc.misread, sc.phantom, sc.tricks, sc.winners_right) == (2, 2, 0, 1, 1, 0)
    result.events.append({"event": "play", "seat": "N", "card": "coppe_9"})
    result.truth_plays.append(("N", "coppe_8"))
    assert score(result).misread == 1


def test_watch_stepper_runs_the_live_loop_on_simulated_frames() -> None:
    from referee.vision.simulator.stages import RecordingReferee, watch_stepper
    from referee.vision.simulator.video import simulate_game

    sim = simulate_game("briscola-2", seed=1, fps=10)
    ref = RecordingReferee()
    stage, why = watch_stepper(sim, "italian", sim.layout, ref, oracle=True)
    assert stage is not None, why
    assert "oracle" in stage.name
    calls = []
    for frame in sim.frames(0, 12):
        calls += stage.step(frame)
    # The deal reached the referee through the operator path; turn calls come back.
    assert ref.accepted[0]["event"] == "deal"
    assert calls and calls[0]["call"] == "turn" and calls[0]["seat"] in sim.seats and calls[0]["t"] == 0.0
    assert isinstance(stage.banner(""), str)
    assert all(s.quad.shape == (4, 2) for s in stage.seen())


def test_confirm_requests_get_the_box_confirm_screen(tmp_path: Path) -> None:
    from referee.vision.simulator.outputs import ScreenWriter

    writer = ScreenWriter(tmp_path, print)
    writer.add({"call": "confirm", "seat": "N", "card": "coppe_3", "confidence": 0.4})
    writer.add({"call": "turn", "seat": "N"})  # no screen of its own
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["001_confirm.png"]


def test_the_demo_confirm_screen_says_why_a_sure_read_is_asked(tmp_path: Path) -> None:
    import io

    from PIL import Image

    from referee.box import screens
    from referee.vision.simulator.outputs import ScreenWriter

    call = {"call": "confirm", "seat": "W", "card": "8C", "violation": "revoke"}
    ScreenWriter(tmp_path, print).add(call)
    shown = (tmp_path / "001_confirm.png").read_bytes()
    plain = screens.render(screens.ConfirmScreen("W", "8C"), "it")
    why = screens.render(screens.ConfirmScreen("W", "8C", violation="revoke"), "it")
    assert plain.tobytes() != why.tobytes()  # the reason line is drawn, as on the box
    assert Image.open(io.BytesIO(shown)).convert(why.mode).tobytes() == why.tobytes()


def test_simulated_operator_knows_a_double_deck_card_laid_twice() -> None:
    from referee.table.question import Question
    from referee.vision.simulator.operator import SimOperator
    from referee.vision.simulator.stages import RecordingReferee
    from referee.vision.simulator.video import PlayTruth

    ref = RecordingReferee()
    ref.accepted.append({"event": "play", "seat": "W", "card": "10S"})  # W's first 10S, trick 1
    operator = SimOperator([PlayTruth("W", "10S", 1.0, 1), PlayTruth("W", "10S", 20.0, 3)], ref)
    operator.ask(Question.from_call({"call": "confirm", "seat": "W", "card": "10S"}), t=21.0)  # binocolo: two of each card
    assert operator.answers() == [{"event": "confirm", "card": "10S"}] and operator.refused == 0


def _card_at(layout: Any, seat: str, code: str, p: float) -> Any:
    import numpy as np

    from referee.vision.detections import Detections

    x, y = (float(v) for v in layout.to_image([layout.play_spot(seat)])[0])
    quad = np.array([[[x - 35, y - 55], [x + 35, y - 55], [x + 35, y + 55], [x - 35, y + 55]]], np.float32)
    return Detections(quad=quad, card=np.array([code], object), confidence=np.array([p], np.float32), top=[[(code, p)]])


def test_a_recorded_deal_replays_through_tracker_arbiter_and_operator(tmp_path: Path) -> None:
    import numpy as np

    from referee.vision.detections import Detections
    from referee.vision.layout import TableLayout
    from referee.vision.simulator.recording import Recording, replay_demo, save_recording
    from referee.vision.simulator.video import PlayTruth

    layout = TableLayout.default(["N", "S"])
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"}
    n_card, s_card = _card_at(layout, "N", "spade_3", 0.97), _card_at(layout, "S", "spade_5", 0.55)
    both = Detections(quad=np.concatenate([n_card.quad, s_card.quad]), card=np.array(["spade_3", "spade_5"], object),
                      confidence=np.array([0.97, 0.55], np.float32), top=[*n_card.top, *s_card.top])
    dets = [Detections.empty()] * 3 + [n_card] * 12 + [both] * 15
    times = [round(i / 10, 3) for i in range(len(dets))]
    recording = Recording(
        game="briscola-2", seats=("N", "S"), plays=[PlayTruth("N", "spade_3", 0.3, 1), PlayTruth("S", "spade_5", 1.5, 1)],
        truth_calls=[], layout=layout, frames=[(t, [deal] if i == 0 else []) for i, t in enumerate(times)],
        detections=list(zip(times, dets, strict=True)), vision="test", family="italian")
    save_recording(tmp_path / "deal.npz", recording)
    result = replay_demo(tmp_path / "deal.npz")
    plays = [(e["seat"], e["card"]) for e in result.events if e["event"] == "play"]
    assert plays == [("N", "spade_3"), ("S", "spade_5")]
    assert result.confirms == 1 and result.refused == 0  # S's weak read was asked, the operator said yes
    assert any(c.get("call") == "trick" and c["winner"] == "N" for c in result.calls)  # the 3 beats the 5


def test_replay_refuses_a_file_it_did_not_write(tmp_path: Path) -> None:
    from referee.errors import RefereeError
    from referee.vision.simulator.recording import replay_demo

    (tmp_path / "x.npz").write_bytes(b"not a pickle")
    with pytest.raises(RefereeError, match=r"x\.npz"):
        replay_demo(tmp_path / "x.npz")


def test_a_play_taken_back_by_a_confirmed_correction_is_not_scored() -> None:
    from referee.vision.simulator.result import DemoResult
    from referee.vision.simulator.scoring import score

    result = DemoResult(
        events=[{"event": "play", "seat": "N", "card": "coppe_5"}, {"event": "undo"},
                {"event": "play", "seat": "N", "card": "coppe_6", "confirmed": True}],
        truth_plays=[("N", "coppe_6")])
    sc = score(result)
    assert (sc.right, sc.misread, sc.phantom) == (1, 0, 0)


def _both(*dets: Any) -> Any:
    import numpy as np

    from referee.vision.detections import Detections

    return Detections(quad=np.concatenate([d.quad for d in dets]),
                      card=np.array([str(d.card[0]) for d in dets], object),
                      confidence=np.concatenate([d.confidence for d in dets]), top=[t for d in dets for t in d.top])


def _missed_lead_recording(path: Path) -> None:
    """Briscola-2: trick 1 seen whole (N spade_3 beats S spade_5, both gathered), then the
    camera never sees N's lead of trick 2 at all, only S's coppe_4: the shortcut's failure."""
    from referee.vision.detections import Detections
    from referee.vision.layout import TableLayout
    from referee.vision.simulator.recording import Recording, save_recording
    from referee.vision.simulator.video import PlayTruth

    layout = TableLayout.default(["N", "S"])
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"}
    n1, s1 = _card_at(layout, "N", "spade_3", 0.97), _card_at(layout, "S", "spade_5", 0.97)
    s2 = _card_at(layout, "S", "coppe_4", 0.97)
    dets = [Detections.empty()] * 3 + [n1] * 12 + [_both(n1, s1)] * 15 + [Detections.empty()] * 30 + [s2] * 20
    times = [round(i / 10, 3) for i in range(len(dets))]
    plays = [PlayTruth("N", "spade_3", 0.3, 1), PlayTruth("S", "spade_5", 1.5, 1),
             PlayTruth("N", "bastoni_2", 4.0, 2), PlayTruth("S", "coppe_4", 6.0, 2)]
    save_recording(path, Recording(
        game="briscola-2", seats=("N", "S"), plays=plays, truth_calls=[], layout=layout,
        frames=[(t, [deal] if i == 0 else []) for i, t in enumerate(times)],
        detections=list(zip(times, dets, strict=True)), vision="test", family="italian"))


def test_a_lead_the_camera_never_saw_is_asked_about_not_called_out_of_turn(tmp_path: Path) -> None:
    from referee.vision.simulator.recording import replay_demo

    _missed_lead_recording(tmp_path / "deal.npz")
    asked = replay_demo(tmp_path / "deal.npz")  # the default: always ask before out of turn
    assert not any(c["call"] == "violation" for c in asked.calls)
    assert asked.confirms == 1 and asked.refused == 0  # "did N play?": the operator names bastoni_2
    plays = [(e["seat"], e["card"]) for e in asked.events if e["event"] == "play"]
    assert plays[2:] == [("N", "bastoni_2"), ("S", "coppe_4")]
    trusted = replay_demo(tmp_path / "deal.npz", trust_after=1)  # opted in: one whole trick seen
    assert [(c["seat"], c["rule"]) for c in trusted.calls if c["call"] == "violation"] == [("S", "out_of_turn")]
    assert trusted.confirms == 0


@pytest.mark.parametrize(("call", "text"), [
    ({"call": "withdrawn", "seat": "W", "rule": "revoke", "trick": 2, "detail": "-", "reason": "undo"},
     "WITHDRAWN W: revoke (trick 2, undo)"),
    ({"call": "declaration", "seat": "N", "kind": "terza", "cards": ["AS", "KS", "QS"], "points": 20},
     "N declares terza (20): AS KS QS"),
])
def test_the_demo_video_captions_withdrawn_and_declaration_calls(call: dict[str, Any], text: str) -> None:
    from referee.captions import call_text

    assert call_text(call) == text
