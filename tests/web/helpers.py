"""A real box (rules core, SQLite record, no hardware) behind the console, and a main loop
that runs the console's requests as ``referee run`` does."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from referee.box.app import Box
from referee.box.config import parse_config
from referee.box.display import NullDisplay
from referee.box.signals import NullSignals
from referee.box.state import MatchStore
from referee.web.console import Console

PIN = "4711"


def make_box(tmp_path: Path, game: str = "belotta", seats: str = '["N", "W", "S", "E"]') -> Box:
    cfg = parse_config(f'[game]\nname = "{game}"\nseats = {seats}\n' + (
        'teams = [["N", "S"], ["W", "E"]]\n' if game == "belotta" else "") + (
        '[pins]\nseat_leds = { A = 17, B = 27, C = 22, D = 23, E = 24 }\n' if '"A"' in seats else ""))
    cfg = replace(cfg, state_dir=tmp_path / "state")
    return Box(cfg, MatchStore.open(cfg.state_dir), NullSignals(), NullDisplay())


def pump_while(console: Console, work: Callable[[], None], period_s: float = 0.002) -> None:
    """Run ``work`` (the phones: an asyncio client) in a thread while this thread is the box's
    main loop, pumping the console as ``referee run`` does; re-raises what ``work`` raised."""
    failed: list[BaseException] = []

    def phones() -> None:
        try:
            work()
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=phones, daemon=True)
    thread.start()
    while thread.is_alive():
        console.pump()
        time.sleep(period_s)
    console.pump()
    if failed:
        raise failed[0]
