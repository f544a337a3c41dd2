"""What the integrity check at load costs: a recogniser's load time and the sha256 of its graph.

The graph is hashed once, at load (``CardClassifier.load``), never per frame, so this is the
whole cost of the check.

    nice .venv/bin/python benchmarks/model_load.py --repeat 10
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.model_info import model_paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--model-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    folder = args.model_dir or models_dir()
    CardClassifier.load("italian", folder)  # onnxruntime's own start-up is not the model's
    for deck in ("italian", "french"):
        graph = model_paths(deck, folder)[0].read_bytes()
        start = time.perf_counter()
        for _ in range(args.repeat):
            CardClassifier.load(deck, folder)
        load = (time.perf_counter() - start) / args.repeat
        start = time.perf_counter()
        for _ in range(args.repeat):
            hashlib.sha256(graph).hexdigest()
        digest = (time.perf_counter() - start) / args.repeat
        print(f"{deck}: load {load * 1000:.1f} ms, of which sha256 of the {len(graph) / 1e6:.2f} MB graph "
              f"{digest * 1000:.2f} ms ({digest / load:.0%}); per frame: 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
