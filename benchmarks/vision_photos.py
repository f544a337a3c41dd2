"""Cards found on the real photos in ../shared/photos: recall and precision of card identities.

    .venv/bin/python benchmarks/vision_photos.py                  # all three photo sets
    .venv/bin/python benchmarks/vision_photos.py --finder-only    # localisation only (no model)
    .venv/bin/python benchmarks/vision_photos.py --sets triestine --show out/   # draw results
    .venv/bin/python benchmarks/vision_photos.py --sets pinochle --dump build/lab/pin.npz
    .venv/bin/python benchmarks/vision_photos.py --results build/lab/r.jsonl   # keep the detections
    .venv/bin/python benchmarks/vision_photos.py --rescore build/lab/r.jsonl   # score them again
    .venv/bin/python benchmarks/vision_photos.py --rescore build/lab/r.jsonl --list-false --show-false out/

Runs ``referee detect``'s code (``detect_image``) on every photo and compares with the labels:

* ``triestine`` (Italian, boxes, ``<suit>_<rank>``; ``?`` = unknown, scored for finding only);
* ``pinochle`` (French 9..A, boxes, rank only: a read is right when its rank is), read as
  binocolo's cards (``referee detect --game binocolo``: 9 to ace, two of each); the other sets
  are read over their family's whole deck (Triestine: 40 cards; EPFL: 52);
* ``epfl`` (top-down 4-player rounds of a custom French-suited deck, one card per seat and no
  boxes: a card is matched by its side of the photo; only the suit is standard, so a read is
  right when its suit is (J/Q/K also by rank)).

found     labelled cards with a detection on them (the centre of its part inside the photo inside the box / on the seat's side)
right     labelled cards read right (as far as the label says)
precision detections that are right, of all detections (``--finder-only``: that land on a card)
false     the other detections per 100 photos, by kind (in brackets those read at >= 0.8, sure):
          ``non-card`` a box on no labelled card (the Triestine labels leave some real cards
          out: a right read of one counts here), ``misread`` a labelled card read as another,
          ``second box`` one more box on a card another detection reads right or more surely

Labels found wrong by eye are corrected in ``benchmarks/data/<set>_label_fixes.csv``
(:mod:`referee.recognition.label_fixes`; ``../shared`` stays as published): a set with fixes is
scored twice, as labelled and with its labels fixed (``<set> fixed``), and the count of fixes
printed.

``--dump FILE.npz`` also writes every detection's crop at the model's input (plain uint8 and
string arrays) with its set, photo, card, confidence, verdict and whether the photo is in the
held-out half, to study what the read itself can tell.

``--list-false`` prints every false card (photo, kind, read, confidence, the photo's labels) with
the labels fixed where a set has fixes; ``--show-false DIR`` draws only the photos that have one,
the labelled boxes green and only the false cards magenta (with ``--rescore`` too: the photos are
read again from ``../shared``, the detections not).

``pinochle-held`` repeats the pinochle row on the half of its photos that ``referee train
--real-photos`` never trains on (the committed French model is trained on the other half; models/README.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.cards import parse_card
from referee.errors import BadCardError, ConfigError
from referee.paths import REPO_ROOT, exit_without_shared, shared_dir
from referee.recognition.game_faces import GameFaces
from referee.recognition.label_fixes import NO_CARD, LabelFix, load_label_fixes
from referee.recognition.photo_suits import DEFAULT_SUITS, with_suits
from referee.recognition.photos import photo_cards
from referee.recognition.real_crops import TRAINABLE, is_training_photo
from referee.vision.detect import detect_image
from referee.vision.finder import CardFinder, FinderConfig
from referee.vision.pipeline import FramePipeline


@dataclass
class Truth:
    label: str  # card code, "?" parts allowed; "" = unknown
    box: tuple[float, float, float, float] | None = None  # xmin, ymin, xmax, ymax
    side: str | None = None  # epfl: bottom/right/top/left
    raw: str = ""  # the label as the set's label file writes it (what a label fix names)


#: kinds of false card: a box on no labelled card, a card read as another card, a second box on
#: a card another detection already reads (right, or more surely)
FALSE_KINDS = ("non-card", "misread", "second box")


@dataclass
class Tally:
    cards: int = 0
    found: int = 0
    right: int = 0
    scored: int = 0  # cards whose label says enough to be read right or wrong
    detections: int = 0
    good_detections: int = 0
    ms: list[float] = field(default_factory=list)
    #: false cards by kind (FALSE_KINDS), all and sure (confidence >= SURE) ones
    false: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FALSE_KINDS, 0))
    false_sure: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FALSE_KINDS, 0))


#: the pipeline's threshold for taking a read without asking (``FramePipeline.process_still``)
SURE = 0.8


def triestine(root: Path) -> dict[Path, list[Truth]]:
    out: dict[Path, list[Truth]] = defaultdict(list)
    folder = root / "italian_triestine_tressette_test"
    with (folder / "labels_canonical.csv").open() as fh:
        for row in csv.DictReader(fh):
            label = row["canonical_label"] if "?" not in row["canonical_label"] else ""
            box = tuple(float(row[k]) for k in ("xmin_px", "ymin_px", "xmax_px", "ymax_px"))
            out[folder / "images" / row["image"]].append(Truth(label, box, raw=row["canonical_label"]))  # type: ignore[arg-type]
    return out


def pinochle(root: Path, suits: bool = True) -> dict[Path, list[Truth]]:
    """The pinochle labels (rank only), each with the suit read by eye
    (``benchmarks/data/pinochle_suits.csv``, matched and checked by
    :func:`~referee.recognition.photo_suits.with_suits`) unless not ``suits``."""
    out: dict[Path, list[Truth]] = defaultdict(list)
    folder = root / "french_pinochle_voc_train"
    table = {(c.image.name, c.box): c.suit for c in with_suits(photo_cards("french", root.parent))} if suits else {}
    with (folder / "labels.csv").open() as fh:
        for row in csv.DictReader(fh):
            box = tuple(float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            suit = table.get((row["image"], tuple(int(v) for v in box)))  # type: ignore[arg-type]
            truth = Truth(f"{row['canonical_rank']}{suit or '?'}", box, raw=row["canonical_rank"])  # type: ignore[arg-type]
            out[folder / "images" / row["image"]].append(truth)
    return out


def pinochle_ranks(root: Path) -> dict[Path, list[Truth]]:
    """The pinochle labels as published: the rank alone."""
    return pinochle(root, suits=False)


def epfl(root: Path) -> dict[Path, list[Truth]]:
    out: dict[Path, list[Truth]] = {}
    folder = root / "french_suits_epfl_iapr2021_custom_topdown"
    for game_csv in sorted(folder.glob("game*/game*.csv")):
        with game_csv.open() as fh:
            for row in csv.DictReader(fh):
                rnd = row[""]
                sides = ("bottom", "right", "top", "left")
                out[game_csv.parent / f"{rnd}.jpg"] = [
                    Truth(f"{row[f'P{i + 1}']}" if row[f"P{i + 1}"][0] in "JQK" else f"?{row[f'P{i + 1}'][-1]}", side=s)
                    for i, s in enumerate(sides)
                ]
    return out


SETS = {"triestine": ("italian", triestine), "pinochle": ("french", pinochle), "epfl": ("french", epfl)}
#: a set scored a second time on the rank alone (its published labels; the figures before the
#: suits were read by eye)
RANK_ONLY = {"pinochle": pinochle_ranks}
#: the game a set's deck is played with (``referee detect --game``): its faces alone are read and
#: its copies counted. A pinochle deck is binocolo's (9 to ace, each twice); the Triestine (40
#: cards) and EPFL (52) decks are their family's whole deck, read with ``--deck`` alone
GAMES = {"pinochle": "binocolo"}


def _parts(code: str) -> tuple[str, str]:
    """(suit, rank) of a card code, either may be '?'."""
    if "_" in code:
        suit, _, rank = code.partition("_")
        return suit, rank
    return code[-1], code[:-1]


def read_right(label: str, card: str) -> bool | None:
    """Whether ``card`` agrees with ``label`` as far as the label goes (None: label says nothing)."""
    if not label:
        return None
    try:
        parse_card(card)
    except BadCardError:
        return False
    want_suit, want_rank = _parts(label)
    got_suit, got_rank = _parts(card)
    return (want_suit in ("?", got_suit)) and (want_rank in ("?", got_rank))


def visible_centre(quad: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The centre of the part of a detection's quad inside the photo: a card half off the photo
    has a quad past the border, whose own centre can lie off the card's label box (the box is
    cut at the border), so a real card was scored as a box on no card (IMG_2611's ace)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    h, w = shape[:2]
    corners = np.asarray(q.mean(axis=0))
    # a quad inside the photo keeps its corners' mean, so every earlier figure scores as it did
    if q[:, 0].min() >= 0 and q[:, 1].min() >= 0 and q[:, 0].max() <= w and q[:, 1].max() <= h:
        return corners
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    _, inside = cv2.intersectConvexConvex(cv2.convexHull(q), frame)
    m = cv2.moments(inside.reshape(-1, 1, 2).astype(np.float32)) if inside is not None else {"m00": 0.0}
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]], np.float32) if m["m00"] > 0 else corners


def on_truth(truth: Truth, centre: np.ndarray, shape: tuple[int, ...]) -> bool:
    if truth.box is not None:
        x0, y0, x1, y1 = truth.box
        return bool(x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1)
    h, w = shape[:2]
    dx, dy = (centre[0] - w / 2) / w, (centre[1] - h / 2) / h
    side = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("bottom" if dy > 0 else "top")
    return side == truth.side


class FinderOnly:
    """Proposals only (every proposal counts as a card): localisation without a model."""

    def __init__(self) -> None:
        self.finder = CardFinder(FinderConfig())


@dataclass(frozen=True)
class FalseCard:
    """One false detection of a photo (``--list-false``, ``--show-false``)."""

    path: Path
    truths: list[Truth]  # the photo's labelled cards
    kind: str  # one of FALSE_KINDS
    detection: dict[str, Any]  # as recorded: card, confidence, quad

    def row(self) -> str:
        labels = " ".join(t.label for t in self.truths) or "-"
        return (f"  {self.path.name:24} {self.kind:10} {self.detection['card']:10} "
                f"{self.detection['confidence']:.4f}  labels: {labels}")


def false_cards(records: list[Record], truths: dict[Path, list[Truth]]) -> list[FalseCard]:
    """Every false detection of ``records`` scored against ``truths``, in the records' order."""
    by_key = {photo_key(path): (path, ts) for path, ts in truths.items()}
    out = []
    for r in records:
        path, ts = by_key[r.photo]
        kinds = score_image(path, ts, r.result, r.shape, Tally(), False)
        out += [FalseCard(path, ts, kind, card) for card, kind in zip(r.result["cards"], kinds, strict=True) if kind != "right"]
    return out


