"""A reviewer's verdicts on the real-photo crops: which boxes meet the recogniser's input contract.

Most of the labelled boxes in ``../shared/photos`` are handheld close-ups: fanned hands where a
box holds a corner of a card, zooms on a court's middle, cards under guitar strings. The issue's
input contract (one card cut to its outline, corners off by up to ~10%, up to ~40% covered) is
what the box's camera delivers, so accuracy on the boxes inside it is the figure that predicts
the table; accuracy on every box is reported beside it. The review is a CSV written by eye
(``benchmarks/data/photo_review.csv``, its header says how), keyed by source, image file name
and box; a box it does not list meets the contract.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from referee.cards import FRENCH_RANKS, ITALIAN_RANKS
from referee.errors import ConfigError
from referee.paths import REPO_ROOT
from referee.recognition.commented_csv import csv_rows, int_box
from referee.recognition.photos import PhotoCard

DEFAULT_REVIEW = REPO_ROOT / "benchmarks" / "data" / "photo_review.csv"
COLUMNS = ("source", "image", "xmin", "ymin", "xmax", "ymax", "verdict", "value", "note")
#: Why a box is outside the contract (see the CSV's header).
REASONS = ("partial", "covered", "zoomed", "tilted", "blank")

Key = tuple[str, str, tuple[int, int, int, int]]


def key_of(card: PhotoCard) -> Key:
    return card.source, card.image.name, card.box


@dataclass(frozen=True)
class PhotoReview:
    """``outside``: box -> why it is outside the contract; ``ranks``: box -> the rank the card
    shows where the dataset's label is wrong."""

    outside: dict[Key, str] = field(default_factory=dict)
    ranks: dict[Key, str] = field(default_factory=dict)

    def in_contract(self, card: PhotoCard) -> bool:
        return key_of(card) not in self.outside

    def rank(self, card: PhotoCard) -> str:
        """The card's rank, the reviewer's where the label was wrong."""
        return self.ranks.get(key_of(card), card.rank)

    def unmatched(self, cards: Iterable[PhotoCard]) -> list[Key]:
        """Reviewed boxes of the given cards' sources that match no card (a stale review)."""
        cards = list(cards)
        sources = {c.source for c in cards}
        known = {key_of(c) for c in cards}
        return sorted(k for k in {*self.outside, *self.ranks} if k[0] in sources and k not in known)


def load_review(path: Path = DEFAULT_REVIEW) -> PhotoReview:
    """Read a review CSV (``#`` lines are comments); errors name the file and line."""
    outside: dict[Key, str] = {}
    ranks: dict[Key, str] = {}
    first_line: dict[tuple[str, Key], int] = {}  # (verdict, box) -> the line that gave it
    for n, row in csv_rows(path, COLUMNS, "photo review"):
        where = f"photo review {path}, line {n}"
        box = int_box(row, where)
        key: Key = (row["source"], row["image"], box)
        verdict, value = row["verdict"], row["value"]
        if (verdict, key) in first_line:
            # the last row would silently win: a reviewer's second thought must replace the first
            raise ConfigError(f"{where}: box {key[1]} {box} already has a '{verdict}' verdict "
                              f"(line {first_line[verdict, key]})")
        first_line[verdict, key] = n
        if verdict == "outside" and value in REASONS:
            outside[key] = value
        elif verdict == "label" and value in {*FRENCH_RANKS, *ITALIAN_RANKS}:
            ranks[key] = value
        else:
            raise ConfigError(f"{where}: verdict {verdict!r} value {value!r}: expected 'outside' with one of "
                              f"{', '.join(REASONS)}, or 'label' with a card rank")
    return PhotoReview(outside, ranks)
