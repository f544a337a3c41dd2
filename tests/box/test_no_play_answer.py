"""The operator's "no" to "did <seat> play?" (a trick gathered short) survives a crash: it is
kept in the SQLite record's answers, so the restarted box does not ask about the same short
trick again; a later trick, a later play or a question never answered still asks.

A crash is simulated as ``kill -9`` leaves the state: the state directory is copied while the
first box still holds the database open, and a new box (fresh tracker, fresh arbiter) resumes
from the copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tracker_doubles import StubTracker, Track

from box.helpers import FakeClock, RecordingSignals, Screens, camera_box
from referee.box.app import Box
from referee.box.config import BoxConfig
from referee.box.screens import ConfirmScreen
from referee.box.state import MatchStore
from referee.cli import main
from referee.rules.playout import random_match_events

THREE = [("N", "spade_1"), ("W", "spade_2"), ("S", "spade_3")]  # E's card is never seen


def gathered_short(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, StubTracker, RecordingSignals, float]:
    """A box whose camera saw three cards of trick 1, then the trick gathered and the table
    quiet: the box has just asked "did E play?". Returns the frame time of the question."""
    tracker = StubTracker(Track(9, "coppe_3"))
    box, signals, _ = camera_box(cfg, clock, tracker)
    for i, (seat, card) in enumerate(THREE):
        box.handle({"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": 1.0 + i}, i + 1)
    tracker.on_table = False
    quiet = 3.0 + tracker.config.long_gone_s + 0.1
    box.frame(quiet, 10)
    assert box.pending is not None and box.pending.get("missed") and box.pending["seat"] == "E"
    return box, tracker, signals, quiet


def restarted(first: Box, tmp_path: Path, name: str, clock: FakeClock) -> tuple[Box, RecordingSignals, Screens]:
    """A new box on a copy of ``first``'s state as a kill -9 leaves it; the camera still sees
    the short trick gathered (nothing on the table)."""
    state = Path(shutil.copytree(first.store.path.parent, tmp_path / name))
    signals, screens = RecordingSignals(), Screens()
    box = Box(first.cfg, MatchStore.open(state), signals, screens, clock=clock)
    box.start()
    tracker = StubTracker(Track(9, "coppe_3"))
    tracker.on_table = False
    box.attach_vision(tracker)
    return box, signals, screens


def frames(box: Box, start: float, seconds: float) -> None:
    """Camera frames, 10 a second: the frame tick's chance to ask."""
    for i in range(int(seconds * 10)):
        box.frame(start + i / 10, 100 + i)