def score_image(path: Path, truths: list[Truth], result: dict[str, Any], shape: tuple[int, ...], tally: Tally,
                finder_only: bool) -> list[str]:
    """Tally one photo; the verdict on each detection: ``right`` or one of FALSE_KINDS."""
    cards = result["cards"]
    centres = [visible_centre(c["quad"], shape) for c in cards]
    tally.cards += len(truths)
    tally.detections += len(cards)
    tally.ms.append(result["ms"])
    used: set[int] = set()
    on: dict[int, list[int]] = defaultdict(list)  # detection -> the truths it lies on
    for t, truth in enumerate(truths):
        hits = [i for i, c in enumerate(centres) if on_truth(truth, c, shape)]
        for i in hits:
            on[i].append(t)
        if hits:
            tally.found += 1
        verdicts = [read_right(truth.label, cards[i]["card"]) for i in hits]
        if truth.label and not finder_only:
            tally.scored += 1
            if any(v for v in verdicts):
                tally.right += 1
        for i in hits:
            if finder_only or read_right(truth.label, cards[i]["card"]) in (True, None):
                used.add(i)
    tally.good_detections += len(used)
    kinds = []
    for i, card in enumerate(cards):
        kind = "right" if i in used else _false_kind(i, on, used, cards)
        kinds.append(kind)
        if kind != "right":
            tally.false[kind] += 1
            tally.false_sure[kind] += card["confidence"] >= SURE
    return kinds


