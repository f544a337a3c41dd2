"""Adapting the recogniser to a club's own deck from photos of its cards (``referee enroll``,
whose command line is :mod:`referee.cli.enroll`).

Photos are named by card code (``coppe_3.jpg``; extra shots ``coppe_3-2.jpg``; ``back.jpg`` for
the back), or cut by a CSV layout (``image,code,x0,y0,x1,y1``).  The result is a small ``.npz``
of per-card prototypes for ``CardClassifier.load(..., enrollment=FILE)``, with the blend's
weight and sharpness fitted to the deck (:mod:`referee.recognition.enroll_fit`).  Before
writing, the names are checked for slips (:mod:`referee.recognition.enroll_check`); where the
base model's sure read confirms a swap or a duplicate's missing card nothing is written unless
forced.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.cards import BACK, RECOGNISER_LABELS, parse_card
from referee.errors import BadCardError, ConfigError
from referee.recognition.classifier import CardClassifier
from referee.recognition.enroll_check import NameCheck, check_names
from referee.recognition.enroll_fit import BATCH, fit, no_tick
from referee.recognition.enrollment import Enrollment
from referee.recognition.photos import read_photo
from referee.recognition.preprocess import MIN_SIDE, check_crop
from referee.recognition.rectify import cut_card, cut_card_in_box

U8 = npt.NDArray[np.uint8]
#: a labelled crop and where it came from (file, layout row or grid position), for messages
Named = tuple[U8, str, str]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


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


def enroll(clf: CardClassifier, crops: Sequence[U8], codes: Sequence[str],
           tick: Callable[[], None] = no_tick) -> Enrollment:
    """Prototypes from labelled crops: each card as photographed and turned 180 degrees.
    ``tick`` is called after every batch the model reads (the box pings its watchdog)."""
    for code in codes:
        if code not in clf.labels:
            raise BadCardError(f"{code!r} is not a card of the {clf.info.deck!r} deck")
    if not crops:
        raise ConfigError("no card photos to enroll")
    turned = [np.ascontiguousarray(crop[::-1, ::-1]) for crop in crops]
    emb, emb_turned = (_embed(clf, batch, tick) for batch in (crops, turned))
    prototypes = Enrollment.from_embeddings(clf.info.deck, codes, emb, clf.model_sha256, turned=emb_turned)
    # scale and weight suited to this deck (how far the base model already reads it), fitted
    # on copies of the photos both ways up, as cards are read
    return fit(prototypes, clf, [*crops, *turned], [*codes, *codes], tick=tick)


def _embed(clf: CardClassifier, crops: Sequence[U8], tick: Callable[[], None]) -> npt.NDArray[np.float32]:
    out = []
    for i in range(0, len(crops), BATCH):
        out.append(clf.embed(crops[i:i + BATCH]))
        tick()
    return np.concatenate(out)


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
    return [(cut_card(read_photo(p)), code, p.name) for p, code in zip(files, codes, strict=True)]


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
            img = read_photo(folder / row["image"])
            x0, y0, x1, y1 = (int(float(row[k])) for k in ("x0", "y0", "x1", "y1"))
            code = BACK if row["code"] == BACK else parse_card(row["code"]).code
            card = cut_card_in_box(img, (x0, y0, x1, y1))  # a box off the photo is named too
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"{layout}:{line}: bad row {row} ({exc})") from exc
        out.append((card, code, f"{layout.name}:{line} ({row['image']})"))
    return out