def test_no_then_restart_does_not_ask_again(
    cfg: BoxConfig, clock: FakeClock, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    box, _, _, quiet = gathered_short(cfg, clock)
    box.gesture("left", "press")  # no: E did not play
    assert box.pending is None
    assert box.store.answers(1) == [{"answer": "no_play", "seat": "E", "deal": 1, "trick": 1,
                                     "plays": [list(p) for p in THREE]}]
    assert box.store.events(1)[-1]["seat"] == "S"  # no event: the rules core never sees it
    frames(box, quiet, 5)
    assert box.pending is None  # the running box asks once
    assert main(["history", "--state-dir", str(box.store.path.parent), "--export", "1", "--answers"]) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == box.store.answers(1)

    again, signals, screens = restarted(box, tmp_path, "crashed", clock)
    assert again.match_id == box.match_id and again.referee.turn == "E"
    frames(again, 0.0, 20)  # a restarted camera's clock starts again: quiet at once
    assert again.pending is None and "unsure" not in signals.names()
    assert not any(isinstance(s, ConfirmScreen) for s in screens.shown)


def test_a_question_not_answered_before_the_crash_is_asked_again(
    cfg: BoxConfig, clock: FakeClock, tmp_path: Path
) -> None:
    """The control: the same crash without the answer recorded asks the table again."""
    box, _, _, _ = gathered_short(cfg, clock)
    again, signals, screens = restarted(box, tmp_path, "crashed", clock)
    frames(again, 0.0, 20)
    assert again.pending is not None and again.pending["seat"] == "E"
    assert screens.last == ConfirmScreen("E", "coppe_3", missed=True) and "unsure" in signals.names()


def test_an_answer_about_an_older_trick_does_not_silence_the_current_one(
    cfg: BoxConfig, clock: FakeClock, tmp_path: Path
) -> None:
    """After the "no" the table goes on: N leads trick 2, which asks about E again, and this
    time the operator says yes (E's coppe_3); trick 2 then holds N's card only and is
    gathered short too. The recorded answer was about trick 1 as it was: trick 2 is asked about."""
    box, _, _, quiet = gathered_short(cfg, clock)
    box.gesture("left", "press")  # no
    box.handle({"event": "play", "seat": "N", "card": "denari_1", "confidence": 0.97, "t": quiet + 1})
    assert box.pending is not None and box.pending["seat"] == "E"
    box.gesture("ok", "press")  # yes: E played the camera's guess; N (trick 1's winner) leads
    deal = box.referee.deal
    assert deal is not None and deal.trick_number == 2 and deal.trick is not None and len(deal.trick.plays) == 1
    again, _, _ = restarted(box, tmp_path, "crashed", clock)
    frames(again, 0.0, 20)
    assert again.pending is not None and again.pending["seat"] == again.referee.turn


def test_a_short_trick_of_the_next_deal_is_asked_about_too(cfg: BoxConfig, clock: FakeClock) -> None:
    """Deal 1's trick 1 was gathered short and asked about; deal 2's trick 1 gathered short
    must be asked about as well (the arbiter's "already asked" trick number is per deal)."""
    events = random_match_events("briscola-4", seed=1)
    starts = [i for i, e in enumerate(events) if e["event"] == "deal"]
    tracker = StubTracker()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), Screens(), clock=clock)
    box.start()
    box.attach_vision(tracker)
    t = 100.0

    def short_first_trick(deal: list[dict[str, Any]]) -> None:
        nonlocal t
        box.handle(deal[0])
        for event in deal[1:4]:
            t += 1
            box.handle({**event, "confidence": 0.97, "t": t})
        tracker.on_table, tracker.missed = False, Track(9, deal[4]["card"])
        t += tracker.config.long_gone_s + 0.5
        box.frame(t)
        assert box.pending is not None and box.pending["seat"] == deal[4]["seat"], "not asked"
        box.gesture("ok", "press")  # yes: the camera's guess
        tracker.on_table, tracker.missed = True, None

    short_first_trick(events[starts[0]:starts[1]])
    for event in events[starts[0] + 5:starts[1]]:
        t += 1
        box.handle({**event, "confidence": 0.97, "t": t})
    assert box.referee.deal is not None and box.referee.deal.phase == "over"
    short_first_trick(events[starts[1]:starts[2]])


def test_two_cards_missing_from_a_short_trick_are_both_asked_about(cfg: BoxConfig, clock: FakeClock) -> None:
    """Only N's and W's cards were seen before the trick was gathered: S is asked about on the
    frame tick and the operator names S's card; E is asked about when the camera's next play
    comes, not on the frame tick (asking as soon as the table was quiet again gave a wrong
    trick winner and a false revoke end to end on a print the camera reads badly)."""
    tracker = StubTracker(Track(9, "coppe_3"))
    box, _, _ = camera_box(cfg, clock, tracker)
    for i, (seat, card) in enumerate(THREE[:2]):
        box.handle({"event": "play", "seat": seat, "card": card, "confidence": 0.97, "t": 1.0 + i})
    tracker.on_table = False
    quiet = 2.0 + tracker.config.long_gone_s + 0.1
    box.frame(quiet)
    assert box.pending is not None and box.pending["seat"] == "S"
    box.gesture("ok", "press")  # yes: S played coppe_3
    tracker.missed = Track(10, "coppe_4")
    frames(box, quiet, 10)
    assert box.pending is None  # the trick counts as asked about until a play comes
    box.handle({"event": "play", "seat": "N", "card": "denari_5", "confidence": 0.97, "t": quiet + 11})
    assert box.pending is not None and box.pending["seat"] == "E" and box.pending.get("missed")
    box.gesture("ok", "press")
    assert [e.get("card") for e in box.store.events(1)[3:5]] == ["coppe_3", "coppe_4"]
    assert any(c["call"] == "trick" for c in box.store.calls(1))
