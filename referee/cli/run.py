"""``referee run``: the appliance's main loop, started by ``systemd/referee.service``.

    referee run --config /etc/referee/config.toml
    referee run --config hardware/config.toml --events game.jsonl --pace 0.2 --no-hardware

The loop, its faults and its exit statuses are :mod:`referee.box.run`; here the command line,
the config's overrides and the record's lock.
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import replace
from pathlib import Path

from referee.box.config import DEFAULT_PATH, load_config
from referee.box.record_lock import RecordLock, RecordLocked
from referee.box.run import (
    EXIT_CONFIG,
    EXIT_LOCKED,
    EXIT_STATE,
    RunOptions,
    run_locked,
    show_config_fault,
)
from referee.box.state import StateError
from referee.errors import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=DEFAULT_PATH, help=f"TOML config (default {DEFAULT_PATH})")
    parser.add_argument("--events", type=Path, help="referee a JSON Lines event log instead of the camera")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between events of --events (default 0.5)")
    parser.add_argument("--sim-events", type=Path, help="with camera.source = 'sim': the event log the simulation acts out")
    parser.add_argument("--state-dir", type=Path, help="override state_dir of the config")
    parser.add_argument("--language", choices=("it", "en"), help="override the display language")
    parser.add_argument("--no-hardware", action="store_true", help="no LEDs, buzzer, buttons or display")
    parser.add_argument("--screens", type=Path, help="also save every screen shown as PNG in this folder")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.add_argument("--new-match", action="store_true",
                        help="set any unfinished match aside (kept, marked abandoned) and referee the source "
                             "from its start as a new match")




def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        show_config_fault(_options(args))
        return EXIT_CONFIG
    if args.state_dir is not None:
        cfg = replace(cfg, state_dir=args.state_dir)
    if args.language is not None:
        cfg = replace(cfg, language=args.language)
    try:
        lock = RecordLock.acquire(cfg.state_dir)  # before the hardware: the holder drives it
    except RecordLocked as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except StateError as exc:
        print(f"referee run: {exc}", file=sys.stderr)
        return EXIT_STATE
    with lock:
        return run_locked(cfg, _options(args))


def _options(args: argparse.Namespace) -> RunOptions:
    return RunOptions(config=args.config, events=args.events, pace=args.pace, sim_events=args.sim_events,
                      no_hardware=args.no_hardware, screens=args.screens, new_match=args.new_match)
