"""The crash test on simulated video: `referee run` with camera.source = "sim" (the whole vision
pipeline: rendered frames -> finder -> recogniser -> tracker -> rules core) is SIGKILLed mid-deal,
restarted, and ends with the same calls as an uninterrupted run, which equal the truth.

Needs the committed recogniser model (models/italian.onnx); skipped until it exists.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from box.helpers import write_jsonl
from referee.box.state import MatchStore
from referee.paths import REPO_ROOT, models_dir
from referee.replay import replay_lines
from referee.rules.playout import random_deal_events

pytestmark = [
    pytest.mark.skipif(not (models_dir() / "italian.onnx").is_file(), reason="no recogniser model committed yet"),
]

PLAYS = 8  # two tricks of briscola-4: crosses a trick boundary, short enough to render quickly


def command(cfg: Path, sim_events: Path, state: Path) -> list[str]:
    return [sys.executable, "-m", "referee", "run", "--config", str(cfg), "--sim-events", str(sim_events),
            "--state-dir", str(state), "--no-hardware", "--log-level", "WARNING"]


def recorded(state: Path) -> int:
    path = state / "matches.sqlite"
    if not path.exists():
        return 0
    try:
        with MatchStore.open(state, read_only=True) as store:
            return sum(m.events for m in store.matches())
    except Exception:
        return 0


def calls_of(state: Path) -> list[dict[str, Any]]:
    with MatchStore.open(state, read_only=True) as store:
        (match,) = store.matches()
        return store.calls(match.id)


@pytest.mark.slow
def test_sigkill_on_simulated_video_then_restart_gives_the_same_calls(tmp_path: Path) -> None:
    events = random_deal_events("briscola-4", seed=3)[: 1 + PLAYS]
    sim_events = write_jsonl(tmp_path / "deal.jsonl", events)
    cfg = tmp_path / "config.toml"
    text = (REPO_ROOT / "hardware" / "config.toml").read_text()
    cfg.write_text(text.replace('source = "picamera2"', 'source = "sim:3"').replace("no_frame_timeout_s = 3.0", "no_frame_timeout_s = 60.0"))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    truth: list[dict[str, Any]] = []
    replay_lines([json.dumps(e) for e in events], truth.append)

    calm = tmp_path / "calm"
    subprocess.run(command(cfg, sim_events, calm), check=True, env=env, timeout=400)
    assert calls_of(calm) == truth

    crashed = tmp_path / "crashed"
    proc = subprocess.Popen(command(cfg, sim_events, crashed), env=env)
    deadline = time.time() + 300
    while recorded(crashed) < 5 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert 5 <= recorded(crashed) < 1 + PLAYS  # killed mid-deal
    subprocess.run(command(cfg, sim_events, crashed), check=True, env=env, timeout=400)
    assert calls_of(crashed) == truth