def _false_kind(i: int, on: dict[int, list[int]], used: set[int], cards: list[dict[str, Any]]) -> str:
    """A false detection's kind: on no card; on a card that another detection reads right or
    more surely; else a misread of its card."""
    if not on.get(i):
        return "non-card"
    others = [j for j in on if j != i and set(on[j]) & set(on[i])]
    if any(j in used or cards[j]["confidence"] > cards[i]["confidence"] for j in others):
        return "second box"
    return "misread"


class Recording:
    """A classifier that keeps each read's crop at the model's input, to dump with its verdict."""

    def __init__(self, classifier: Any) -> None:
        self.classifier = classifier
        self.reads: dict[tuple[str, float], np.ndarray] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.classifier, name)

    def classify(self, crops: Any) -> Any:
        from referee.recognition.preprocess import resize_crop

        preds = self.classifier.classify(crops)
        for crop, p in zip(crops, preds, strict=True):
            self.reads.setdefault((p.card, round(p.confidence, 4)), resize_crop(crop, self.classifier.input_size))
        return preds


@dataclass
class Dump:
    """Every detection's crop (at the model's input), read and verdict, for ``--dump``."""

    crops: list[np.ndarray] = field(default_factory=list)
    rows: list[tuple[str, str, str, float, str, bool]] = field(default_factory=list)  # set, photo, card, conf, kind, held

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = np.array([(s, p, c, f"{conf:.4f}", k, str(h)) for s, p, c, conf, k, h in self.rows], dtype=str)
        np.savez_compressed(path, crops=np.stack(self.crops) if self.crops else np.zeros((0, 96, 64, 3), np.uint8),
                            rows=rows.reshape(-1, 6))


