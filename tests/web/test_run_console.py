"""``referee run`` with ``[web]``: the console is served beside the main loop while the box
referees its source, and what a phone sends is recorded between the source's events."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from referee.box.state import MatchStore

REPO_ROOT = Path(__file__).resolve().parents[2]
DEAL = {"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "7H"}
CONTRACT = {"event": "contract", "seat": "S", "trump": "H"}
PLAY = {"event": "play", "seat": "S", "card": "7S"}
DECLARE = {"event": "declare", "seat": "W", "cards": ["AS", "KS", "QS"]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=5) as r:
        result: dict[str, Any] = json.load(r)
        return result


def _post(url: str, body: dict[str, Any], pin: str) -> int:
    request = urllib.request.Request(url, json.dumps(body).encode(), method="POST",
                                     headers={"X-Referee-Pin": pin, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_referee_run_serves_the_console_and_records_its_events(tmp_path: Path) -> None:
    port = _free_port()
    config = tmp_path / "config.toml"
    config.write_text(f'[game]\nname = "belotta"\nseats = ["N", "W", "S", "E"]\nteams = [["N", "S"], ["W", "E"]]\n'
                      f'[web]\nlisten = "127.0.0.1:{port}"\npin = "4711"\n')
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in (DEAL, CONTRACT, PLAY)))
    state = tmp_path / "state"
    cmd = [sys.executable, "-m", "referee", "run", "--config", str(config), "--events", str(log),
           "--pace", "1.5", "--state-dir", str(state), "--no-hardware", "--log-level", "WARNING"]
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        snapshot: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                snapshot = _get(base + "/api/state")
            except OSError:
                snapshot = {}
            if snapshot.get("events") == 2:  # the deal and the contract, the play not yet
                break
            time.sleep(0.05)
        assert snapshot.get("events") == 2, snapshot
        assert _post(base + "/api/events", DECLARE, "0000") == 403
        assert _post(base + "/api/events", DECLARE, "4711") == 200
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "4711" not in err
    with MatchStore.open(state) as store:
        (match,) = store.matches()
        assert store.events(match.id) == [DEAL, CONTRACT, DECLARE, PLAY]
