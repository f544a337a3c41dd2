"""``referee enroll --camera``: enrol the club's deck laid out under the box's own camera (the
command line of :mod:`referee.box.enrol_deck`; the options are :mod:`referee.cli.enroll`'s).

    referee enroll --camera --config /etc/referee/config.toml        # the box's camera and game
    referee enroll --camera --source sim --order italian-40 --out /tmp/club.npz
"""

from __future__ import annotations

import argparse
import sys

from referee.box.config import BoxConfig, load_config
from referee.box.enrol_deck import (
    DeckEnrolment,
    TableEnrolment,
    TableFrames,
    enrollment_path,
    grid_plan,
    layout_markers,
    run_enrolment,
    sim_table,
    table_deck,
)
from referee.cards import DECKS, deck_family
from referee.errors import ConfigError
from referee.recognition.classifier import CardClassifier
from referee.recognition.views import LIVE_VIEWS


def run_camera(args: argparse.Namespace) -> int:
    from referee.vision.enroll_grid import deck_order, table_order

    if args.photos is not None or args.grid or args.layout is not None:
        raise ConfigError("--camera takes the photos itself: leave out --photos, --grid and --layout")
    cfg = load_config(args.config) if args.config is not None else None
    deck = _deck(args, cfg)
    family = "italian" if deck.startswith("italian") else "french"
    if args.deck is not None and deck_family(args.deck) != family:
        raise ConfigError(f"--deck {args.deck}: the order is a {family} deck")
    if args.order is None or args.order in DECKS:
        order, copies = table_order(family, deck), DECKS[deck].copies
    else:  # a file of the club's own cards, in the order they are laid out
        order, copies = deck_order(family, args.order), 2 if family == "french" else 1
    frame_size = (cfg.camera.width, cfg.camera.height) if cfg is not None else (1280, 720)
    spec = args.source if args.source is not None else _config_source(cfg)
    calibrated = cfg.layout if cfg is not None and spec.partition(":")[0] != "sim" else None
    plan = grid_plan(len(order), family, frame_size, calibrated)
    out = args.out if args.out is not None else enrollment_path(cfg, family) if cfg is not None else None
    if out is None:
        raise ConfigError("--camera needs --out FILE, or --config (the file is then the one the box reads)")
    clf = CardClassifier.load(family, args.model_dir, threads=args.threads, views=LIVE_VIEWS)
    session = DeckEnrolment(clf, order, plan, out, sure=cfg.thresholds.confidence if cfg is not None else 0.80,
                            copies=copies)
    frames = sim_table(spec, order, plan, frame_size)
    if frames is None:
        from referee.vision.sources import open_source

        live = spec in ("picamera", "picamera2", "pi") or spec.removeprefix("usb:").isdigit()
        source = open_source(spec, **({"size": frame_size} if live else {}))
        frames = TableFrames(source=source, markers=layout_markers(cfg.layout if cfg is not None else None))
    print(f"lay the deck face up: {plan.describe()}, in the deck's order row by row, a finger's width apart "
          f"({plan.basis()})")
    try:
        report = run_enrolment(TableEnrolment(session, frames), lambda k: _ready(session, k))
    finally:
        if frames.source is not None:
            frames.source.close()
    for line in report.lines():
        print(line)
    return 0


def _deck(args: argparse.Namespace, cfg: BoxConfig | None) -> str:
    """The deck laid out: ``--order`` when it names one, else the config's game's, else the
    whole deck of ``--deck``'s family."""
    if args.order in DECKS:
        return str(args.order)
    if cfg is not None:
        return table_deck(cfg)
    if args.deck is None:
        raise ConfigError("--camera needs the deck: --order DECK (italian-40, french-32, binocolo-48, "
                          "french-52), --deck with --order FILE, or --config")
    return "italian-40" if deck_family(args.deck) == "italian" else "french-52"


def _config_source(cfg: BoxConfig | None) -> str:
    if cfg is None:
        raise ConfigError("--camera needs --source (picamera, usb:N, sim, ...) or --config naming camera.source")
    kind, _, rest = cfg.camera.source.partition(":")
    if kind == "sim":
        return f"sim:{rest}"
    if kind == "events":
        raise ConfigError(f"{cfg.source}: camera.source = {cfg.camera.source!r} is an event log, not a camera: "
                          "give --source")
    from referee.box.vision_feed import source_spec

    return source_spec(cfg)


def _ready(session: DeckEnrolment, layout: int) -> None:
    """Tell the club what to lay out; at a terminal, wait for Enter."""
    codes = session.layout_codes(layout)
    several = f"layout {layout + 1} of {session.plan.layouts}: " if session.plan.layouts > 1 else ""
    print(f"{several}lay out {codes[0]} ... {codes[-1]} ({len(codes)} cards) in rows of {session.plan.columns}",
          flush=True)
    if sys.stdin.isatty():
        input("press Enter when they lie still under the camera ")
