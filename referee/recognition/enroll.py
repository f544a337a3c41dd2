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

Before writing, the names are checked for slips (:mod:`referee.recognition.enroll_check`): a
card named twice and one with no photo (``--expect DECK``, or ``--grid`` with a deck), a photo
the base model reads surely as another card, a photo much nearer another card's photos than its
own.  Each is printed as a warning naming the photo; where the base model's sure read confirms
a swap or a duplicate's missing card the file is not written unless ``--force``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.cards import BACK, DECKS, RECOGNISER_LABELS, deck_family, parse_card
from referee.errors import BadCardError, ConfigError
from referee.recognition.classifier import CardClassifier
from referee.recognition.enroll_check import NameCheck, check_names
from referee.recognition.enroll_fit import fit
from referee.recognition.enrollment import Enrollment
from referee.recognition.preprocess import MIN_SIDE, check_crop
from referee.recognition.rectify import cut_card, cut_card_in_box

U8 = npt.NDArray[np.uint8]
#: a labelled crop and where it came from (file, layout row or grid position), for messages
Named = tuple[U8, str, str]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deck", required=True, help="italian or french")
    parser.add_argument("--photos", type=Path, required=True, help="folder of card photos")
    parser.add_argument("--out", type=Path, required=True, help="enrollment file to write (.npz)")
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
    deck = deck_family(args.deck)
    clf = CardClassifier.load(deck, args.model_dir, threads=args.threads)
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


def usable(samples: Sequence[Named], folder: Path) -> None:
    """Every card cut from the photos must be big enough to read; else a ConfigError naming
    the photo (not the crop's place in the batch, which the club cannot find)."""
    for crop, _, name in samples:
        try:
            check_crop(crop)
        except BadCardError as exc:
            raise ConfigError(f"--photos {folder}: {name}: the card cut from it is unusable "
                              f"({str(exc).removeprefix('crop 0: ')}; at least {MIN_SIDE} px a side): "
                              "photograph the card larger") from exc


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


def checked_enroll(clf: CardClassifier, samples: Sequence[Named], expect: Sequence[str] | None = None,
                   force: bool = False) -> tuple[Enrollment, NameCheck]:
    """:func:`enroll` after the names are checked (warnings on stderr); raises
    :class:`ConfigError` where a photo is surely misnamed, unless ``force``."""
    crops, codes = [c for c, _, _ in samples], [code for _, code, _ in samples]
    check = check_names(clf, crops, codes, [n for _, _, n in samples], expect)
    report_names(check, force)
    return enroll(clf, crops, codes), check


def report_names(check: NameCheck, force: bool) -> None:
    """Print each suspected slip; refuse (unless ``force``) where one is certain."""
    for f in check.findings:
        print(f"warning: {f.message}", file=sys.stderr)
    sure = check.certain
    if sure and not force:
        raise ConfigError(f"{len(sure)} photo(s) surely misnamed, nothing written: "
                          + "; ".join(f"{', '.join(f.names)} named {f.code} is {f.likely[0]}" for f in sure)
                          + ". Fix the names, or --force to write anyway")


def _grid_samples(deck: str, args: argparse.Namespace) -> list[Named]:
    # the vision edge finds the cards (imported here: recognition needs no vision otherwise)
    from referee.vision.enroll_grid import contact_sheet, deck_order, grid_crops

    order = deck_order(deck, args.order)
    samples = grid_crops(args.photos, order)
    sheet = args.out.with_name(f"{args.out.stem}-sheet.png")
    sheet.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(sheet), contact_sheet(samples))
    print(f"check the cards' names on {sheet}")
    return [(crop, code, f"card {i} ({code})") for i, (crop, code) in enumerate(samples, start=1)]


def enroll(clf: CardClassifier, crops: Sequence[U8], codes: Sequence[str]) -> Enrollment:
    """Prototypes from labelled crops: each card as photographed and turned 180 degrees."""
    for code in codes:
        if code not in clf.labels:
            raise BadCardError(f"{code!r} is not a card of the {clf.info.deck!r} deck")
    if not crops:
        raise ConfigError("no card photos to enroll")
    turned = [np.ascontiguousarray(crop[::-1, ::-1]) for crop in crops]
    emb, emb_turned = (np.concatenate([clf.embed(batch[i:i + 32]) for i in range(0, len(batch), 32)])
                       for batch in (crops, turned))
    prototypes = Enrollment.from_embeddings(clf.info.deck, codes, emb, clf.model_sha256, turned=emb_turned)
    # scale and weight suited to this deck (how far the base model already reads it), fitted
    # on copies of the photos both ways up, as cards are read
    return fit(prototypes, clf, [*crops, *turned], [*codes, *codes])


def photo_names(deck: str) -> str:
    """What a photo of ``deck`` must be called, for messages."""
    example = next(c for c in RECOGNISER_LABELS[deck] if c != BACK)
    return (f"by a card code of the {deck} deck and an image suffix ({', '.join(IMAGE_SUFFIXES)}): "
            f"{example}.jpg, {example}-2.jpg for a second shot, back.jpg for the back")


def _code_of(path: Path, deck: str | None = None) -> str:
    """``coppe_3-2.jpg`` -> ``coppe_3``; ``back.jpg`` -> ``back``; else raise naming the file
    and what a valid name is (a code of ``deck`` when given)."""
    stem = path.stem.split("-")[0]
    if stem == BACK:
        return BACK
    try:
        code = parse_card(stem).code
    except BadCardError as exc:
        valid = photo_names(deck) if deck else "by a card code, e.g. coppe_3.jpg or 10H.jpg"
        raise BadCardError(f"{path}: file name is not a card code ({exc}); name each photo {valid}") from exc
    if deck is not None and code not in RECOGNISER_LABELS[deck]:
        raise BadCardError(f"{path}: {code} is not a card of the {deck} deck; name each photo {photo_names(deck)}")
    return code


def _read(path: Path) -> U8:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise ConfigError(f"cannot read photo {path}")
    out = np.asarray(img, np.uint8)
    return out


def named_crops(folder: Path, deck: str | None = None) -> list[Named]:
    """One card per photo, named by its code (of ``deck`` when given); every name is checked
    before any photo is read, so a slip is reported at once."""
    if not folder.exists():
        raise ConfigError(f"--photos: no such folder {folder}")
    if not folder.is_dir():
        raise ConfigError(f"--photos: {folder} is a file, not a folder of card photos")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        valid = photo_names(deck) if deck else "by a card code and an image suffix, e.g. coppe_3.jpg"
        raise ConfigError(f"--photos: no photos in {folder}: one photo per card, named {valid}")
    codes = [_code_of(p, deck) for p in files]
    return [(cut_card(_read(p)), code, p.name) for p, code in zip(files, codes, strict=True)]


def layout_crops(layout: Path, folder: Path) -> list[Named]:
    """Several cards per photo: one CSV row ``image,code,x0,y0,x1,y1`` per card."""
    out: list[Named] = []
    try:
        with layout.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"cannot read layout file {layout}: {exc}") from exc
    for line, row in enumerate(rows, start=2):
        try:
            img = _read(folder / row["image"])
            x0, y0, x1, y1 = (int(float(row[k])) for k in ("x0", "y0", "x1", "y1"))
            code = BACK if row["code"] == BACK else parse_card(row["code"]).code
            card = cut_card_in_box(img, (x0, y0, x1, y1))  # a box off the photo is named too
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"{layout}:{line}: bad row {row} ({exc})") from exc
        out.append((card, code, f"{layout.name}:{line} ({row['image']})"))
    return out
