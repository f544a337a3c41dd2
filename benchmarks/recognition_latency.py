"""Recogniser latency: ms per crop at batch 1 and 8 on ONE thread, and model sizes.

    .venv/bin/python benchmarks/recognition_latency.py [--model-dir models] [--repeat 200]

Prints the model-only time (one onnxruntime call on a prepared batch) and the end-to-end
``classify`` time (resize + normalise + run + top-k) per crop.  Target: <= 1 ms per crop at
batch 8, model <= 5 MB.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.classifier import VIEW_ROWS


def per_crop_ms(fn: Callable[[], object], batch: int, repeat: int) -> tuple[float, float]:
    """(best, median) ms per crop; on a shared machine the best is the uncontended figure."""
    for _ in range(10):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1000 / batch, float(np.median(times)) * 1000 / batch


def _calls(clf: CardClassifier, parts: list[np.ndarray]) -> None:
    for part in parts:
        clf._session.run(None, {clf._input_name: part})  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=models_dir())
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--views", nargs="*", metavar="VIEW", default=None,
                        help="test-time views, e.g. turn tight loose; none given: no views (default: as the model's JSON says)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'deck':8} {'MB':>5} {'batch':>5} {'model ms/crop best/median':>26} "
          f"{'classify ms/crop best/median':>29}")
    for deck in ("italian", "french"):
        path = args.model_dir / f"{deck}.onnx"
        if not path.exists():
            print(f"{deck:8} missing {path}")
            continue
        clf = CardClassifier.load(deck, args.model_dir, threads=1, views=args.views)
        size_mb = path.stat().st_size / 1e6
        for batch in (1, 8):
            crops = [rng.integers(0, 255, (150, 100, 3), np.uint8) for _ in range(batch)]
            tensor = clf.prepare(crops)  # with the views, every read of every crop
            rows = VIEW_ROWS if clf.views else len(tensor)  # the views run in calls of VIEW_ROWS, as at run time
            run = partial(_calls, clf, [tensor[i:i + rows] for i in range(0, len(tensor), rows)])
            model = per_crop_ms(run, batch, args.repeat)
            full = per_crop_ms(partial(clf.classify, crops), batch, args.repeat)
            print(f"{deck:8} {size_mb:5.2f} {batch:5d} {model[0]:17.3f} / {model[1]:6.3f} "
                  f"{full[0]:20.3f} / {full[1]:6.3f}")
        print(f"{'':8} views: {', '.join(clf.views) or 'none'}")
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
