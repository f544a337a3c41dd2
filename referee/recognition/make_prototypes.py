"""Write ``<deck>.prototypes.npz`` beside a model (:mod:`referee.recognition.prototypes`), from
table-style renders of its training prints, read as the model reads a single photo.

    .venv/bin/python -m referee.recognition.make_prototypes --deck french   # models/french.prototypes.npz
    .venv/bin/python -m referee.recognition.make_prototypes --deck italian --model-dir build/cand
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from referee.errors import ModelError
from referee.recognition.prototypes import Prototypes

#: renders a face: the French 9s and 10s are in three of its seven training prints
PER_FACE = 6


def render_prototypes(deck: str, model_dir: Path, per_face: int = PER_FACE, workers: int = 1,
                      cache: Path | None = None) -> Prototypes:
    """Prototypes of the model in ``model_dir`` from table-style renders of its training prints
    (the model's JSON ``training.train_sets``), read as the model reads a single photo (its
    views), seeded like the calibration renders."""
    from referee.paths import REPO_ROOT
    from referee.recognition.calibration import SEED_OFFSET
    from referee.recognition.classifier import CardClassifier
    from referee.recognition.dataset import cached_set

    clf = CardClassifier.load(deck, model_dir, threads=1)
    training = clf.info.extra.get("training", {})
    names = training.get("train_sets") if isinstance(training, dict) else None
    if not isinstance(names, list) or not names:
        raise ModelError(f"{model_dir}/{deck}.json: no training.train_sets: the prints to make prototypes from")
    seed = int(training.get("seed", 0)) + SEED_OFFSET
    data = cached_set(cache or REPO_ROOT / "build" / "recognition" / "calibration", deck, names, per_face, seed,
                      workers=workers, style="table", size=clf.input_size)
    cards = data.labels != clf.labels.index("back")
    images, truth = data.images[cards], data.labels[cards]
    logits, emb = (np.concatenate(a) for a in zip(*(clf.run(list(images[i:i + 64])) for i in range(0, len(images), 64)),
                                                 strict=True))
    right = logits.argmax(axis=1) == truth
    return Prototypes.from_embeddings([clf.labels[i] for i in truth[right]], emb[right], clf.model_sha256)


def main() -> None:
    import argparse

    from referee.paths import models_dir

    parser = argparse.ArgumentParser(description="Write <deck>.prototypes.npz beside a model, from renders "
                                     "of its training prints.")
    parser.add_argument("--deck", required=True, choices=("italian", "french"))
    parser.add_argument("--model-dir", type=Path, default=None, help="default: the committed models/")
    parser.add_argument("--per-face", type=int, default=PER_FACE)
    args = parser.parse_args()
    folder = args.model_dir or models_dir()
    protos = render_prototypes(args.deck, folder, args.per_face)
    out = folder / f"{args.deck}.prototypes.npz"
    protos.save(out)
    print(f"{out}: {len(protos.codes)} cards, model sha256 {protos.model_sha256[:12]}")


if __name__ == "__main__":
    main()
