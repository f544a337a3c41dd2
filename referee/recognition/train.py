"""``referee train``: render the synthetic set, train the CNN on the CPU, export ONNX + JSON.

    referee train --deck italian --out models/ --minutes 60 --seed 0

The step count is fitted to ``--minutes`` after timing the first steps and recorded in the
JSON; ``--steps N`` replays exactly that schedule (same seed -> same model on the same
torch build and thread count).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from referee.cards import RECOGNISER_LABELS, deck_family
from referee.paths import REPO_ROOT, models_dir, require_shared
from referee.recognition.dataset import BACK_SHARE, NEGATIVES, SynthSet, cached_set, join_sets
from referee.recognition.faces import DEFAULT_HOLDOUT, face_sets
from referee.recognition.preprocess import INPUT_SIZE, MEAN, STD

if TYPE_CHECKING:
    from referee.recognition.real_crops import RealSet

WARMUP_STEPS = 150
#: Steps at which the total is (re)fitted to the time budget, all within the warm-up.
ESTIMATE_AT = (10, 40, 80, 120, WARMUP_STEPS - 1)
#: Seconds kept back from --minutes for evaluation, calibration and export.
RESERVE_S = 90.0
#: ``--memory-format`` choices. The layout changes the float rounding of the convolutions, so a
#: run replays bit for bit only with the layout (and thread count) it was made with.
MEMORY_FORMATS = ("channels_last", "contiguous")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--recipe", type=Path, default=None, metavar="FILE",
                        help="a recipe file (TOML, e.g. models/italian.recipe.toml) giving the options below "
                             "(referee/recognition/recipe.py); the command line adds --out, --cache, --shared")
    parser.add_argument("--deck", default=None, help="italian or french (required, here or in --recipe)")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: models/)")
    parser.add_argument("--minutes", type=float, default=60.0, help="wall-clock budget, all included")
    parser.add_argument("--steps", type=int, default=None, help="exact number of steps (overrides --minutes)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", type=int, default=60000, help="synthetic training crops (cached)")
    parser.add_argument("--table-samples", type=int, default=0,
                        help="extra crops of cards among other cards, cut as the table pipeline cuts them")
    parser.add_argument("--print-variation", type=float, default=0.0, metavar="P",
                        help="probability that a training face is drawn as another print of its pattern "
                        "(ink shades, line weight, a slightly redrawn figure; "
                        "referee/recognition/print_style.py) (default 0)")
    parser.add_argument("--vary-others", action="store_true",
                        help="with --print-variation: the other cards in a sample (neighbours, occluders, "
                        "the cards the 'back' samples show parts of) and the card backs come from varied "
                        "prints half the time too, so a varied print is no sign of a card")
    parser.add_argument("--real-photos", type=float, default=0.0, metavar="SHARE",
                        help="french only: add this share (of --batch) of real crops to every batch, from the "
                             "training half of the Apache-2.0 pinochle photos (rank-only labels; the other half "
                             "stays held out; default 0)")
    parser.add_argument("--real-decks", nargs="+", default=None, metavar="DECK",
                        help="italian only, with --real-photos: train on the photos of these real Napoletane decks "
                             "(CC BY 4.0; e.g. deck01 deck02), the others stay unseen (referee/recognition/real_decks.py)")
    parser.add_argument("--workers", type=int, default=None, help="render processes (default: --threads)")
    parser.add_argument("--val-per-face", type=int, default=24, help="validation crops per held-out face")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=4e-3)
    parser.add_argument("--threads", type=int, default=2, help="torch threads (and render workers)")
    parser.add_argument("--memory-format", choices=MEMORY_FORMATS, default="channels_last",
                        help="tensor layout while fitting: channels_last trains this network ~1.6x faster on "
                        "one CPU thread and ~2.4x on two (models/HISTORY.md); contiguous replays runs "
                        "made with it")
    parser.add_argument("--holdout", nargs="*", default=None,
                        help="prints held out for validation, e.g. omerkel_scopa_commons/napoletane "
                        "(default: the model card's; give none to train on everything)")
    parser.add_argument("--shared", type=Path, default=None, help="shared data folder (default ../shared)")
    parser.add_argument("--cache", type=Path, default=REPO_ROOT / "build" / "recognition")
    parser.add_argument("--snapshot-minutes", type=float, default=0.0,
                        help="also export an interim model to <cache>/snapshots every N minutes")
    parser.add_argument("--calibrate-on", nargs="+", default=None, metavar="SET",
                        help="fit the softmax temperature on these sets instead of the held-out prints' "
                        "validation crops: PRINT, table:PRINT or crops:FILE.npz "
                        "(see referee/recognition/calibration.py)")
    parser.add_argument("--report-on", nargs="*", default=[], metavar="SET",
                        help="sets whose calibration is reported in the JSON but not fitted on")
    parser.add_argument("--calibration-per-face", type=int, default=24, help="rendered crops per face of a set")
    parser.add_argument("--recalibrate", type=Path, default=None, metavar="MODEL_DIR",
                        help="do not train: refit the temperature of the model in MODEL_DIR on --calibrate-on "
                        "and write it to --out (default: in place)")
    parser.add_argument("--quiet", action="store_true")


def run(args: argparse.Namespace) -> int:
    from referee.recognition.recipe import apply_recipe

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = apply_recipe(args, parser)
    if args.deck is None:
        from referee.errors import ConfigError

        raise ConfigError("--deck: required (italian or french), on the command line or as a recipe's 'deck' key")
    deck = deck_family(args.deck)
    log = _Logger(args.quiet)
    if args.recalibrate is not None:
        _calibrate(args, deck, args.recalibrate, args.out if args.out is not None else args.recalibrate, log)
        return 0
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    real_options(args, deck)
    t0, cpu0 = time.monotonic(), _cpu_s()
    train, val, plan = _data(args, deck, log)
    t1, cpu1 = time.monotonic(), _cpu_s()
    log(f"data ready in {t1 - t0:.0f}s ({(cpu1 - cpu0) / 60:.1f} CPU-min incl. render workers): "
        f"{len(train)} train, {len(val)} validation crops")

    real = _real_set(args, deck, plan, log)
    if real is not None and getattr(args, "real_decks", None):
        from referee.recognition.real_decks import SET

        plan["real_photos"] = {"set": SET, "share": float(args.real_photos), "decks": sorted(args.real_decks),
                               "photos": real.photos, "variants": len(real) // max(1, real.crops)}
        t1, cpu1 = time.monotonic(), _cpu_s()
    elif real is not None:
        from referee.recognition.real_crops import BLOCK, TRAINABLE

        plan["real_photos"] = {"set": TRAINABLE[deck], "share": float(args.real_photos),
                               "block": BLOCK, "photos": real.photos, "crops": real.crops,
                               "variants": len(real) // max(1, real.crops),
                               "given": [code for code, keep in zip(RECOGNISER_LABELS[deck], real.support, strict=True) if keep]}
        t1, cpu1 = time.monotonic(), _cpu_s()

    from referee.recognition.net import CardNet

    model = CardNet(len(RECOGNISER_LABELS[deck]))
    steps = _fit(model, train, args, t0, log, real)
    t2, cpu2 = time.monotonic(), _cpu_s()
    report = evaluate_synthetic(model, val, deck)
    log(f"validation (held-out prints): {json.dumps(report['per_set'])}")
    out = args.out if args.out is not None else models_dir()
    extra = {"training": {**plan, "steps": steps, "seed": args.seed, "batch": args.batch, "lr": args.lr,
                          "threads": args.threads, "memory_format": args.memory_format,
                          "torch": torch.__version__,
                          "minutes_used": round((time.monotonic() - t0) / 60, 1),
                          "cpu_minutes_used": round(time.process_time() / 60, 1),
                          # Rendering (0 when the sets came from the cache) and training apart; CPU
                          # time counts the render workers too, and is the honest figure on a shared machine.
                          "data_wall_minutes": round((t1 - t0) / 60, 1), "data_cpu_minutes": round((cpu1 - cpu0) / 60, 1),
                          "fit_wall_minutes": round((t2 - t1) / 60, 1), "fit_cpu_minutes": round((cpu2 - cpu1) / 60, 1)},
             "validation": report}
    from referee.recognition.export import export

    onnx_path = export(model, deck, out, report["temperature"], extra)
    if args.calibrate_on:
        _calibrate(args, deck, out, out, log)
    log(f"wrote {onnx_path} and {onnx_path.with_suffix('.json')} in {(time.monotonic() - t0) / 60:.1f} min")
    return 0


def _calibrate(args: argparse.Namespace, deck: str, model_dir: Path, out: Path, log: _Logger) -> None:
    """Refit the temperature of the model in ``model_dir`` on ``--calibrate-on``, write to ``out``."""
    from referee.errors import ConfigError
    from referee.recognition.calibration import recalibrate

    if not args.calibrate_on:
        raise ConfigError("--recalibrate needs --calibrate-on SET...")
    recalibrate(model_dir, deck, args.calibrate_on, args.report_on, out, per_face=args.calibration_per_face,
                root=args.shared, cache=args.cache / "calibration", workers=args.workers or args.threads, log=log)


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children (the render workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class _Logger:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[train {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _data(args: argparse.Namespace, deck: str, log: _Logger) -> tuple[SynthSet, SynthSet, dict[str, Any]]:
    root = require_shared("referee train", "faces", args.shared)
    names = [s.name for s in face_sets(deck, root)]
    holdout = list(DEFAULT_HOLDOUT[deck] if args.holdout is None else args.holdout)
    unknown = sorted(set(holdout) - set(names))
    if unknown:
        from referee.errors import ConfigError

        raise ConfigError(f"--holdout: no such {deck} print {unknown}; known: {names}")
    train_sets = [n for n in names if n not in holdout]
    n_faces = sum(len(s.files) for s in face_sets(deck, root) if s.name in train_sets)
    per_face = max(1, args.samples // max(1, n_faces))
    cache = args.cache / (root.resolve().as_posix().replace("/", "_")[-40:])

    def progress(what: str) -> Any:
        last = [0.0]

        def show(done: int, total: int) -> None:
            if time.monotonic() - last[0] > 15 or done == total:
                last[0] = time.monotonic()
                log(f"rendering {what}: {done}/{total} chunks")
        return show

    workers = args.workers or args.threads
    variation = print_variation(args)
    vary_others = bool(getattr(args, "vary_others", False))
    if vary_others and not variation:
        from referee.errors import ConfigError

        raise ConfigError("--vary-others needs --print-variation P (P > 0)")
    looks: dict[str, Any] = {"size": INPUT_SIZE, "print_variation": variation,
                             **({"vary_others": True} if vary_others else {})}
    train = cached_set(cache, deck, train_sets, per_face, args.seed, workers=workers,
                       root=root, progress=progress("training set"), **looks)
    table_per_face = args.table_samples // max(1, n_faces)
    if table_per_face:
        table = cached_set(cache, deck, train_sets, table_per_face, args.seed + 500, workers=workers,
                           root=root, progress=progress("table-style set"), style="table", **looks)
        train = join_sets(train, table)
    val_sets = holdout or train_sets
    val = cached_set(cache, deck, val_sets, args.val_per_face, args.seed + 1000, workers=workers,
                     root=root, progress=progress("validation set"), size=INPUT_SIZE)
    plan = {"train_sets": train_sets, "holdout_sets": holdout, "per_face": per_face,
            "table_per_face": table_per_face, "negatives": {"back": BACK_SHARE},
            **({"print_variation": variation} if variation else {}),
            **({"vary_others": True} if vary_others else {}),
            "train_crops": len(train), "val_crops": len(val)}
    return train, val, plan


def _real_set(args: argparse.Namespace, deck: str, plan: dict[str, Any], log: _Logger) -> RealSet | None:
    """``--real-photos``: the real crops to add to every batch (None when the share is 0): the
    training half of the pinochle photos (french) or the ``--real-decks`` (italian)."""
    share, decks = real_options(args, deck)
    if share == 0:
        return None
    root = require_shared("referee train --real-photos", "photos", args.shared)
    if decks:
        from referee.recognition.real_crops import build_deck_set

        real = build_deck_set(RECOGNISER_LABELS[deck], INPUT_SIZE, args.seed + 700, decks, root)
        log(f"real deck crops: {real.photos} photos of {', '.join(sorted(decks))}, {len(real)} copies "
            f"({real_per_batch(args)} a batch)")
        return real
    from referee.recognition.real_crops import build_real_set

    real = build_real_set(deck, RECOGNISER_LABELS[deck], INPUT_SIZE, args.seed + 700, root)
    log(f"real crops: {real.crops} boxes from {real.photos} photos, {len(real)} copies ({real_per_batch(args)} a batch)")
    return real


def real_options(args: argparse.Namespace, deck: str) -> tuple[float, list[str]]:
    """``--real-photos`` and ``--real-decks``, checked before anything is rendered."""
    from referee.errors import ConfigError

    share = float(getattr(args, "real_photos", 0.0) or 0.0)
    decks = list(getattr(args, "real_decks", None) or [])
    if share == 0:
        if decks:
            raise ConfigError("--real-decks: needs --real-photos SHARE (the share of the batch)")
        return share, decks
    if not 0 < share < 1:
        raise ConfigError(f"--real-photos {share}: expected a share of the batch in 0-1")
    if (deck == "italian") != bool(decks):
        raise ConfigError("--real-photos: the italian deck trains on --real-decks DECK..., the french deck on the "
                          "pinochle photos (--real-decks is italian only)")
    if decks:
        from referee.recognition.real_decks import deck_names

        known = deck_names(args.shared)
        unknown = sorted(set(decks) - set(known))
        if unknown:
            raise ConfigError(f"--real-decks: no such deck {', '.join(unknown)}; known: {', '.join(known)}")
    return share, decks


def real_per_batch(args: argparse.Namespace) -> int:
    """Real crops added to each batch of ``--batch`` synthetic ones (at least one)."""
    return max(1, round(float(args.real_photos) * int(args.batch)))


def print_variation(args: argparse.Namespace) -> float:
    """``--print-variation``, checked (default 0)."""
    p = float(getattr(args, "print_variation", 0.0) or 0.0)
    if not 0 <= p <= 1:
        from referee.errors import ConfigError

        raise ConfigError(f"--print-variation {p}: expected a probability in 0-1")
    return p


def to_batch(images: np.ndarray, rng: np.random.Generator) -> Any:
    """uint8 BGR NHWC -> normalised RGB NCHW tensor, with cheap on-line augmentation."""
    import torch

    put = torch.from_numpy
    x = put(images[..., ::-1].copy()).permute(0, 3, 1, 2).float().div_(255.0)
    n = x.shape[0]
    # Both 180-degree orientations, a little exposure/contrast and a few pixels of shift.
    flip = put(rng.random(n) < 0.5)
    x[flip] = x[flip].flip(2, 3)
    gain = put(rng.uniform(0.8, 1.2, (n, 1, 1, 1)).astype(np.float32))
    bias = put(rng.uniform(-0.08, 0.08, (n, 1, 1, 1)).astype(np.float32))
    x = (x * gain + bias).clamp_(0.0, 1.0)
    dx, dy = (int(v) for v in rng.integers(-3, 4, 2))
    x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    return (x - MEAN) / STD


def real_loss(logits: Any, allowed: Any, support: Any = None) -> Any:
    """Mean negative log-likelihood that each crop is one of its ``allowed`` classes (a rank-only
    label: any of the rank's suits), given that it is one of the ``support`` classes (the
    photographed deck's cards and 'back'; None: any class)."""
    import torch

    inf = float("-inf")
    if support is not None:
        logits = logits.masked_fill(~support, inf)
    logp = torch.log_softmax(logits, dim=1)
    return -torch.logsumexp(logp.masked_fill(~allowed, inf), dim=1).mean()


def _fit(model: Any, data: SynthSet, args: argparse.Namespace, t0: float, log: _Logger,
         real: RealSet | None = None) -> int:
    import torch

    rng = np.random.default_rng(args.seed)
    # the real crops are drawn from a stream of their own, seeded apart from the synthetic one
    real_rng = np.random.default_rng(args.seed + 7)
    n_real = 0 if real is None else real_per_batch(args)
    layout = torch.channels_last if args.memory_format == "channels_last" else torch.contiguous_format
    model.to(memory_format=layout)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    labels = torch.from_numpy(data.labels)
    allowed = None if real is None else torch.from_numpy(real.allowed)
    support = None if real is None else torch.from_numpy(real.support)[None]
    total = args.steps
    step, seen, correct, loss_sum = 0, 0, torch.zeros(()), torch.zeros(())
    order = rng.permutation(len(data))
    cursor = 0
    timing_start = last_snap = time.monotonic()
    snap_every = args.snapshot_minutes * 60
    model.train()
    while total is None or step < total:  # total is set by step ESTIMATE_AT[0] at the latest
        if cursor + args.batch > len(order):
            order, cursor = rng.permutation(len(data)), 0
        idx = np.sort(order[cursor:cursor + args.batch])
        cursor += args.batch
        lr = _lr(step, total, args.lr)
        for g in opt.param_groups:
            g["lr"] = lr
        images = data.images[idx]
        if real is not None and allowed is not None:
            ridx = real_rng.integers(0, len(real), n_real)
            images = np.concatenate([images, real.images[ridx]])
        x, y = to_batch(images, rng).contiguous(memory_format=layout), labels[torch.from_numpy(idx)]
        logits, _ = model(x)
        loss = torch.nn.functional.cross_entropy(logits[:len(idx)], y, label_smoothing=0.05)
        if real is not None and allowed is not None:
            loss = (loss * len(idx) + real_loss(logits[len(idx):], allowed[torch.from_numpy(ridx)], support) * n_real) / (len(idx) + n_real)
            logits = logits[:len(idx)]
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        step += 1
        seen += len(idx)
        correct += (logits.argmax(1) == y).sum()
        loss_sum += loss.detach() * len(idx)
        if args.steps is None and step in ESTIMATE_AT:
            # Only during warm-up, whose learning rate does not depend on the total: so the
            # recorded total replays the same schedule with --steps.
            per_step = (time.monotonic() - timing_start) / step
            left = args.minutes * 60 - (time.monotonic() - t0) - RESERVE_S
            total = max(WARMUP_STEPS + 10, step + int(left / per_step))
            log(f"{per_step * 1000:.0f} ms/step -> {total} steps ({total * args.batch / len(data):.1f} epochs)")
        if snap_every and time.monotonic() - last_snap > snap_every:
            last_snap = time.monotonic()
            _snapshot(model, args, step, log)
        if step % 200 == 0 or step == total:
            log(f"step {step}/{total} lr {lr:.4f} loss {float(loss_sum) / seen:.3f} train acc {float(correct) / seen:.3f} "
                f"({(time.monotonic() - t0) / 60:.1f} min)")
            seen = 0
            correct.zero_()
            loss_sum.zero_()
    model.to(memory_format=torch.contiguous_format)  # export and evaluation see the usual layout
    model.eval()
    return step


def _snapshot(model: Any, args: argparse.Namespace, step: int, log: _Logger) -> None:
    """Export the model as it is now (uncalibrated), for consumers that cannot wait."""
    from referee.recognition.export import export

    out = args.cache / "snapshots"
    export(model, deck_family(args.deck), out, 1.0, {"snapshot_step": step})
    model.train()
    log(f"snapshot at step {step} -> {out}")


def _lr(step: int, total: int | None, peak: float) -> float:
    """Linear warm-up, then cosine decay to zero at ``total``."""
    if step < WARMUP_STEPS or total is None:
        return peak * (step + 1) / WARMUP_STEPS
    frac = (step - WARMUP_STEPS) / max(1, total - WARMUP_STEPS)
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))


def predict_logits(model: Any, images: np.ndarray, batch: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """(logits, embeddings) of the eval-mode model for uint8 BGR NHWC images."""
    import torch

    from referee.recognition.preprocess import to_tensor

    outs, embs = [], []
    with torch.no_grad():
        for i in range(0, len(images), batch):
            logits, emb = model(torch.from_numpy(to_tensor(images[i:i + batch])))
            outs.append(logits.numpy())
            embs.append(emb.numpy())
    return np.concatenate(outs), np.concatenate(embs)


def evaluate_synthetic(model: Any, data: SynthSet, deck: str) -> dict[str, Any]:
    """Per-print accuracy, back rejection, confusion pairs and a fitted softmax temperature."""
    from referee.recognition.metrics import fit_temperature, summarise

    logits, _ = predict_logits(model, data.images)
    names = [data.set_names[i] for i in data.set_ids]
    report = summarise(logits.argmax(1), data.labels, names, RECOGNISER_LABELS[deck])
    report["temperature"] = fit_temperature(logits, data.labels)
    report["negatives_set"] = NEGATIVES
    return report