def fixes_file(name: str) -> Path:
    """Where a set's label fixes are kept (:mod:`referee.recognition.label_fixes`)."""
    return REPO_ROOT / "benchmarks" / "data" / f"{name}_label_fixes.csv"


def with_fixes(truths: dict[Path, list[Truth]], fixes: list[LabelFix], family: str) -> dict[Path, list[Truth]]:
    """``truths`` with each fix applied; a fix naming a photo or label the set does not hold, or
    a card of another deck family, is a ConfigError naming the fix's file and line."""
    by_name = {path.name: path for path in truths}
    out = {path: list(ts) for path, ts in truths.items()}
    for fix in fixes:
        path = by_name.get(fix.photo)
        if path is None:
            raise ConfigError(f"{fix.where}: photo {fix.photo!r} is not one of the set's labelled photos")
        if fix.shows != NO_CARD and parse_card(fix.shows).italian != (family == "italian"):
            raise ConfigError(f"{fix.where}: shows {fix.shows!r}: not a card of the set's {family} deck")
        ts = out[path]
        if not fix.label:
            assert fix.box is not None  # load_label_fixes asks a box of a card the labels leave out
            ts.append(Truth(fix.shows, fix.box, raw=fix.shows))
            continue
        hits = [i for i, t in enumerate(ts) if t.raw == fix.label and (fix.box is None or _same_box(t.box, fix.box))]
        if len(hits) != 1:
            held = ", ".join(f"{t.raw} {t.box}" for t in ts)
            why = "no label" if not hits else "more than one label (give the box)"
            raise ConfigError(f"{fix.where}: {fix.photo} has {why} {fix.label!r}{'' if fix.box is None else f' at {fix.box}'}; "
                              f"its labels: {held}")
        if fix.shows == NO_CARD:
            del ts[hits[0]]
        else:
            ts[hits[0]] = Truth(fix.shows, ts[hits[0]].box, raw=fix.shows)
    return out


