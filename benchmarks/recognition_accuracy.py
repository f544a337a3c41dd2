"""Recogniser accuracy: held-out synthetic prints, seen prints, and the real shared photos.

    .venv/bin/python benchmarks/recognition_accuracy.py [--deck italian|french] [--json out.json]

The held-out prints and render seed are read from the model's JSON (what training used),
so the figures are for prints the model never saw.  Real photos are cropped by their
boxes, either straightened (card outline found inside the box) or raw.

The French real photos are a pinochle deck (9 to ace, two of each), so they are also read as
``referee detect --game binocolo`` reads them (``photos_as_binocolo``: only that game's 24 faces
and ``back``), the way the box reads a table whose game it knows; the 52-card figure above it
stays the one the targets are judged by.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from referee.paths import REPO_ROOT, exit_without_shared, models_dir, shared_dir
from referee.recognition import CardClassifier
from referee.recognition.dataset import cached_set
from referee.recognition.evaluate import on_photos, on_synthetic
from referee.recognition.game_faces import GameFaces
from referee.recognition.photo_review import load_review

#: card heights (px) at which the real in-contract crops are scored again (hardware/README.md,
#: a 9.5 cm card on a 90 cm table): the Camera Module 3's full-resolution stream (about 245 px),
#: a 1080p USB webcam (about 100 px) and the input contract's smallest card (80 px)
CAMERA_HEIGHTS = (245, 160, 100, 80)
#: the game the French real photos' deck (pinochle: 9 to ace, two of each) is played as here
PHOTO_GAME = "binocolo"


def evaluate(deck: str, model_dir: Path, seen_per_face: int, val_per_face: int) -> dict[str, Any]:
    clf = CardClassifier.load(deck, model_dir, threads=2)
    plan = clf.info.extra.get("training", {})
    seed = int(plan.get("seed", 0))
    cache = REPO_ROOT / "build" / "recognition" / "bench"
    out: dict[str, Any] = {}
    holdout = plan.get("holdout_sets", [])
    if holdout:
        data = cached_set(cache, deck, holdout, val_per_face, seed + 2000, size=clf.input_size)
        out["held_out_prints"] = on_synthetic(clf, data)
    seen = plan.get("train_sets", [])
    if seen and seen_per_face:
        data = cached_set(cache, deck, seen, seen_per_face, seed + 3000, size=clf.input_size)
        out["seen_prints_new_renders"] = on_synthetic(clf, data)
    # The review (benchmarks/data/photo_review.csv) marks the boxes outside the input contract.
    # ... and the in-contract boxes again, seen as small as the box's camera sees a card (JPEG 60)
    out["photos_straightened"] = on_photos(clf, deck, shared_dir(), straighten=True, review=load_review(),
                                           heights=CAMERA_HEIGHTS)
    out["photos_raw_box"] = on_photos(clf, deck, shared_dir(), straighten=False)
    if deck == "french":
        # the photographed deck's own game: what a box told the game reads (its faces alone)
        game = CardClassifier.load(deck, model_dir, threads=2, game=GameFaces.of(PHOTO_GAME))
        out["photos_as_binocolo"] = on_photos(game, deck, shared_dir(), straighten=True, review=load_review())
    return out


def show(deck: str, report: dict[str, Any]) -> None:
    print(f"\n== {deck}")
    for key in ("held_out_prints", "seen_prints_new_renders"):
        r = report.get(key)
        if not r:
            continue
        print(f"{key}: acc {r['acc']:.4f}  cards->back {r['cards_called_back']:.4f}  "
              f"back->card {r['back_called_card']:.4f}")
        split = r.get("per_set_courts_pips", {})
        for name, s in r["per_set"].items():
            parts = "  ".join(f"{kind} {acc:.4f} (n={n})" for kind, (n, acc) in split.get(name, {}).items())
            print(f"  {name:45} n={s['n']:5d} acc={s['acc']:.4f}  {parts}")
        print(f"  confusions: {', '.join(r['confusions'][:10])}")
    for key in ("photos_straightened", "photos_raw_box", "photos_as_binocolo"):
        r = report.get(key, {})
        if r.get("n"):
            print(f"{key} ({r['source']}, n={r['n']}): rank {r['rank_acc']:.3f}  suit {r['suit_acc']}  "
                  f"card {r['card_acc_where_suit_known']} (n={r['n_suit_known']})  back {r['called_back']}")
            print(f"  per rank: {r['per_rank']}  confusions: {', '.join(r['rank_confusions'])}")
            c = r.get("in_contract")
            if c:
                print(f"  in contract (n={c['n']}, reviewed by eye): rank {c['rank_acc']:.3f}  card {c['card_acc']:.3f}  "
                      f"back {c['called_back']}  sure>=0.8 {c['sure_share']:.3f} of them wrong {c['sure_wrong']}  "
                      f"| outside (n={c['n_outside']}): rank {c['rank_acc_outside']:.3f}  label fixes {c['label_fixes']}")
                print(f"  wrong in contract: {'; '.join(c['wrong'])}")
            h = r.get("in_contract_held_out")
            if h:
                print(f"  in contract, held-out half of the photos (never trained on; n={h['n']}): rank {h['rank_acc']:.3f}  "
                      f"card {h['card_acc']:.3f}  back {h['called_back']}  sure>=0.8 {h['sure_share']:.3f} of them wrong {h['sure_wrong']}")
                print(f"  wrong there: {'; '.join(h['wrong'])}")
            for height, s in r.get("in_contract_at_height", {}).items():
                print(f"  the same boxes{' (held-out half)' if h else ''} seen {height} px tall, JPEG 60 (n={s['n']}): "
                      f"rank {s['rank_acc']:.3f}  card {s['card_acc']:.3f}  back {s['called_back']}  "
                      f"sure>=0.8 {s['sure_share']:.3f} of them wrong {s['sure_wrong']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", choices=("italian", "french"), action="append")
    parser.add_argument("--model-dir", type=Path, default=models_dir())
    parser.add_argument("--seen-per-face", type=int, default=4)
    parser.add_argument("--val-per-face", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    exit_without_shared("benchmarks/recognition_accuracy.py", "photos")
    results = {}
    for deck in args.deck or ["italian", "french"]:
        t = time.monotonic()
        results[deck] = evaluate(deck, args.model_dir, args.seen_per_face, args.val_per_face)
        show(deck, results[deck])
        print(f"({time.monotonic() - t:.0f}s)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
