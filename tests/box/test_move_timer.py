"""The move timer follows the game option ``move_timer_s`` (briscola-2's document: 20 s per
move; briscola-4's tournament document: none), ``[timer]`` overriding only as documented:
``enabled = false`` switches it off, ``enabled = true`` gives ``seconds`` to games without it."""

from __future__ import annotations

from dataclasses import replace

from box.helpers import FakeClock, RecordingSignals, on_screen
from referee.box.app import Box
from referee.box.config import BoxConfig, GameConfig, TimerConfig, parse_config
from referee.box.display import NullDisplay
from referee.box.screens import (
    ConfirmScreen,
    MenuScreen,
    ScoreScreen,
    TimerScreen,
    TrickScreen,
    ViolationScreen,
)
from referee.box.state import MatchStore

HEADS_UP = GameConfig("briscola-2", "italian", ("N", "S"), (("N",), ("S",)))
DEAL2 = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"}
DEAL4 = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
         "trump_card": "coppe_1"}


def make_box(cfg: BoxConfig, clock: FakeClock) -> tuple[Box, RecordingSignals, NullDisplay]:
    signals, display = RecordingSignals(), NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), signals, display, clock=clock)
    box.start()
    return box, signals, display


def test_scenario_tournament_time_limit_from_the_game_option(cfg: BoxConfig, clock: FakeClock) -> None:
    """A club runs briscola-4 with 30 s a move: ``[game.options] move_timer_s = 30``; the
    config's ``[timer]`` is left as it is (before: the option was ignored, no timer ran)."""
    game = replace(cfg.game, options={"move_timer_s": 30})
    box, signals, display = make_box(replace(cfg, game=game), clock)
    box.handle(DEAL4)
    clock.now += 10
    box.tick()
    assert display.last == TimerScreen("N", 20, 30, False)
    clock.now += 15.5
    box.tick()
    assert signals.names().count("warning_beep") == 1
    clock.now += 5
    box.tick()
    assert signals.names().count("time_up") == 1
    assert on_screen(display) == ViolationScreen("N", "move_timer")


def test_briscola_2_runs_its_documents_20_s_timer_by_default(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _, display = make_box(replace(cfg, game=HEADS_UP), clock)
    assert box.cfg.timer.enabled == "game"
    box.handle(DEAL2)
    clock.now += 1
    box.tick()
    assert display.last == TimerScreen("N", 19, 20, False)
    box.handle({"event": "play", "seat": "N", "card": "spade_3"})
    clock.now += 2
    box.tick()
    assert display.last == TimerScreen("S", 18, 20, False)  # restarts for the next seat


def test_game_option_sets_the_length_even_when_the_config_names_seconds(
    cfg: BoxConfig, clock: FakeClock
) -> None:
    game = replace(HEADS_UP, options={"move_timer_s": 45})
    timer = TimerConfig(enabled=True, seconds=10, warning_s=5)
    box, _, display = make_box(replace(cfg, game=game, timer=timer), clock)
    box.handle(DEAL2)
    clock.now += 5
    box.tick()
    assert display.last == TimerScreen("N", 40, 45, False)


def test_tournament_briscola_4_has_no_timer_unless_asked(cfg: BoxConfig, clock: FakeClock) -> None:
    box, signals, display = make_box(cfg, clock)
    box.handle(DEAL4)
    clock.now += 100
    box.tick()
    assert isinstance(display.last, ScoreScreen) and "time_up" not in signals.names()
    forced = replace(cfg, timer=TimerConfig(enabled=True, seconds=15, warning_s=5),
                     state_dir=cfg.state_dir / "b")
    box, _, display = make_box(forced, clock)
    box.handle(DEAL4)
    clock.now += 1
    box.tick()
    assert display.last == TimerScreen("N", 14, 15, False)


def test_enabled_false_switches_the_documents_timer_off(cfg: BoxConfig, clock: FakeClock) -> None:
    off = parse_config('[game]\nname = "briscola-2"\nseats = ["N", "S"]\nteams = [["N"], ["S"]]\n'
                       "[timer]\nenabled = false\n")
    box, signals, display = make_box(replace(off, state_dir=cfg.state_dir), clock)
    box.handle(DEAL2)
    clock.now += 60
    box.tick()
    assert isinstance(display.last, ScoreScreen) and "time_up" not in signals.names()


def test_a_short_game_timer_still_warns_before_the_end(cfg: BoxConfig, clock: FakeClock) -> None:
    game = replace(HEADS_UP, options={"move_timer_s": 8})
    box, signals, _ = make_box(replace(cfg, game=game), clock)  # warning_s = 5 > 8 / 4
    box.handle(DEAL2)
    clock.now += 5.5
    box.tick()
    assert signals.names().count("warning_beep") == 0
    clock.now += 1
    box.tick()
    assert signals.names().count("warning_beep") == 1


def test_the_timer_stands_while_the_operator_is_asked(cfg: BoxConfig, clock: FakeClock) -> None:
    """An unsure card waits for OK for 30 s: the 20 s move timer neither runs out nor hides the
    question with its 'time is up' screen; it goes on where it stood once answered."""
    box, signals, display = make_box(replace(cfg, game=HEADS_UP), clock)
    box.handle(DEAL2)  # N to play, 20 s
    clock.now += 5
    box.tick()
    box.handle({"event": "play", "seat": "N", "card": "spade_3", "confidence": 0.3})  # unsure: OK?
    for _ in range(60):
        clock.now += 0.5
        box.tick()
    assert "time_up" not in signals.names() and box.pending is not None
    assert on_screen(display) == ConfirmScreen("N", "spade_3", more=True)
    box.gesture("ok", "press")  # S's turn now: a fresh 20 s
    clock.now += 19
    box.tick()
    assert "time_up" not in signals.names()
    clock.now += 1.5
    box.tick()
    assert signals.names().count("time_up") == 1


def test_the_menu_comes_back_after_a_calls_screen(cfg: BoxConfig, clock: FakeClock) -> None:
    """A trick ends (from the log) while the deal-card menu is open: its screen shows for a
    while, then the menu again, not the stale trick screen."""
    box, _, display = make_box(replace(cfg, game=HEADS_UP), clock)
    box.handle(DEAL2)
    box.handle({"event": "play", "seat": "N", "card": "spade_3"})
    box.gesture("right", "hold")  # the next deal's menu, early
    menu = on_screen(display)
    assert isinstance(menu, MenuScreen)
    box.handle({"event": "play", "seat": "S", "card": "spade_4"})  # trick 1 ends
    assert isinstance(on_screen(display), TrickScreen)
    clock.now += 3
    box.tick()
    assert on_screen(display) == menu