def _same_box(a: tuple[float, float, float, float] | None, b: tuple[float, float, float, float], px: float = 2.0) -> bool:
    return a is not None and all(abs(u - v) <= px for u, v in zip(a, b, strict=True))


def set_game(name: str) -> GameFaces | None:
    """The game whose deck a set is (:data:`GAMES`), None for its family's whole deck."""
    return GameFaces.of(GAMES[name]) if name in GAMES else None


def photo_key(path: Path) -> str:
    """A photo's name in a record: its path under ``../shared/photos`` (EPFL's rounds repeat
    file names from one game's folder to the next)."""
    return path.relative_to(shared_dir() / "photos").as_posix()


@dataclass
class Record:
    """One photo's detections (``detect_image``'s result), its size and whether it is held out."""

    set: str
    photo: str
    result: dict[str, Any]
    shape: tuple[int, ...]
    held: bool

    def to_json(self) -> dict[str, Any]:
        return {"set": self.set, "photo": self.photo, "shape": list(self.shape), "held": self.held, **self.result}

    @staticmethod
    def from_json(row: dict[str, Any], held: bool) -> Record:
        result = {k: v for k, v in row.items() if k not in ("set", "photo", "shape", "held")}
        return Record(row["set"], row["photo"], result, tuple(row.get("shape", ())), held)


def run_set(name: str, finder_only: bool, show: Path | None, limit: int, split: str | None = None,
            dump: Dump | None = None, whole_family: bool = False) -> list[Record]:
    """Every photo of the set read; each record says whether the photo is one no ``--real-photos``
    training run sees (the pinochle set's odd blocks, :mod:`referee.recognition.real_crops`).
    ``dump`` and ``show`` score the reads against the labels as the set's files give them."""
    family, loader = SETS[name]
    game = set_game(name)
    every = sorted(loader(shared_dir() / "photos").items())
    items = every[: limit or None]
    names = [p.name for p, _ in every]
    trainable = TRAINABLE.get(family) if name == "pinochle" else None
    classifier: Any = None
    if not finder_only:
        from referee.recognition import CardClassifier

        # --whole-family: every face of the family read, the game's copies still counted
        classifier = CardClassifier.load(family, threads=1, game=None if whole_family else game)
        if dump is not None:
            classifier = Recording(classifier)
    records: list[Record] = []
    for path, truths in items:
        image = cv2.imread(str(path))
        if image is None:
            print(f"unreadable: {path}", file=sys.stderr)
            continue
        if finder_only:
            result = _finder_only(np.asarray(image, np.uint8))
        else:
            config = None if split is None else FinderConfig(split=split)
            pipeline = FramePipeline.create(classifier, config=config)
            pipeline.copies = game.copies if game is not None else 1
            result = detect_image(pipeline, np.asarray(image, np.uint8))
        held = bool(trainable) and not is_training_photo(path.name, names)
        records.append(Record(name, photo_key(path), result, image.shape, held))
        if dump is not None:
            kinds = score_image(path, truths, result, image.shape, Tally(), finder_only)
            for card, kind in zip(result["cards"], kinds, strict=True):
                dump.crops.append(classifier.reads[(card["card"], card["confidence"])])
                dump.rows.append((name, path.name, card["card"], card["confidence"], kind, held))
            classifier.reads.clear()
        if show is not None:
            _draw(show / name / path.name, image, truths, result)
    return records


