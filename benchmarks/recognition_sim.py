"""Recogniser accuracy on crops cut from simulated table frames, the way the pipeline cuts them.

The synthetic training crops and the crops the live pipeline makes differ (lens, light,
overlapping trick cards, the finder's direct warp to the model size); this measures that gap.
For simulated deals (frames carry the true cards and quads), at the moment each trick lies
complete and still and at a moment mid-trick, every face-up card on the table that is at most
``--max-hidden`` hidden (trick cards overlapping, the briscola half under the stock, a hand
passing) is cut out with ``referee.vision.finder.rectify`` straight to the model's input size:

  true     the true quad, each corner moved by the finder's typical error (``--jitter``, a
           fraction of the card height, Gaussian), in a random one of the two portrait orders
  finder   the finder's own quads (IoU >= 0.5 with a true card): exactly the pipeline's crops

and read by the recogniser.  Prints accuracy per print, per mode, per hidden fraction, the
confusion pairs, and the finder's measured corner error (which grounds ``--jitter``).

    .venv/bin/python benchmarks/recognition_sim.py                        # both families
    .venv/bin/python benchmarks/recognition_sim.py --deck italian --seeds 1 --save /tmp/misread
    .venv/bin/python benchmarks/recognition_sim.py --crops build/recognition/sim_crops   # frozen crops
    .venv/bin/python benchmarks/recognition_sim.py --model-dir build/recognition/try --views turn
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.errors import ConfigError
from referee.paths import exit_without_shared, models_dir
from referee.recognition import CardClassifier
from referee.recognition.npz_file import read_npz

#: (game, print) pairs per family: seen prints (Trevisane: the clubs' deck) and held-out ones.
PLAN: dict[str, tuple[tuple[str, str], ...]] = {
    "italian": (
        ("briscola-4", "invido_regional_lowres/trevisane"),
        ("briscola-2", "scopy_lowres_and_textures/trevisane"),
        ("briscola-chiamata", "beezlie_napoletane_digital/napoletane"),
        ("briscola-4", "invido_regional_lowres/piacentine"),
        ("briscola-2", "omerkel_scopa_commons/napoletane"),
    ),
    "french": (
        ("belotta", "bellot_svgcards_lgpl/french"),
        ("binocolo", "english_pattern_fomin_cc0/french"),
        ("belotta", "knoll_vector_cards_pd/french"),
    ),
}
TEXTURES = ("tovaglia", "check", "stripes", "legno", "felt")
HIDDEN_BINS = (0.0, 0.05, 0.2, 0.4, 1.0)
F32 = npt.NDArray[np.float32]


@dataclass
class Tally:
    """Reads of one (mode, print) group: truth, prediction, hidden fraction, confidence."""

    truth: list[str] = field(default_factory=list)
    pred: list[str] = field(default_factory=list)
    hidden: list[float] = field(default_factory=list)
    conf: list[float] = field(default_factory=list)

    def add(self, truth: str, pred: str, hidden: float, conf: float) -> None:
        self.truth.append(truth)
        self.pred.append(pred)
        self.hidden.append(hidden)
        self.conf.append(conf)

    def acc(self, mask: npt.NDArray[np.bool_] | None = None) -> tuple[float, int]:
        ok = np.array([t == p for t, p in zip(self.truth, self.pred, strict=True)], bool)
        if mask is not None:
            ok = ok[mask]
        return (float(ok.mean()) if len(ok) else float("nan")), len(ok)


def iou(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> float:
    a32, b32 = a.astype(np.float32).reshape(-1, 1, 2), b.astype(np.float32).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    union = cv2.contourArea(a32) + cv2.contourArea(b32) - inter
    return float(inter / union) if union > 0 else 0.0


def corner_error(found: npt.NDArray[Any], truth: npt.NDArray[Any]) -> float:
    """Mean corner distance / card height, over the best of the 4 cyclic orders."""
    height = float(np.linalg.norm(truth[3] - truth[0]))
    best = min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).mean()) for k in range(4))
    return best / max(height, 1.0)


def jittered(quad: npt.NDArray[Any], jitter: float, rng: np.random.Generator) -> F32:
    """True quad with Gaussian corner noise (sigma = jitter x card height), either 180° order."""
    height = float(np.linalg.norm(quad[3] - quad[0]))
    q: F32 = quad.astype(np.float32) + rng.normal(0, jitter * height, (4, 2)).astype(np.float32)
    return np.roll(q, 2, axis=0) if rng.random() < 0.5 else q


def trick_frames(sim: Any) -> Iterator[Any]:
    """Per trick of a simulated deal: the frame mid-trick (after its second card) and the one
    with it complete."""
    tricks: dict[tuple[int, int], list[Any]] = defaultdict(list)
    for play in sim.plays:
        tricks[(play.deal, play.trick)].append(play)
    wanted: list[int] = []
    for plays in tricks.values():
        if len(plays) > 2:
            wanted.append(int(np.ceil((plays[1].t + 0.3) * sim.fps)))
        wanted.append(int(np.ceil((plays[-1].t + 0.5) * sim.fps)))
    for index in wanted:
        yield next(sim.frames(index, index + 1))


def frames(game: str, face_set: str, seed: int, texture: str) -> Iterator[Any]:
    """:func:`trick_frames` of a deal of ``game`` in ``face_set`` on ``texture``."""
    from referee.vision.simulator.video import simulate_game

    yield from trick_frames(simulate_game(game, deck=face_set, seed=seed, texture=texture))


@dataclass
class Crops:
    """Crops cut from the frames with their truth: mode, print, card code, hidden fraction."""

    images: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    rows: list[tuple[str, str, str, float]] = field(default_factory=list)
    finder_errors: list[float] = field(default_factory=list)

    def save(self, path: Path) -> None:
        # rows as plain strings (the hidden fraction written out), so the file loads without pickle
        np.savez_compressed(path, images=np.stack(self.images), rows=np.array(self.rows, dtype=str),
                            finder_errors=np.array(self.finder_errors))

    @staticmethod
    def load(path: Path) -> Crops:
        z = read_npz(path, "crops file", ConfigError)  # never unpickled: a crafted file runs code
        rows = [(str(m), str(p), str(c), float(h)) for m, p, c, h in z["rows"]]
        return Crops(list(z["images"]), rows, [float(e) for e in z["finder_errors"]])


def collect(game: str, face_set: str, seed: int, texture: str, size: tuple[int, int], args: argparse.Namespace,
            out: Crops) -> None:
    """Cut the true-quad and finder crops of one simulated deal into ``out``."""
    from referee.vision.finder import CardFinder, FinderConfig, rectify

    rng = np.random.default_rng(seed)
    finder = CardFinder(FinderConfig(crop_size=size))
    for frame in frames(game, face_set, seed, texture):
        cards = [c for c in frame.cards if c.face_up and not c.moving and c.occluded_fraction <= args.max_hidden]
        if not cards:
            continue
        for card in cards:
            out.images.append(rectify(frame.image, jittered(card.quad, args.jitter, rng), size))
            out.rows.append(("true", face_set, card.code, card.occluded_fraction))
        found = finder.find(frame.image)
        for card in cards:
            scores = [iou(q, card.quad) for q in found.quad]
            if scores and max(scores) >= 0.5:
                k = int(np.argmax(scores))
                out.images.append(found.crops[k])
                out.rows.append(("finder", face_set, card.code, card.occluded_fraction))
                out.finder_errors.append(corner_error(found.quad[k], card.quad))


def read_all(clf: CardClassifier, crops: Crops, args: argparse.Namespace) -> dict[tuple[str, str], Tally]:
    """Read every crop (batches of 8, as the pipeline does) and tally per (mode, print)."""
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    saved: Counter[str] = Counter()
    for i in range(0, len(crops.images), 8):
        preds = clf.classify(crops.images[i:i + 8])
        for k, pred in enumerate(preds):
            mode, face_set, code, hidden = crops.rows[i + k]
            tallies[(mode, face_set)].add(code, pred.card, hidden, pred.confidence)
            if args.save and pred.card != code and saved[face_set] < args.save_max:
                saved[face_set] += 1
                name = f"{face_set.replace('/', '_')}_{mode}_{code}_as_{pred.card}_{pred.confidence:.2f}_{saved[face_set]}.png"
                big = cv2.resize(crops.images[i + k], None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST)
                cv2.imwrite(str(args.save / name), big)
    return tallies


def report(deck: str, tallies: dict[tuple[str, str], Tally], errors: list[float]) -> dict[str, Any]:
    out: dict[str, Any] = {"deck": deck}
    print(f"\n== {deck}: accuracy of crops cut from simulated frames")
    print(f"{'mode':7} {'print':42} {'n':>5} {'top-1':>7}  " + "  ".join(
        f"hid<={hi:.2f}" for hi in HIDDEN_BINS[1:]))
    for mode in ("true", "finder"):
        total = Tally()
        for (m, face_set), t in sorted(tallies.items()):
            if m != mode:
                continue
            _row(mode, face_set, t, out)
            total.truth += t.truth
            total.pred += t.pred
            total.hidden += t.hidden
            total.conf += t.conf
        _row(mode, "ALL", total, out)
        pairs = Counter(f"{t}->{p}" for t, p in zip(total.truth, total.pred, strict=True) if t != p)
        out[f"{mode}/confusions"] = [f"{k} x{n}" for k, n in pairs.most_common(12)]
        print(f"  {mode} confusions: {', '.join(out[f'{mode}/confusions'])}")
    if errors:
        e = np.array(errors)
        out["finder_corner_error"] = {"median": float(np.median(e)), "p90": float(np.percentile(e, 90))}
        print(f"finder corner error / card height: median {np.median(e):.3f}, p90 {np.percentile(e, 90):.3f} "
              f"(n={len(e)})")
    return out


def _row(mode: str, name: str, t: Tally, out: dict[str, Any]) -> None:
    acc, n = t.acc()
    hidden = np.array(t.hidden)
    bins = []
    for lo, hi in itertools.pairwise(HIDDEN_BINS):
        a, k = t.acc((hidden > lo if lo > 0 else hidden >= 0) & (hidden <= hi))
        bins.append(f"{100 * a:5.1f}%/{k:<4d}" if k else f"{'-':>11}")
    out[f"{mode}/{name}"] = {"n": n, "acc": round(acc, 4)}
    print(f"{mode:7} {name:42} {n:5d} {100 * acc:6.1f}%  " + "  ".join(bins))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", choices=("italian", "french"), action="append")
    parser.add_argument("--model-dir", type=Path, default=models_dir())
    parser.add_argument("--seeds", type=int, default=1, help="deals per (game, print)")
    parser.add_argument("--prints", type=int, default=None, help="only the first N (game, print) pairs")
    parser.add_argument("--jitter", type=float, default=0.015, help="corner noise sigma / card height")
    parser.add_argument("--max-hidden", type=float, default=0.4)
    parser.add_argument("--views", nargs="*", metavar="VIEW", default=None,
                        help="test-time views averaged with each crop, e.g. turn tight loose; none given: no views "
                             "(default: as the model's JSON says)")
    parser.add_argument("--save", type=Path, default=None, help="write misread crops (x3) as PNGs here")
    parser.add_argument("--save-max", type=int, default=40, help="per print")
    parser.add_argument("--crops", type=Path, default=None,
                        help="folder: reuse <deck>.npz crops from there (write them on the first run), so "
                        "models are compared on the same crops while the finder changes")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    exit_without_shared("benchmarks/recognition_sim.py", "faces")
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    results = []
    for deck in args.deck or ["italian", "french"]:
        t0 = time.monotonic()
        clf = CardClassifier.load(deck, args.model_dir, threads=1, views=args.views)
        path = args.crops / f"{deck}.npz" if args.crops else None
        if path is not None and path.exists():
            crops = Crops.load(path)
            print(f"  crops from {path} ({len(crops.images)})", file=sys.stderr)
        else:
            crops = Crops()
            run = 0
            for game, face_set in PLAN[deck][: args.prints]:
                for seed in range(1, args.seeds + 1):
                    texture = TEXTURES[run % len(TEXTURES)]
                    run += 1
                    collect(game, face_set, seed, texture, clf.input_size, args, crops)
                    print(f"  {game:18} {face_set:40} {texture:9} seed {seed} done ({time.monotonic() - t0:.0f}s)",
                          file=sys.stderr, flush=True)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                crops.save(path)
        tallies = read_all(clf, crops, args)
        errors = crops.finder_errors
        results.append(report(deck, tallies, errors))
        print(f"({time.monotonic() - t0:.0f}s; model {args.model_dir}/{deck}.onnx, views={','.join(clf.views) or 'none'}, "
              f"jitter={args.jitter}, max hidden={args.max_hidden})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ConfigError as exc:  # a crops file that is damaged or holds pickled objects
        sys.exit(f"recognition_sim: {exc}")
