"""Corrections to a real photo set's labels, each checked by eye on the photo: a card the label
names wrongly, a visible card the labels leave out, a label on no card.

The labels in ``../shared/photos`` are read-only data; a label found wrong is recorded beside the
benchmarks (``benchmarks/data/<set>_label_fixes.csv``), which score a set both as labelled and with
its fixes.  One row per fix, ``#`` lines are comments (the file's header says how to write it)::

    photo,label,shows,xmin,ymin,xmax,ymax,checked
    IMG_2396.JPG,9,10D,,,,,"by eye, 2026-11-28: ten diamond pips, 10 in the corners"
    Img_204.jpg,,denari_6,410,120,530,300,"by eye, 2026-11-28: whole, face up, left of the trick"

* ``label``: the card as the set's label file writes it (the pinochle set: its rank); empty for a
  card the labels leave out;
* ``shows``: the card the photo shows (a card code, ``10D``, ``denari_6``), or ``none`` where a
  label lies on no card;
* the box (pixels): which labelled box the row corrects where a photo has two labels alike, and
  the box of a card the labels leave out (required then);
* ``checked``: who looked at the photo, when, and what they saw.

Only what can be told by eye is a fix: a card half off the photo or too blurred to tell is not
a label error.  A malformed row is a :class:`~referee.errors.ConfigError` naming the file and line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from referee.cards import parse_card
from referee.errors import BadCardError, ConfigError

COLUMNS = ("photo", "label", "shows", "xmin", "ymin", "xmax", "ymax", "checked")
#: ``shows`` of a label that lies on no card
NO_CARD = "none"

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class LabelFix:
    """One checked correction: ``line`` is its line in ``source``, for the errors that name it."""

    photo: str
    label: str
    shows: str
    box: Box | None
    checked: str
    source: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


def load_label_fixes(path: Path) -> list[LabelFix]:
    """The fixes in ``path`` (none when there is no such file)."""
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the label fixes: {exc}") from exc
    fixes: list[LabelFix] = []
    header: list[str] | None = None
    for number, row in _rows(text):
        where = f"{path}:{number}"
        if header is None:
            header = [cell.strip() for cell in row]
            if tuple(header) != COLUMNS:
                raise ConfigError(f"{where}: expected the header {','.join(COLUMNS)}, got {','.join(header)}")
            continue
        if len(row) != len(COLUMNS):
            raise ConfigError(f"{where}: expected {len(COLUMNS)} fields ({','.join(COLUMNS)}), got {len(row)}")
        fixes.append(_fix(dict(zip(COLUMNS, (cell.strip() for cell in row), strict=True)), str(path), number))
    if header is None:
        raise ConfigError(f"{path}: no header line ({','.join(COLUMNS)})")
    return fixes


def _rows(text: str) -> list[tuple[int, list[str]]]:
    """The CSV rows that are neither blank nor ``#`` comments, each with its line number."""
    out: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.append((number, next(csv.reader([line]))))
    return out


def _fix(cells: dict[str, str], source: str, line: int) -> LabelFix:
    where = f"{source}:{line}"
    if not cells["photo"]:
        raise ConfigError(f"{where}: photo: empty (the photo's file name)")
    shows = cells["shows"]
    if shows != NO_CARD:
        try:
            parse_card(shows)
        except BadCardError as exc:
            raise ConfigError(f"{where}: shows: {exc} (or {NO_CARD!r} where the label lies on no card)") from None
    if shows == NO_CARD and not cells["label"]:
        raise ConfigError(f"{where}: a row with no label and shows {NO_CARD!r} corrects nothing")
    box = _box(cells, where)
    if not cells["label"] and box is None:
        raise ConfigError(f"{where}: a card the labels leave out needs its box (xmin, ymin, xmax, ymax)")
    if not cells["checked"]:
        raise ConfigError(f"{where}: checked: empty (who looked at the photo, when, what they saw)")
    return LabelFix(cells["photo"], cells["label"], shows, box, cells["checked"], source, line)


def _box(cells: dict[str, str], where: str) -> Box | None:
    raw = [cells[k] for k in ("xmin", "ymin", "xmax", "ymax")]
    if not any(raw):
        return None
    try:
        x0, y0, x1, y1 = (float(v) for v in raw)
    except ValueError:
        raise ConfigError(f"{where}: box: expected four numbers (pixels) or none, got {raw}") from None
    if not (0 <= x0 < x1 and 0 <= y0 < y1):
        raise ConfigError(f"{where}: box: expected 0 <= xmin < xmax and 0 <= ymin < ymax, got {raw}")
    return x0, y0, x1, y1