def tally(records: list[Record], truths: dict[Path, list[Truth]], finder_only: bool = False) -> tuple[Tally, Tally]:
    """(every photo, the held-out photos) scored against ``truths``."""
    by_key = {photo_key(path): (path, ts) for path, ts in truths.items()}
    every, held = Tally(), Tally()
    for r in records:
        path, ts = by_key[r.photo]
        score_image(path, ts, r.result, r.shape, every, finder_only)
        if r.held:
            score_image(path, ts, r.result, r.shape, held, finder_only)
    return every, held


def _finder_only(image: np.ndarray) -> dict[str, Any]:
    import time

    start = time.perf_counter()
    scale = min(1.0, 1280 / image.shape[1])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    dets = CardFinder().find(np.asarray(small, np.uint8))
    keep = sorted({int(np.flatnonzero(dets.group == g)[0]) for g in set(dets.group.tolist())})
    dets = dets[np.array(keep, np.int64)] if keep else dets
    ms = (time.perf_counter() - start) * 1000
    cards = [{"card": "?", "confidence": 1.0, "quad": (q / scale).tolist()} for q in dets.quad]
    return {"cards": cards, "ms": ms}


def _draw(path: Path, image: np.ndarray, truths: list[Truth], result: dict[str, Any]) -> None:
    out = image.copy()
    for t in truths:
        if t.box is not None:
            x0, y0, x1, y1 = (int(v) for v in t.box)
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 255, 0), 2)
    for c in result["cards"]:
        q = np.round(np.array(c["quad"])).astype(np.int32)
        cv2.polylines(out, [q], True, (255, 0, 255), 2)
        cv2.putText(out, f"{c['card']} {c['confidence']:.2f}", tuple(int(v) for v in q[0]), 0, 0.7, (255, 0, 255), 2)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), out)


