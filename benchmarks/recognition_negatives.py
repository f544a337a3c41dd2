"""Non-cards read as cards: how often each model accepts what is not a face-up card.

    .venv/bin/python benchmarks/recognition_negatives.py --deck italian \
        --model-dir models --model-dir build/recognition/candidate/italian

Three kinds of crop, each counted at the pipeline's thresholds (a read >= 0.3 is a detection,
``FramePipeline.min_confidence``; >= 0.6 is what the stock hypotheses need; >= 0.9 is 'sure'):

  rendered-base   ``back``-class crops as training renders them (backs, bare cloth, clutter,
                  a crop mostly off a card), a fresh seed, of the model's training prints
  rendered-table  the same, half of them backs lying among and under other faces
  sim-finder      simulated deals: the finder's quads with IoU < 0.3 to every face-up card
                  (mostly the table's ArUco markers and stock edges)
  sim-facedown    simulated deals: the true quads of the face-down cards (the stock), with the
                  finder's kind of corner error
  paper           marks on white paper (``non_card_crops.render_paper_clutter``: pip-scale models read
                  drawings on sheets as aces), every 7th face of every print of the deck nearby
  card-part       a part of a card, 35-65% of its width and height, stretched to a crop
                  (``non_card_crops.render_card_zoom``: quads inside a 9/10 read as a 3 or an ace)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from referee.cards import BACK
from referee.paths import REPO_ROOT, exit_without_shared, models_dir
from referee.recognition import CardClassifier
from referee.recognition.dataset import cached_set

sys.path.insert(0, str(Path(__file__).parent))
from non_card_crops import render_card_zoom, render_paper_clutter
from recognition_sim import frames, iou, jittered

#: (game, print, seed, texture) per family: the decks the clubs play with and a held-out one.
DEALS = {
    "italian": (("briscola-2", "scopy_lowres_and_textures/trevisane", 1, "felt"),
                ("briscola-4", "invido_regional_lowres/trevisane", 2, "tovaglia"),
                ("briscola-2", "invido_regional_lowres/trevisane", 3, "check"),
                ("briscola-chiamata", "beezlie_napoletane_digital/napoletane", 1, "legno"),
                ("briscola-4", "invido_regional_lowres/piacentine", 1, "stripes"),
                ("briscola-2", "omerkel_scopa_commons/napoletane", 2, "felt"),
                ("briscola-4", "scopy_lowres_and_textures/trevisane", 4, "legno")),
    "french": (("belotta", "bellot_svgcards_lgpl/french", 1, "felt"),
               ("binocolo", "english_pattern_fomin_cc0/french", 2, "tovaglia"),
               ("belotta", "knoll_vector_cards_pd/french", 3, "check")),
}
THRESHOLDS = (0.3, 0.6, 0.9)


def sim_crops(deck: str, size: tuple[int, int]) -> dict[str, list[np.ndarray]]:
    from referee.vision.finder import CardFinder, FinderConfig, rectify

    out: dict[str, list[np.ndarray]] = {"sim-finder": [], "sim-facedown": []}
    for game, face_set, seed, texture in DEALS[deck]:
        rng = np.random.default_rng(seed)
        finder = CardFinder(FinderConfig(crop_size=size))
        for frame in frames(game, face_set, seed, texture):
            up = [c.quad for c in frame.cards if c.face_up]
            for c in frame.cards:
                if not c.face_up:
                    out["sim-facedown"].append(rectify(frame.image, jittered(c.quad, 0.06, rng), size))
            found = finder.find(frame.image)
            out["sim-finder"] += [found.crops[k] for k, q in enumerate(found.quad) if all(iou(q, u) < 0.3 for u in up)]
    return out


def rendered_crops(deck: str, model_dir: Path, count: int, size: tuple[int, int]) -> dict[str, list[np.ndarray]]:
    plan = json.loads((model_dir / f"{deck}.json").read_text())["training"]
    cache = REPO_ROOT / "build" / "recognition" / "negatives"
    out = {}
    for style in ("base", "table"):
        data = cached_set(cache, deck, plan["train_sets"], 0, 9100, back_count=count, workers=1, style=style,
                          size=size)
        out[f"rendered-{style}"] = list(data.images)
    return out


def drawn_crops(deck: str, count: int, size: tuple[int, int]) -> dict[str, list[np.ndarray]]:
    """The ``paper`` and ``card-part`` crops, seeded (the same for every model)."""
    from referee.recognition import synth
    from referee.recognition.faces import face_sets, read_bgra, texture_files

    textures = [read_bgra(p)[..., :3].copy() for p in texture_files(None)]
    pool = [synth.prepare_art(read_bgra(p), 0.0) for s in face_sets(deck, None) for p in list(s.files.values())[::7]]
    paper = [render_paper_clutter(textures, pool, np.random.default_rng([99, i]), size) for i in range(count)]
    parts = [render_card_zoom(pool[i % len(pool)], textures, np.random.default_rng([98, i]), size)
             for i in range(count)]
    return {"paper": paper, "card-part": parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", choices=("italian", "french"), required=True)
    parser.add_argument("--model-dir", type=Path, action="append", help="repeat to compare (default: models/)")
    parser.add_argument("--rendered", type=int, default=1500, help="rendered crops per style")
    parser.add_argument("--drawn", type=int, default=400, help="paper and card-part crops each (0: none)")
    args = parser.parse_args()
    exit_without_shared("benchmarks/recognition_negatives.py", "faces")
    dirs = args.model_dir or [models_dir()]
    by_size: dict[tuple[int, int], dict[str, list[np.ndarray]]] = {}  # the same crops, cut at each model's input
    print(f"{'model':40} {'crops':15} {'n':>5}  " + "  ".join(f"card>={t}" for t in THRESHOLDS))
    for d in dirs:
        clf = CardClassifier.load(args.deck, d, threads=1)
        size = clf.input_size
        if size not in by_size:
            crops = {**rendered_crops(args.deck, dirs[0], args.rendered, size), **sim_crops(args.deck, size)}
            if args.drawn:
                crops.update(drawn_crops(args.deck, args.drawn, size))
            by_size[size] = crops
        for kind, images in by_size[size].items():
            preds = [p for i in range(0, len(images), 8) for p in clf.classify(images[i:i + 8])]
            conf = np.array([p.confidence for p in preds if p.card != BACK])
            counts = "  ".join(f"{int((conf >= t).sum()):8d}" for t in THRESHOLDS)
            print(f"{d!s:40} {kind:15} {len(images):5d}  {counts}")


if __name__ == "__main__":
    main()
