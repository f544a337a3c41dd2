"""Every violation the table must hear gets its screen, in order: a newer violation queues
behind one not yet shown instead of replacing it. A violation withdrawn before its screen
came up is not shown (the withdrawal's screen names it); an undo or the score button drops
stale news (trick, result) but never a violation that stands."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from box.helpers import FakeClock, RecordingSignals, Screens, on_screen
from referee.box.app import SHOW_S, Box
from referee.box.config import BoxConfig, GameConfig
from referee.box.i18n import card_short
from referee.box.screens import (
    DeclarationScreen,
    MessageScreen,
    ScoreScreen,
    Screen,
    TrickScreen,
    ViolationScreen,
    WithdrawnScreen,
)
from referee.box.state import MatchStore

#: out of turn only reported (the tournament default loses the deal at once)
DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
        "trump_card": "bastoni_1", "options": {"out_of_turn": "report"}}


def play(seat: str, card: str) -> dict[str, Any]:
    return {"event": "play", "seat": seat, "card": card}


def new_box(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, Screens, RecordingSignals]:
    screens, signals = Screens(), RecordingSignals()
    box = Box(cfg, MatchStore.open(cfg.state_dir), signals, screens, clock=clock)
    box.start()
    box.handle(DEAL)
    screens.news()
    return box, screens, signals


def shown_until_quiet(box: Box, screens: Screens, clock: FakeClock) -> list[Screen]:
    """Lets the clock run until the score is back: every news screen shown, in order."""
    for _ in range(40):
        clock.now += 0.5
        box.tick()
    return screens.news()


def test_a_second_violation_waits_for_the_first_instead_of_replacing_it(cfg: BoxConfig, clock: FakeClock) -> None:
    """S and W play before N (two out-of-turn calls within a second), the trick ends, then W
    leads out of turn again: four screens, none lost, in the order of the calls."""
    box, screens, signals = new_box(cfg, clock)
    box.handle(play("S", "coppe_1"))
    box.handle(play("W", "coppe_2"))  # while S's violation is up
    box.handle(play("N", "coppe_3"))
    box.handle(play("E", "coppe_4"))  # trick 1 to S
    box.handle(play("W", "spade_1"))  # S leads trick 2: W is out of turn again
    assert signals.names().count("violation") == 3
    assert shown_until_quiet(box, screens, clock) == [
        ViolationScreen("S", "out_of_turn", 1),
        ViolationScreen("W", "out_of_turn", 1),  # was replaced by trick 2's call before
        TrickScreen(1, "S", 21),
        ViolationScreen("W", "out_of_turn", 2),
    ]
    assert isinstance(screens.last, ScoreScreen)


def test_a_violation_withdrawn_before_its_screen_came_up_is_not_shown(cfg: BoxConfig, clock: FakeClock) -> None:
    """W's out-of-turn card is taken back (hold left) while S's violation is still on the
    screen: W's violation screen, still waiting, is dropped; its withdrawal is shown (the
    table heard W's buzz); S's violation, which stands, was shown."""
    box, screens, _ = new_box(cfg, clock)
    box.handle(play("S", "coppe_1"))
    box.handle(play("W", "coppe_2"))
    box.gesture("left", "hold")  # undo W's play
    assert screens.news() == [ViolationScreen("S", "out_of_turn", 1), MessageScreen("undo", "W: " + card_short("coppe_2"))]
    assert shown_until_quiet(box, screens, clock) == [WithdrawnScreen("W", "out_of_turn", 1)]
    calls = box.store.calls(1)
    assert [c["call"] for c in calls if c["call"] in ("violation", "withdrawn")] == ["violation", "violation", "withdrawn"]


def test_an_undo_keeps_a_waiting_violation_that_still_stands(cfg: BoxConfig, clock: FakeClock) -> None:
    """S and W out of turn, then N plays; undo takes back N's card only: W's violation still
    stands and is still shown after the undo, S's was shown first."""
    box, screens, _ = new_box(cfg, clock)
    box.handle(play("S", "coppe_1"))
    box.handle(play("W", "coppe_2"))
    box.handle(play("N", "coppe_3"))
    box.gesture("left", "hold")  # undo N's play
    news = shown_until_quiet(box, screens, clock)
    assert ViolationScreen("W", "out_of_turn", 1) in news
    assert news.index(MessageScreen("undo", "N: " + card_short("coppe_3"))) < news.index(ViolationScreen("W", "out_of_turn", 1))
    assert not any(isinstance(s, WithdrawnScreen) for s in news)


def test_the_score_button_does_not_drop_a_waiting_violation(cfg: BoxConfig, clock: FakeClock) -> None:
    box, screens, _ = new_box(cfg, clock)
    box.handle(play("S", "coppe_1"))
    box.handle(play("W", "coppe_2"))
    clock.now += 1
    box.gesture("right", "press")  # the score, now
    assert isinstance(screens.last, ScoreScreen)
    clock.now += SHOW_S["info"] + 0.1
    box.tick()
    assert on_screen(screens) == ViolationScreen("W", "out_of_turn", 1)


def test_an_undo_drops_the_waiting_screen_of_the_declaration_it_takes_back(cfg: BoxConfig, clock: FakeClock) -> None:
    """Belotta: W's terza is on the screen, N's waits; N's is taken back (a wrong entry): its
    screen is not shown after the undo, W's was."""
    belotta = GameConfig("belotta", "french", ("N", "W", "S", "E"), (("N", "S"), ("W", "E")))
    screens = Screens()
    box = Box(replace(cfg, game=belotta), MatchStore.open(cfg.state_dir), RecordingSignals(), screens, clock=clock)
    box.start()
    for event in ({"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "7H"},
                  {"event": "contract", "seat": "N", "trump": "H"},
                  {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]},
                  {"event": "declare", "seat": "N", "cards": ["7C", "8C", "9C"]}):
        box.handle(event)
    box.gesture("left", "hold")  # undo N's declaration
    news = shown_until_quiet(box, screens, clock)
    declared = [s for s in news if isinstance(s, DeclarationScreen)]
    assert declared == [DeclarationScreen("W", "terza", 20, ("AS", "KS", "QS"))]
    assert box.store.calls(1)[-1]["call"] != "error" and any(
        c["call"] == "undo" and c.get("seat") == "N" for c in box.store.calls(1))
