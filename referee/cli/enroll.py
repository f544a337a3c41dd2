"""``referee enroll``: adapt the recogniser to a club's own deck from photos of its cards.

    referee enroll --deck italian --photos club_deck/ --out config/deck.npz

``--photos DIR`` holds one photo per card named by its code (``coppe_3.jpg``; extra shots
``coppe_3-2.jpg``; ``back.jpg`` for the back), the card alone on a contrasting table or
already cropped.  With ``--layout FILE`` (CSV ``image,code,x0,y0,x1,y1``) a photo may hold
several cards, one box each.  With ``--grid`` the photos show the deck laid out in rows in a
known order and the cards are found and named by position
(:mod:`referee.vision.enroll_grid`).  The result is a small ``.npz`` of per-card prototypes for
``CardClassifier.load(..., enrollment=FILE)``, with the blend's weight and sharpness fitted to
the deck (:mod:`referee.recognition.enroll_fit`).

With ``--camera`` the deck is enrolled at the table from the box's own camera (its config's
``camera.source``, or ``--source``; ``sim`` renders a simulated table):

    referee enroll --camera --config /etc/referee/config.toml
    referee enroll --camera --source sim --order french-52 --out /tmp/club.npz

The club lays the deck face up in rows as the command asks (the deck's order, row by row; two
layouts one after the other when the frame cannot hold a 52-card deck), a few frames are taken
of each, every card is found and named by its place, enrolled, and read back: the report names
each card the box would still confuse (its top-2 pair and margin) and the time it took
(:mod:`referee.box.enrol_deck`). A place with no card, two cards or a card the order does not
list is refused naming the places, and nothing is written. With ``--config`` the file is the
one the box reads from then on (``<state_dir>/enrollment-<family>.npz``).

Before writing, the names are checked for slips (:mod:`referee.recognition.enroll_check`): a
card named twice and one with no photo (``--expect DECK``, or ``--grid`` with a deck), a photo
the base model reads surely as another card, a photo much nearer another card's photos than its
own.  Each is printed as a warning naming the photo; where the base model's sure read confirms
a swap or a duplicate's missing card the file is not written unless ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

from referee.cards import BACK, DECKS, RECOGNISER_LABELS, deck_family
from referee.errors import ConfigError
from referee.recognition.classifier import CardClassifier
from referee.recognition.enroll import Named, checked_enroll, layout_crops, named_crops, usable
from referee.recognition.views import LIVE_VIEWS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deck", default=None, help="italian or french (with --camera: from the order or the config)")
    parser.add_argument("--photos", type=Path, default=None, help="folder of card photos")
    parser.add_argument("--out", type=Path, default=None,
                        help="enrollment file to write (.npz); with --camera --config: the one the box reads")
    parser.add_argument("--camera", action="store_true",
                        help="enrol the deck laid out in rows under the box's camera (see --config, --source)")
    parser.add_argument("--config", type=Path, default=None,
                        help="with --camera: the box's config (camera.source, layout, game, state_dir)")
    parser.add_argument("--source", default=None,
                        help="with --camera: the camera instead of the config's: picamera, usb:N, a video, a folder "
                        "of frames, sim or sim:SEED (a simulated table)")
    parser.add_argument("--layout", type=Path, default=None, help="CSV image,code,x0,y0,x1,y1")
    parser.add_argument("--grid", action="store_true",
                        help="the photos show the deck laid out face up in rows, in --order: cards are found "
                        "and named by position (a contact sheet <out>-sheet.png is written to check)")
    parser.add_argument("--order", default=None,
                        help="with --grid: a deck (french-32, binocolo-48, ...) or a file of codes in laying-out "
                        "order (default: the whole deck, suits then ranks)")
    parser.add_argument("--expect", default=None, choices=sorted(DECKS),
                        help="the photos cover this whole deck: report cards named twice and cards with no "
                        "photo (with --grid, a deck given as --order, or none, is expected)")
    parser.add_argument("--force", action="store_true",
                        help="write the file even where the check is sure a photo is misnamed")
    parser.add_argument("--model-dir", type=Path, default=None, help="models folder (default models/)")
    parser.add_argument("--threads", type=int, default=2)


def run(args: argparse.Namespace) -> int:
    if args.camera:
        from referee.cli.enroll_camera import run_camera

        return run_camera(args)
    for option in ("deck", "photos", "out"):
        if getattr(args, option) is None:
            raise ConfigError(f"--{option} is needed (or --camera to enrol the deck laid out under the box's camera)")
    if args.config is not None or args.source is not None:
        raise ConfigError("--config and --source go with --camera")
    deck = deck_family(args.deck)
    clf = CardClassifier.load(deck, args.model_dir, threads=args.threads, views=LIVE_VIEWS)
    if args.grid and args.layout:
        raise ConfigError("--grid and --layout are two ways to name the cards: give one")
    if args.grid:
        samples = _grid_samples(deck, args)
    else:
        samples = layout_crops(args.layout, args.photos) if args.layout else named_crops(args.photos, deck)
    usable(samples, args.photos)
    crops, codes = [c for c, _, _ in samples], [code for _, code, _ in samples]
    enrollment, _ = checked_enroll(clf, samples, _expected(deck, args), args.force)
    try:
        enrollment.save(args.out)
    except OSError as exc:  # a full disk, a read-only or missing place: the old file stays whole
        raise ConfigError(f"--out: cannot write {args.out}: {exc.strerror or exc}") from exc
    # what the club should know: how far the model alone reads its deck, and how much the
    # enrollment will weigh against it (enroll_fit: the less it reads, the more the prototypes)
    alone = sum(p.card == code for p, code in zip(clf.classify(crops), codes, strict=True))
    print(f"the model alone reads {alone} of the {len(crops)} photos right; enrollment weight "
          f"{enrollment.weight:.2f}, sharpness {enrollment.scale:g}")
    missing = [c for c in RECOGNISER_LABELS[deck] if c not in enrollment.codes and c != BACK]
    print(f"enrolled {len(enrollment.codes)} cards from {len(samples)} crops -> {args.out}")
    if missing:
        print(f"not enrolled (base model only): {' '.join(missing)}", file=sys.stderr)
    return 0


def _expected(deck: str, args: argparse.Namespace) -> list[str] | None:
    """The codes the photos should cover: ``--expect``, or with ``--grid`` the order when it is a
    deck (a file of codes may be any part of one)."""
    if args.expect:
        codes = list(DECKS[args.expect].codes)
        if any(c not in RECOGNISER_LABELS[deck] for c in codes):
            raise ConfigError(f"--expect {args.expect}: not a {deck} deck")
        return codes
    if args.grid and (args.order is None or args.order in DECKS):
        from referee.vision.enroll_grid import deck_order

        return deck_order(deck, args.order)
    return None


def _grid_samples(deck: str, args: argparse.Namespace) -> list[Named]:
    # the vision edge finds the cards (imported here: only --grid needs OpenCV's finder)
    from referee.vision.enroll_grid import contact_sheet, deck_order, grid_crops

    order = deck_order(deck, args.order)
    samples = grid_crops(args.photos, order)
    sheet = args.out.with_name(f"{args.out.stem}-sheet.png")
    sheet.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(sheet), contact_sheet(samples))
    print(f"check the cards' names on {sheet}")
    return [(crop, code, f"card {i} ({code})") for i, (crop, code) in enumerate(samples, start=1)]