def _draw_false(folder: Path, falses: list[FalseCard]) -> None:
    """Each photo with a false card, drawn with its labelled boxes and only its false cards."""
    by_photo: dict[Path, list[FalseCard]] = defaultdict(list)
    for f in falses:
        by_photo[f.path].append(f)
    for path, fs in by_photo.items():
        image = cv2.imread(str(path))
        if image is None:
            print(f"unreadable: {path}", file=sys.stderr)
            continue
        _draw(folder / path.name, image, fs[0].truths, {"cards": [f.detection for f in fs]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--finder-only", action="store_true", help="localisation only (no model needed)")
    parser.add_argument("--show", type=Path, help="write annotated photos under this folder")
    parser.add_argument("--limit", type=int, default=0, help="photos per set (0 = all)")
    parser.add_argument("--dump", type=Path, help="write every detection's crop, read and verdict to this .npz")
    parser.add_argument("--split", choices=("both", "outline", "corners"), default=None,
                        help="how the finder splits overlapping cards (FinderConfig.split; default: its default)")
    parser.add_argument("--whole-family", action="store_true",
                        help="read every set over its family's whole deck, not its game's faces, its game's copies still "
                        "counted (the figures before --game)")
    parser.add_argument("--results", type=Path, help="write every photo's detections to this JSON Lines file")
    parser.add_argument("--rescore", type=Path, help="score the detections a --results file holds (no photo read again)")
    parser.add_argument("--list-false", action="store_true", help="print every false card (fixed labels where a set has fixes)")
    parser.add_argument("--show-false", type=Path, help="draw only the photos with a false card, only their false cards, here")
    args = parser.parse_args()
    exit_without_shared("benchmarks/vision_photos.py", "photos")
    cv2.setNumThreads(1)
    dump = Dump() if args.dump else None
    print(f"{'set':26} {'photos':>6} {'cards':>6} {'found':>7} {'right':>12} {'precision':>10} {'ms median':>10}"
          "  false cards per 100 photos: non-card / misread / second box (of them sure)")
    saved: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if args.rescore is not None:
        for line in args.rescore.read_text().splitlines():
            row = json.loads(line)
            saved[row["set"]].append(row)
    kept: list[Record] = []
    for name in args.sets:
        family, loader = SETS[name]
        truths = loader(shared_dir() / "photos")
        fixes = load_label_fixes(fixes_file(name))
        fixed = with_fixes(truths, fixes, family)  # a bad fix stops before any photo is read
        game = None if args.finder_only else set_game(name)
        if game is not None and args.whole_family:
            print(f"{name}: read over the {family} family's whole deck, {game.copies} of each card "
                  f"(referee detect --deck {family} --copies {game.copies})", flush=True)
        elif game is not None:
            print(f"{name}: read as {game.game} (referee detect --game {game.game}: {len(game.faces)} faces, "
                  f"{game.copies} of each)", flush=True)
        if args.rescore is not None:
            names = sorted(path.name for path in truths)
            paths = {photo_key(path): path for path in truths}
            records = [Record.from_json(row, name == "pinochle" and not is_training_photo(Path(row["photo"]).name, names))
                       for row in saved.get(name, [])]
            for r in records:
                if not r.shape:  # the sets scored by the side of the photo need its size
                    r.shape = np.asarray(cv2.imread(str(paths[r.photo]))).shape
        else:
            records = run_set(name, args.finder_only, args.show, args.limit, args.split, dump, args.whole_family)
        kept += records
        every, held = tally(records, truths, args.finder_only)
        rows = [(name, every), *([(f"{name}-held", held)] if held.ms else [])]
        if fixes:
            every, held = tally(records, fixed, args.finder_only)
            rows += [(f"{name} fixed", every), *([(f"{name}-held fixed", held)] if held.ms else [])]
        if name in RANK_ONLY and not args.finder_only:
            every, held = tally(records, with_fixes(RANK_ONLY[name](shared_dir() / "photos"), fixes, family), False)
            rows += [(f"{name} fixed, rank", every), *([(f"{name}-held fixed, rank", held)] if held.ms else [])]
        for label, t in rows:
            right = "-" if args.finder_only or not t.scored else f"{t.right / t.scored:6.1%} ({t.scored})"
            prec = t.good_detections / t.detections if t.detections else 0.0
            per100 = 100 / max(1, len(t.ms))
            false = " / ".join(f"{t.false[k] * per100:.1f} ({t.false_sure[k] * per100:.1f})" for k in FALSE_KINDS)
            print(f"{label:26} {len(t.ms):6d} {t.cards:6d} {t.found / max(1, t.cards):7.1%} {right:>12} "
                  f"{prec:10.1%} {np.median(t.ms) if t.ms else 0:10.1f}  {false}", flush=True)
        if fixes:
            where = ""
            if any(r.held for r in records):
                held_photos = {Path(r.photo).name for r in records if r.held}
                on_held = sum(f.photo in held_photos for f in fixes)
                where = f"; {len(fixes) - on_held} on trained-on photos, {on_held} held out"
            print(f"{name} fixed: the labels with {len(fixes)} fixes checked by eye "
                  f"({fixes_file(name).relative_to(REPO_ROOT)}{where})", flush=True)
        if (args.list_false or args.show_false) and not args.finder_only:
            falses = false_cards(records, fixed)
            if args.list_false:
                print(f"{name}: {len(falses)} false cards{' (labels fixed)' if fixes else ''}", flush=True)
                for f in falses:
                    print(f.row(), flush=True)
            if args.show_false is not None:
                _draw_false(args.show_false / name, falses)
        if name in RANK_ONLY and not args.finder_only:
            print(f"{name}: a read is right when its rank and suit are (the suits read by eye: "
                  f"{DEFAULT_SUITS.relative_to(REPO_ROOT)}); ', rank': on the rank alone, as the labels give it", flush=True)
    if dump is not None and args.dump is not None:
        dump.save(args.dump)
    if args.results is not None:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text("".join(json.dumps(r.to_json()) + "\n" for r in kept))


if __name__ == "__main__":
    try:
        main()
    except ConfigError as exc:  # a malformed label fixes file: the file and line, no traceback
        sys.exit(f"benchmarks/vision_photos.py: error: {exc}")
