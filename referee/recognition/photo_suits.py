"""The suits of the real pinochle photos' boxes, read by eye (``benchmarks/data/pinochle_suits.csv``).

``french_pinochle_voc_train``'s labels give the rank only, so until these suits were read every
real French figure scored the rank alone, and a model trained on those crops was free to read a
real club as a spade: the committed French model read 13 of the 527 boxes' clubs as spades
(the CSV's header says how the suits were read). :func:`with_suits` gives each box its suit;
the benchmarks score real cards by rank and suit with it. (Training on the suits, candidate s34,
was tried and not adopted: docs/lab/2026-12-02-pinochle-suits.md.) A box the CSV marks ``?``
shows no suit and stays rank-only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from referee.cards import FRENCH_SUITS
from referee.errors import ConfigError
from referee.paths import REPO_ROOT
from referee.recognition.commented_csv import csv_rows, int_box
from referee.recognition.photos import PhotoCard

DEFAULT_SUITS = REPO_ROOT / "benchmarks" / "data" / "pinochle_suits.csv"
SOURCE = "french_pinochle_voc_train"
COLUMNS = ("image", "xmin", "ymin", "xmax", "ymax", "suit", "proposed")
SUITS = FRENCH_SUITS

Key = tuple[str, tuple[int, int, int, int]]


def load_suits(path: Path | None = None) -> dict[Key, str | None]:
    """(image, box) -> suit (None for ``?``) from ``path`` (default :data:`DEFAULT_SUITS`); errors
    name the file and line."""
    path = DEFAULT_SUITS if path is None else path
    out: dict[Key, str | None] = {}
    for n, row in csv_rows(path, COLUMNS, "photo suits"):
        where = f"photo suits {path}, line {n}"
        box = int_box(row, where)
        suit = (row["suit"] or "").strip()
        if suit not in (*SUITS, "?"):
            raise ConfigError(f"{where}: suit {suit!r}: expected one of {', '.join(SUITS)} or ?")
        key = (row["image"], box)
        if key in out:
            raise ConfigError(f"{where}: {row['image']} box {box} is given twice")
        out[key] = None if suit == "?" else suit
    return out


def with_suits(cards: Sequence[PhotoCard], suits: dict[Key, str | None] | None = None,
               path: Path | None = None) -> list[PhotoCard]:
    """``cards`` with the pinochle boxes' suits filled in (other sources, and boxes that already
    carry a suit, unchanged). Every pinochle box must be in the CSV and every row must match a
    box: a stale file is an error naming it, not a silently rank-only figure."""
    path = DEFAULT_SUITS if path is None else path
    table = load_suits(path) if suits is None else suits
    pinochle = [c for c in cards if c.source == SOURCE]
    missing = [c for c in pinochle if (c.image.name, c.box) not in table]
    if missing:
        c = missing[0]
        raise ConfigError(f"photo suits {path}: no row for {c.image.name} box {c.box} "
                          f"({len(missing)} boxes of the photos have none)")
    _check_matched(table, pinochle, path)
    return [replace(c, suit=table[(c.image.name, c.box)]) if c.source == SOURCE and c.suit is None else c
            for c in cards]


def _check_matched(table: dict[Key, str | None], cards: Iterable[PhotoCard], path: Path) -> None:
    known = {(c.image.name, c.box) for c in cards}
    if not known:
        return
    stale = sorted(k for k in table if k not in known)
    if stale:
        raise ConfigError(f"photo suits {path}: {stale[0][0]} box {stale[0][1]} matches no labelled box "
                          f"({len(stale)} rows do not)")


def with_suits_if_known(cards: Sequence[PhotoCard], path: Path | None = None) -> list[PhotoCard]:
    """:func:`with_suits` where ``cards`` are the photos the CSV was read on. Where none of their
    pinochle boxes has a row (a drawn stand-in for the photos, as the tests use) they stay
    rank-only; where some have rows and others not, the file is stale: an error naming it."""
    path = DEFAULT_SUITS if path is None else path
    table = load_suits(path)
    if not any((c.image.name, c.box) in table for c in cards if c.source == SOURCE):
        return list(cards)
    return with_suits(cards, table, path)
