"""``referee tournament``: the club's tournament service (:mod:`referee.tournament_service`).

    referee tournament --config /etc/referee/tournament.toml       # run it (room page, broker)
    referee tournament --config tournament.toml --export results/  # results.csv + records
    referee tournament --hash-password /etc/referee/organiser.hash  # set the organiser password

The first start records the entrants and the format of the config and draws the tournament;
later starts (after a crash, a reboot) rebuild it from the record and ignore those sections.
Exit status: 0 on SIGTERM/SIGINT or after an export, 2 for a bad config (the key is named),
3 when the record cannot be opened or the config's tournament cannot start (the reason named).
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import ConfigError
from referee.tournament import TournamentError
from referee.tournament_service.auth import hash_password
from referee.tournament_service.config import DEFAULT_PATH, ServiceConfig, load_service_config

if TYPE_CHECKING:
    from referee.tournament_service.service import Service

log = logging.getLogger("referee.tournament")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=DEFAULT_PATH, help=f"TOML config (default {DEFAULT_PATH})")
    parser.add_argument("--export", type=Path, metavar="DIR", help="write results.csv and each match's records, then exit")
    parser.add_argument("--hash-password", type=Path, metavar="FILE", help="ask for the organiser password and write its hash")
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    if args.hash_password is not None:
        return _hash_password(args.hash_password)
    try:
        cfg = load_service_config(args.config)
    except ConfigError as exc:
        print(f"referee tournament: {exc}", file=sys.stderr)
        return 2
    from referee.tournament_service.service import Service
    from referee.tournament_service.store import StoreError, TournamentStore

    try:
        store = TournamentStore.open(cfg.state_dir)
        service = Service(store)
        if store.action_count() == 0:
            service.apply(cfg.setup())
            log.info("tournament drawn: %d entrants", len(cfg.entrants))
    except (StoreError, TournamentError) as exc:
        print(f"referee tournament: {exc}", file=sys.stderr)
        return 3
    if args.export is not None:
        from referee.tournament_service.export import write_export

        files = write_export(service.tournament, store, args.export)
        print(f"wrote {len(files)} files in {args.export}")
        store.close()
        return 0
    return _serve(cfg, service)


def _serve(cfg: ServiceConfig, service: Service) -> int:
    from aiohttp import web

    from referee.tournament_service.broker import BrokerLink
    from referee.tournament_service.web import make_app

    try:
        link = BrokerLink(service, cfg.broker_url, cfg.username, cfg.password_file, cfg.ca_file)
    except ConfigError as exc:
        print(f"referee tournament: {exc}", file=sys.stderr)
        return 2
    link.start()
    try:
        web.run_app(make_app(service, cfg.organiser_hash, cfg.language), host=cfg.host,
                    port=cfg.port, print=lambda line: log.info("%s", line))
    finally:
        link.stop()
        service.store.close()
    return 0


def _hash_password(path: Path) -> int:
    password = getpass.getpass("organiser password: ")
    if len(password) < 8 or password != getpass.getpass("again: "):
        print("referee tournament: passwords differ or shorter than 8 characters", file=sys.stderr)
        return 2
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(hash_password(password) + "\n")
    print(f"organiser password hash written to {path}")
    return 0
