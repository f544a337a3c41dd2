"""Test-time views for the recogniser: each crop read as it is and turned 180 degrees (and, with
``--zoom``, cut a little tighter and a little looser), the reads combined into one, against the
plain read, on the figures ``recognition_accuracy.py`` and ``recognition_negatives.py`` report.

    nice -n 19 .venv/bin/python benchmarks/recognition_views.py --deck french [--zoom] [--model-dir DIR]

Combinations: ``probs`` = mean of the views' calibrated probabilities (what the runtime does:
``CardClassifier(views=...)``, :mod:`referee.recognition.views`), ``logits`` = mean of their logits. Non-cards: the paper and
card-part crops of ``recognition_negatives.py`` and rendered ``back`` crops, read as a card at
>= 0.3 / >= 0.9; real photos: the in-contract boxes (the held-out half for french) as
photographed and at the box camera's sizes, with the sure (>= 0.8) reads that are wrong.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from referee.cards import BACK
from referee.paths import REPO_ROOT, exit_without_shared, models_dir, shared_dir
from referee.recognition import CardClassifier
from referee.recognition.dataset import cached_set
from referee.recognition.evaluate import on_photos, on_synthetic
from referee.recognition.photo_review import load_review
from referee.recognition.preprocess import check_crop, resize_crop
from referee.recognition.views import VIEWS, expand, reads

sys.path.insert(0, str(Path(__file__).parent))
from recognition_accuracy import CAMERA_HEIGHTS
from recognition_negatives import drawn_crops, rendered_crops

U8 = np.ndarray


class ViewsClassifier(CardClassifier):
    """The classifier with its runtime views (mean of the views' probabilities), or with
    ``mode = "logits"`` the mean of their logits instead."""

    mode: str = "probs"

    def run(self, crops: Sequence[Any]) -> tuple[Any, Any]:
        if self.mode == "probs" or not self.views or len(crops) == 0:
            return super().run(crops)
        views, self.views = self.views, ()
        try:
            every = list(expand(np.stack([resize_crop(check_crop(c, i), self.input_size)
                                          for i, c in enumerate(crops)]), views))
            logits, emb = super().run(every)
        finally:
            self.views = views
        k, n = reads(views), len(crops)
        return logits.reshape(k, n, -1).mean(0), emb.reshape(k, n, -1).mean(0)


def card_reads(clf: CardClassifier, images: Sequence[U8]) -> str:
    preds = [p for i in range(0, len(images), 16) for p in clf.classify(list(images[i:i + 16]))]
    conf = np.array([p.confidence for p in preds if p.card != BACK])
    return f"{int((conf >= 0.3).sum())}/{int((conf >= 0.9).sum())} of {len(images)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", choices=("italian", "french"), required=True)
    parser.add_argument("--model-dir", type=Path, default=models_dir())
    parser.add_argument("--zoom", action="store_true", help="also the tight and loose cuts")
    parser.add_argument("--val-per-face", type=int, default=30)
    parser.add_argument("--negatives", type=int, default=400, help="paper and card-part crops each; rendered backs")
    parser.add_argument("--only", nargs="+", metavar="VIEWS:MODE",
                        help="just these settings, e.g. plain turn,tight,loose:logits (default: every one)")
    args = parser.parse_args()
    exit_without_shared("benchmarks/recognition_views.py", "photos")
    clf = ViewsClassifier.load(args.deck, args.model_dir, threads=1, views=())
    assert isinstance(clf, ViewsClassifier)
    plan = clf.info.extra["training"]
    seed = int(plan.get("seed", 0))
    cache = REPO_ROOT / "build" / "recognition" / "bench"
    held = cached_set(cache, args.deck, plan["holdout_sets"], args.val_per_face, seed + 2000, size=clf.input_size)
    seen = cached_set(cache, args.deck, plan["train_sets"], 4, seed + 3000, size=clf.input_size)
    negatives = {**drawn_crops(args.deck, args.negatives, clf.input_size),
                 **{k: v[:args.negatives] for k, v in
                    rendered_crops(args.deck, args.model_dir, args.negatives, clf.input_size).items()}}
    settings: list[tuple[tuple[str, ...], str]] = [((), "logits"), (("turn",), "logits"), (("turn",), "probs")]
    if args.zoom:
        settings += [(("turn", "tight", "loose"), "logits"), (("turn", "tight", "loose"), "probs"),
                     (("tight", "loose"), "logits")]
    if args.only:
        settings = [(() if s == "plain" else tuple(s.partition(":")[0].split(",")), s.partition(":")[2] or "logits")
                    for s in args.only]
        unknown = {v for views, _ in settings for v in views} - set(VIEWS)
        if unknown:
            parser.error(f"--only: no such view {sorted(unknown)}; known: plain, {', '.join(VIEWS)}")
    for views, mode in settings:
        t = time.monotonic()
        clf.views, clf.mode = views, mode
        name = "+".join(("plain", *views)) + ("" if not views else f" ({mode})")
        print(f"\n== {args.deck} {name}")
        for label, data in (("held-out prints", held), ("seen prints", seen)):
            r = on_synthetic(clf, data)
            sets = "  ".join(f"{k.split('/')[0][:12]} {s['acc']:.4f}" for k, s in r["per_set"].items())
            split = "  ".join(f"{k.split('/')[0][:12]} c/p {v.get('courts', [0, 0])[1]:.3f}/{v.get('pips', [0, 0])[1]:.3f}"
                              for k, v in r["per_set_courts_pips"].items()) if label == "held-out prints" else ""
            print(f"{label}: acc {r['acc']:.4f} back->card {r['back_called_card']:.4f}  {sets}  {split}")
            if label == "held-out prints":
                print(f"  confusions: {', '.join(r['confusions'][:8])}")
        photos = on_photos(clf, args.deck, shared_dir(), straighten=True, review=load_review(), heights=CAMERA_HEIGHTS)
        c = photos.get("in_contract_held_out") or photos.get("in_contract")
        if c:
            print(f"real in contract{' held-out half' if 'in_contract_held_out' in photos else ''} (n={c['n']}): "
                  f"card {c['card_acc']:.4f} rank {c['rank_acc']:.4f} sure {c['sure_share']:.3f} sure-wrong {c['sure_wrong']}")
            print(f"  wrong: {'; '.join(c['wrong'])}")
            print("  at " + "  ".join(f"{h}px {s['card_acc']:.4f} (sure-wrong {s['sure_wrong']})"
                                      for h, s in photos["in_contract_at_height"].items()))
        print("non-cards read as a card >=0.3/>=0.9: " + "  ".join(f"{k} {card_reads(clf, v)}" for k, v in negatives.items()))
        print(f"({time.monotonic() - t:.0f}s)")


if __name__ == "__main__":
    main()
