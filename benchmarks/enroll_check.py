"""How well ``referee enroll``'s name check finds slips, and how often it cries wolf.

    nice .venv/bin/python benchmarks/enroll_check.py [--swaps 5] [--no-epfl]

Synthetic prints (one render of every face, seed 21, as a club photographs its deck), for each
committed model's training and held-out prints: the warnings and refusals on the print named
right (false alarms), then ``--swaps`` random pairs of files swapped one pair at a time (how many
swapped files the base-model check names, how many swaps are refused), then as many slips of
the classic kind (a card filed under another card of its suit or rank, so one is named twice and
one has no photo).  Then the real EPFL photos as their CSVs name them (:mod:`enroll_photos`):
each game alone as a whole deck (coverage), and games 1-3 and 1-7 enrolled together (the
embedding check; a warning on a seat whose CSV label repeats in its game is a real slip).
A couple of minutes on one core: run it niced.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.cards import parse_card
from referee.paths import exit_without_shared, shared_dir
from referee.recognition import CardClassifier
from referee.recognition.dataset import render_set
from referee.recognition.enroll_check import NameCheck, check_names

U8 = npt.NDArray[np.uint8]


def kin(a: str, b: str) -> bool:
    x, y = parse_card(a), parse_card(b)
    return a != b and (x.suit == y.suit or x.rank == y.rank)


def prints(base: CardClassifier, crops: list[U8], codes: list[str], swaps: int, seed: int) -> str:
    names = [f"{i}:{c}" for i, c in enumerate(codes)]

    def check(named: list[str]) -> NameCheck:
        return check_names(base, crops, named, names, codes)

    clean = check(codes)
    rng = np.random.default_rng(seed)
    named_swaps = refused_swaps = named_slips = refused_slips = 0
    for _ in range(swaps):
        a, b = (int(i) for i in rng.choice(len(codes), 2, replace=False))
        named = list(codes)
        named[a], named[b] = codes[b], codes[a]
        got = check(named)
        named_swaps += sum(any(names[i] in f.names for f in got.named("base")) for i in (a, b))
        refused_swaps += bool(got.certain)
        a = int(rng.integers(len(codes)))
        b = int(rng.choice([j for j, c in enumerate(codes) if kin(c, codes[a])]))
        named = list(codes)
        named[a] = codes[b]  # a's photo filed as b: b named twice, a has no photo
        got = check(named)
        named_slips += any(names[a] in f.names and f.likely == (codes[a],) for f in got.named("base"))
        refused_slips += any(names[a] in f.names for f in got.certain)
    return (f"{clean.base_right:6.1%} {len(clean.findings):5d} {len(clean.certain):5d} | "
            f"{named_swaps:3d}/{2 * swaps:<3d} {refused_swaps:3d}/{swaps:<3d} | "
            f"{named_slips:3d}/{swaps:<3d} {refused_slips:3d}/{swaps:<3d}")


def epfl(base: CardClassifier) -> None:
    path = Path(__file__).resolve().parent / "enroll_photos.py"
    spec = importlib.util.spec_from_file_location("enroll_photos", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["enroll_photos"] = bench
    spec.loader.exec_module(bench)
    cards = [c for c in bench.load_epfl(shared_dir(), base.input_size) if c.crop is not None]
    deck = [c for c in base.labels if c != "back"]
    print("EPFL photos as their CSVs name them (base model reads ~4 %: the base check stays silent)")
    for games in [[g] for g in range(1, 8)] + [[1, 2, 3], list(range(1, 8))]:
        sel = [c for c in cards if c.game in games]
        names = [f"g{c.game}/{c.image.name}:{c.side}" for c in sel]
        got = check_names(base, [c.crop for c in sel], [c.code for c in sel], names,
                          deck if len(games) == 1 else None)
        slips = {n for c, n in zip(sel, names, strict=True) if len(c.accept) > 1}
        twice = ", ".join(f"{f.code}>{f.likely[0] if f.likely else '?'}" for f in got.named("coverage") if f.names)
        emb = got.named("embedding")
        real = sum(f.names[0] in slips for f in emb)
        print(f"  games {games[0]}-{games[-1]}: {len(sel):3d} crops, named twice (likely): {twice or '-'}; "
              f"base {len(got.named('base'))}; embedding {len(emb)} ({real} on a repeated-label seat: "
              f"{', '.join(f'{f.names[0]} {f.code}>{f.likely[0]}' for f in emb) or '-'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swaps", type=int, default=5)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--no-epfl", action="store_true")
    args = parser.parse_args()
    exit_without_shared("benchmarks/enroll_check.py", "photos")
    print(f"{'deck / print':44} {'base':>6} {'warn':>5} {'refus':>5} | {'swapped named':>13} {'refused':>7} | "
          f"{'slip named':>10} {'refused':>7}")
    for deck in ("italian", "french"):
        base = CardClassifier.load(deck, args.model_dir, threads=1)
        training = base.info.extra.get("training", {})
        for kind in ("train_sets", "holdout_sets"):
            for i, name in enumerate(training.get(kind, [])):
                data = render_set(deck, [name], 1, seed=21, back_count=0, workers=1, size=base.input_size)
                codes = [base.labels[j] for j in data.labels]
                row = prints(base, [np.asarray(c, np.uint8) for c in data.images], codes, args.swaps, i)
                tag = "" if kind == "train_sets" else " (held out)"
                print(f"{deck + ' / ' + name + tag:44} {row}", flush=True)
        if deck == "french" and not args.no_epfl:
            epfl(base)


if __name__ == "__main__":
    main()
