"""The tournament's assignment reaches the table, through a real Mosquitto: the box shows
"Tavolo N" with who sits down, the next match is set up with the players' names per seat (and
the tournament's game), the phone console shows the same names; the match then counts."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from box.helpers import FakeClock, Screens
from PIL import Image, ImageChops

from referee.box.app import Box
from referee.box.config import TournamentConfig, parse_config
from referee.box.publish import start_publisher
from referee.box.run import Runner, assigned
from referee.box.screens import AssignmentScreen, render
from referee.box.signals import NullSignals
from referee.box.state import MatchStore
from referee.rules.playout import random_match_events
from referee.tournament.messages import Assignment
from referee.web.console import Console
from tournament.boxes import box_config
from tournament.mosquitto import Mosquitto, free_port, mosquitto  # noqa: F401  (the fixture)
from tournament.test_real_broker import ROOT, Room, room, wait_until  # noqa: F401  (the fixture)


def expected_names(a: Assignment) -> dict[str, str]:
    """Seat -> player as the sides say: pair N+S "A0/B0" seats A0 at N and B0 at S."""
    names: dict[str, str] = {}
    for side, name in a.sides:
        names.update(zip(side.split("+"), name.split("/"), strict=True))
    return names


def test_assignment_names_the_seats_of_a_pair_and_of_single_players() -> None:
    pairs = Assignment(3, "R1-2", "Tavolo 3: Rossi/Bianchi - Verdi/Neri",
                       (("N+S", "Rossi/Bianchi"), ("W+E", "Verdi/Neri")))
    assert pairs.seat_names(["N", "W", "S", "E"]) == {"N": "Rossi", "S": "Bianchi", "W": "Verdi", "E": "Neri"}
    singles = Assignment(1, "T1-1", "", (("A", "Rossi"), ("B", "Verdi")))
    assert singles.seat_names(list("ABCDE")) == {"A": "Rossi", "B": "Verdi"}
    assert pairs.seat_names(["A", "B", "C", "D"]) == {}  # a box with other seats: no names


def test_the_box_shows_the_assignment_sets_up_the_match_and_the_console_shows_the_names(
        tmp_path: Path, room: Room) -> None:  # noqa: F811
    cfg = replace(parse_config('[game]\nname = "belotta"\n'), state_dir=tmp_path / "box")
    display = Screens()
    heard: queue.Queue[Assignment] = queue.Queue()
    with MatchStore.open(cfg.state_dir) as store:
        box = Box(cfg, store, NullSignals(), display)
        box.start()
        console = Console(box, "4711", cfg.state_dir / "console.json")
        tcfg = TournamentConfig(room.broker.url, 1, "table-1", room.broker.password_file("table-1"))
        publisher = start_publisher(tcfg, store.path, on_assignment=heard.put)
        assert publisher is not None
        try:
            a = heard.get(timeout=20)
            assigned(box, console, a)  # what referee run's main loop does with it
            assert a.match == "R1-1" and a.round == 1 and a.game == "briscola-4"
            assert box.cfg.game.name == "briscola-4"  # the tournament's game, for the next match
            names = expected_names(a)
            assert display.last == AssignmentScreen(1, tuple(n for _, n in a.sides), 1)
            snapshot = console.desk.snapshot()
            assert snapshot["table"] == 1 and snapshot["names"] == names

            events = random_match_events("briscola-4", 4)
            for event in events:
                box.handle(event)
                if event is events[0]:
                    assert not isinstance(display.last, AssignmentScreen)  # the match began
            match = store.matches()[-1].id
            assert store.match_config(match)["players"] == names
            wait_until(lambda: room.service is not None and
                       room.service.tournament.matches["R1-1"].result is not None,
                       what="the match to count")
            after = heard.get(timeout=20)  # the table is free: nothing to play now
            assigned(box, console, after)
            assert after.match is None and box.assignment is None and box.players == {}
        finally:
            publisher.stop()


def test_the_same_assignment_heard_again_is_not_shown_again(tmp_path: Path) -> None:
    cfg = replace(parse_config(""), state_dir=tmp_path / "box")
    display = Screens()
    with MatchStore.open(cfg.state_dir) as store:
        box = Box(cfg, store, NullSignals(), display)
        a = Assignment(2, "R1-2", "Tavolo 2: A/B - C/D", (("N+S", "A/B"), ("W+E", "C/D")), round=1,
                       game="briscola-4")
        box.assigned(a)
        shown = len(display.shown)
        box.assigned(a)  # a reconnect brings the retained assignment again
        assert len(display.shown) == shown


def test_an_assignment_during_a_match_is_told_and_names_the_next_match(tmp_path: Path) -> None:
    cfg = replace(parse_config(""), state_dir=tmp_path / "box")
    display, clock = Screens(), FakeClock()
    with MatchStore.open(cfg.state_dir) as store:
        box = Box(cfg, store, NullSignals(), display, clock=clock)
        events = random_match_events("briscola-4", 2)
        box.handle(events[0])
        first = box.match_id
        assert first is not None
        a = Assignment(2, "R1-2", "Tavolo 2: A/B - C/D", (("N+S", "A/B"), ("W+E", "C/D")), round=1,
                       game="briscola-4")
        box.assigned(a)
        clock.now += 10  # after the dealer's screen
        box.tick()
        assert display.last == AssignmentScreen(2, ("A/B", "C/D"), 1)
        assert box.match_id == first and "players" not in store.match_config(first)
        for event in events[1:]:
            box.handle(event)
        box.handle(random_match_events("briscola-4", 3)[0])
        assert box.match_id is not None and box.match_id != first
        assert store.match_config(box.match_id)["players"] == {"N": "A", "S": "B", "W": "C", "E": "D"}


def test_work_posted_from_another_thread_runs_in_the_main_loop_in_turn(tmp_path: Path) -> None:
    cfg = replace(parse_config(""), state_dir=tmp_path / "box")
    ran: list[int] = []

    class Quiet:
        finished = False

        def poll(self, timeout: float) -> list[object]:
            self.finished = bool(ran)
            return []

        def skip_to(self, pos: int | None) -> None: ...

    with MatchStore.open(cfg.state_dir) as store:
        box = Box(cfg, store, NullSignals(), Screens())
        runner = Runner(cfg, box, Quiet(), notifier=_Silent())  # type: ignore[arg-type]
        runner.post(lambda: ran.append(1))
        runner.post(lambda: ran.append(2))
        assert runner.run() == 0 and ran == [1, 2]


class _Silent:
    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *a, **k: None


def test_referee_run_shows_the_assignment_and_records_the_names(tmp_path: Path, room: Room) -> None:  # noqa: F811
    """``referee run`` itself: the publisher's assignment goes through the main loop to the
    display (saved with --screens) and the phone console's names."""
    log_file = tmp_path / "match.jsonl"
    events = random_match_events("briscola-4", 9)[:3]
    # lines the strict reader rejects, one a second: the box waits for its assignment first
    log_file.write_text("waiting\n" * 6 + "".join(json.dumps(e) + "\n" for e in events))
    state = tmp_path / "box-2"
    config = box_config(tmp_path / "box.toml", state, room.broker.url, room.broker.password_file("table-2"), 2,
                        f'[web]\nlisten = "127.0.0.1:{free_port()}"\npin = "4711"\n')
    screens = tmp_path / "screens"
    argv = [sys.executable, "-m", "referee", "run", "--config", str(config), "--events",
            str(log_file), "--no-hardware", "--pace", "1.0", "--screens", str(screens),
            "--log-level", "WARNING"]
    box = subprocess.run(argv, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60,
                         capture_output=True, text=True)
    assert box.returncode == 0, box.stderr
    assert room.service is not None
    a = next(x for x in room.service.tournament.tables() if x.table == 2)
    shown = render(AssignmentScreen(2, tuple(e.name for _, e in a.sides), 1), "it")
    assert any(ImageChops.difference(Image.open(p).convert("1").convert("L"), shown.convert("L")).getbbox()
               is None for p in sorted(screens.glob("*.png"))), "the assignment screen was not shown"
    names = {seat: name for side, e in a.sides
             for seat, name in zip(side.split("+"), e.members, strict=True)}
    with MatchStore.open(state, read_only=True) as store:
        assert store.match_config(store.matches()[-1].id)["players"] == names
    assert json.loads((state / "console.json").read_text())["names"] == names

