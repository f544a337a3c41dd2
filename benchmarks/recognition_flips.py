"""Which real cards two French models read differently through the vision pipeline.

    nice -n 10 .venv/bin/python benchmarks/recognition_flips.py --a models \
        --b build/recognition/candidate/french --out build/recognition/candidate/flips [--sets pinochle epfl] [--limit N]

Runs ``referee detect``'s code (``detect_image``, as ``vision_photos.py`` does) with each model on
every photo and compares them card by card: per labelled card, ``right`` (a detection on it reads
as the label says), ``wrong`` (detections on it, none right) or ``miss`` (none). Prints the
transitions A -> B with the truths and reads that flipped and the kind of each wrong read (ace,
pip or court rank, suit shape C/S or D/H, suit colour), and the detections lying off every
labelled card. Writes ``OUT/flips.json`` and, per set and transition, a montage of the flipped
cards (``OUT/<set>_<a>-<b>.png``: A's crop, then B's, each rectified from the winning quad).
It showed that pip-scale models read finder quads lying inside a 9 or 10 as a 3 or an ace
(models/HISTORY.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from vision_photos import SETS, Truth, on_truth, read_right

from referee.paths import exit_without_shared, shared_dir
from referee.recognition import CardClassifier
from referee.vision.detect import detect_image
from referee.vision.finder import rectify
from referee.vision.pipeline import FramePipeline

PIPS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
TILE = (128, 192)
Read = dict[str, Any]


def status(truth: Truth, cards: list[Read], shape: tuple[int, ...]) -> tuple[str, Read | None, list[Read]]:
    """(right | wrong | miss, the read shown for it, every read on the card)."""
    hits = [c for c in cards if on_truth(truth, np.mean(np.array(c["quad"]), axis=0), shape)]
    if not hits:
        return "miss", None, hits
    right = [c for c in hits if read_right(truth.label, c["card"])]
    best = max(right or hits, key=lambda c: float(c["confidence"]))
    return ("right" if right else "wrong"), best, hits


def kind(truth: str, got: str) -> str:
    """What a wrong read got wrong, as far as the label says (``?`` parts say nothing)."""
    if got == "-":
        return "none"
    want_suit, want_rank, got_suit, got_rank = truth[-1], truth[:-1], got[-1], got[:-1]
    out = []
    if want_rank not in ("?", got_rank):
        if "A" in (want_rank, got_rank):
            out.append("ace rank")
        elif (want_rank in PIPS) != (got_rank in PIPS):
            out.append("pip/court rank")
        else:
            out.append("pip rank" if want_rank in PIPS else "court rank")
    if want_suit not in ("?", got_suit):
        out.append("colour suit" if (want_suit in "CS") != (got_suit in "CS") else "shape suit")
    return "+".join(out) or "right"


def _tile(image: np.ndarray, read: Read | None, text: str) -> np.ndarray:
    tile = np.zeros((TILE[1], TILE[0], 3), np.uint8)
    if read is not None:
        tile = np.asarray(rectify(image, np.array(read["quad"], np.float32), TILE), np.uint8).copy()
    cv2.putText(tile, text, (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1)
    return tile


def _label(read: Read | None) -> str:
    return f"{read['card']} {float(read['confidence']):.2f}" if read else "-"


def compare(a: CardClassifier, b: CardClassifier, sets: list[str], limit: int) -> tuple[list[dict[str, Any]],
                                                                                     dict[str, list[np.ndarray]]]:
    """Per-card and per-photo records, and the montage tiles per ``<set>_<a>-<b>``."""
    records: list[dict[str, Any]] = []
    tiles: dict[str, list[np.ndarray]] = defaultdict(list)
    for name in sets:
        _, loader = SETS[name]
        for path, truths in sorted(loader(shared_dir() / "photos").items())[: limit or None]:
            image = cv2.imread(str(path))
            if image is None:
                print(f"unreadable: {path}", file=sys.stderr)
                continue
            frame = np.asarray(image, np.uint8)
            reads = [detect_image(FramePipeline.create(m), frame)["cards"] for m in (a, b)]
            for k, cards in enumerate(reads):
                off = [c for c in cards if not any(
                    on_truth(t, np.mean(np.array(c["quad"]), axis=0), frame.shape) for t in truths)]
                records.append({"set": name, "photo": path.name, "model": "ab"[k], "detections": len(cards),
                                "off": [(c["card"], round(float(c["confidence"]), 2)) for c in off]})
            for truth in truths:
                sa, ra, hits_a = status(truth, reads[0], frame.shape)
                sb, rb, hits_b = status(truth, reads[1], frame.shape)
                records.append({"set": name, "photo": path.name, "truth": truth.label, "a": sa, "b": sb,
                                "a_read": _label(ra), "b_read": _label(rb),
                                "a_reads": [c["card"] for c in hits_a], "b_reads": [c["card"] for c in hits_b]})
                if sa != sb:
                    tiles[f"{name}_{sa}-{sb}"].append(
                        np.hstack([_tile(frame, ra, f"{truth.label} A {_label(ra)}"), _tile(frame, rb, f"B {_label(rb)}")]))
    return records, tiles


def summary(records: list[dict[str, Any]]) -> list[str]:
    """The transitions per set, what flipped and the off-card detections, as printable lines."""
    lines = []
    cards = [r for r in records if "truth" in r]
    for name in sorted({r["set"] for r in cards}):
        mine = [r for r in cards if r["set"] == name]
        lines.append(f"== {name}: {len(mine)} labelled cards")
        for m in "ab":
            tally = Counter(r[m] for r in mine)
            photos = [r for r in records if r.get("model") == m and r["set"] == name]
            off = Counter(c for p in photos for c, _ in p["off"])
            lines.append(f"  {m.upper()}: right {tally['right']}  wrong {tally['wrong']}  miss {tally['miss']}; "
                         f"detections {sum(p['detections'] for p in photos)}, off every card {sum(off.values())} "
                         f"{dict(off.most_common(8))}")
        moves = Counter((r["a"], r["b"]) for r in mine if r["a"] != r["b"])
        for (sa, sb), n in sorted(moves.items(), key=lambda kv: -kv[1]):
            flipped = [r for r in mine if (r["a"], r["b"]) == (sa, sb)]
            reads = Counter(f"{r['truth']}: {r['a_read'].split()[0]} -> {r['b_read'].split()[0]}" for r in flipped)
            wrong = "b_read" if sb == "wrong" else "a_read" if sa == "wrong" else None
            kinds = Counter(kind(r["truth"], r[wrong].split()[0]) for r in flipped) if wrong else Counter()
            lines.append(f"  {sa} -> {sb}: {n}" + (f"; the wrong reads: {dict(kinds.most_common())}" if wrong else ""))
            lines.append(f"     {dict(reads.most_common(12))}")
    return lines


def write_montages(out: Path, tiles: dict[str, list[np.ndarray]], per_row: int = 6) -> None:
    for key, pairs in tiles.items():
        blank = np.zeros_like(pairs[0])
        rows = [np.hstack(pairs[i:i + per_row] + [blank] * (per_row - len(pairs[i:i + per_row])))
                for i in range(0, len(pairs), per_row)]
        cv2.imwrite(str(out / f"{key}.png"), np.vstack(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, help="model folder A (e.g. models)")
    parser.add_argument("--b", type=Path, required=True, help="model folder B (a candidate)")
    parser.add_argument("--out", type=Path, required=True, help="folder for flips.json and the montages")
    parser.add_argument("--sets", nargs="+", default=["pinochle", "epfl"], choices=["pinochle", "epfl"])
    parser.add_argument("--limit", type=int, default=0, help="photos per set (0 = all)")
    args = parser.parse_args()
    exit_without_shared("benchmarks/recognition_flips.py", "photos")
    cv2.setNumThreads(1)
    a, b = (CardClassifier.load("french", d, threads=1) for d in (args.a, args.b))
    records, tiles = compare(a, b, args.sets, args.limit)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "flips.json").write_text(json.dumps(records))
    write_montages(args.out, tiles)
    print("\n".join(summary(records)))


if __name__ == "__main__":
    main()
