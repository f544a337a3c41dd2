"""Training a card recogniser: render the synthetic sets, fit the CNN on the CPU, export ONNX + JSON.

    train(TrainOptions(deck="italian", minutes=60, seed=0))     # what ``referee train`` runs

The step count is fitted to ``minutes`` after timing the first steps and recorded in the JSON;
``steps`` replays exactly that schedule (same seed -> same model on the same torch build and
thread count). The options: :class:`~referee.recognition.train_options.TrainOptions`; the
command line: ``referee/cli/train.py``.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.paths import models_dir, require_shared
from referee.recognition.dataset import BACK_SHARE, NEGATIVES, SynthSet, cached_set, join_sets
from referee.recognition.faces import DEFAULT_HOLDOUT, face_sets
from referee.recognition.preprocess import INPUT_SIZE, MEAN, STD
from referee.recognition.train_options import TrainOptions

if TYPE_CHECKING:
    from referee.recognition.real_crops import RealSet

WARMUP_STEPS = 150
#: Steps at which the total is (re)fitted to the time budget, all within the warm-up.
ESTIMATE_AT = (10, 40, 80, 120, WARMUP_STEPS - 1)
#: Seconds kept back from --minutes for evaluation, calibration and export.
RESERVE_S = 90.0
def recalibrate(options: TrainOptions) -> None:
    """Refit the temperature of the model in ``options.recalibrate`` on ``calibrate_on`` and write
    it to ``out`` (default: in place); nothing is trained."""
    if options.recalibrate is None:
        raise ConfigError("--recalibrate MODEL_DIR: which model to refit")
    _calibrate(options, options.recalibrate, options.out if options.out is not None else options.recalibrate,
               _Logger(options.quiet))


def train(options: TrainOptions) -> Path:
    """Train the model ``options`` describe and write it (and its JSON) to ``options.out``; the
    ONNX file written. A bad option is a ConfigError before anything is rendered or written."""
    deck = options.deck
    log = _Logger(options.quiet)
    import torch

    torch.manual_seed(options.seed)
    torch.set_num_threads(options.threads)
    check_real_decks(options)
    t0, cpu0 = time.monotonic(), _cpu_s()
    synthetic, val, plan = _data(options, log)
    t1, cpu1 = time.monotonic(), _cpu_s()
    log(f"data ready in {t1 - t0:.0f}s ({(cpu1 - cpu0) / 60:.1f} CPU-min incl. render workers): "
        f"{len(synthetic)} train, {len(val)} validation crops")

    real = _real_set(options, log)
    if real is not None and options.real_decks:
        from referee.recognition.real_decks import SET

        plan["real_photos"] = {"set": SET, "share": options.real_photos, "decks": sorted(options.real_decks),
                               "photos": real.photos, "variants": len(real) // max(1, real.crops)}
        t1, cpu1 = time.monotonic(), _cpu_s()
    elif real is not None:
        from referee.recognition.real_crops import BLOCK, TRAINABLE

        plan["real_photos"] = {"set": TRAINABLE[deck], "share": options.real_photos,
                               "block": BLOCK, "photos": real.photos, "crops": real.crops,
                               "variants": len(real) // max(1, real.crops),
                               "given": [code for code, keep in zip(RECOGNISER_LABELS[deck], real.support, strict=True) if keep]}
        t1, cpu1 = time.monotonic(), _cpu_s()

    from referee.recognition.net import CardNet

    model = CardNet(len(RECOGNISER_LABELS[deck]))
    steps = _fit(model, synthetic, options, t0, log, real)
    t2, cpu2 = time.monotonic(), _cpu_s()
    report = evaluate_synthetic(model, val, deck)
    log(f"validation (held-out prints): {json.dumps(report['per_set'])}")
    out = options.out if options.out is not None else models_dir()
    extra = {"training": {**plan, "steps": steps, "seed": options.seed, "batch": options.batch, "lr": options.lr,
                          "threads": options.threads, "memory_format": options.memory_format,
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
    if options.calibrate_on:
        _calibrate(options, out, out, log)
    log(f"wrote {onnx_path} and {onnx_path.with_suffix('.json')} in {(time.monotonic() - t0) / 60:.1f} min")
    return onnx_path


def _calibrate(options: TrainOptions, model_dir: Path, out: Path, log: _Logger) -> None:
    """Refit the temperature of the model in ``model_dir`` on ``calibrate_on``, write to ``out``."""
    from referee.recognition.calibration import recalibrate as refit

    if not options.calibrate_on:
        raise ConfigError("--recalibrate needs --calibrate-on SET...")
    refit(model_dir, options.deck, options.calibrate_on, options.report_on, out, per_face=options.calibration_per_face,
          root=options.shared, cache=options.cache / "calibration", workers=options.render_workers, log=log)


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


def _data(options: TrainOptions, log: _Logger) -> tuple[SynthSet, SynthSet, dict[str, Any]]:
    deck = options.deck
    root = require_shared("referee train", "faces", options.shared)
    names = [s.name for s in face_sets(deck, root)]
    holdout = list(DEFAULT_HOLDOUT[deck] if options.holdout is None else options.holdout)
    unknown = sorted(set(holdout) - set(names))
    if unknown:
        raise ConfigError(f"--holdout: no such {deck} print {unknown}; known: {names}")
    train_sets = [n for n in names if n not in holdout]
    n_faces = sum(len(s.files) for s in face_sets(deck, root) if s.name in train_sets)
    per_face = max(1, options.samples // max(1, n_faces))
    cache = options.cache / (root.resolve().as_posix().replace("/", "_")[-40:])

    def progress(what: str) -> Any:
        last = [0.0]

        def show(done: int, total: int) -> None:
            if time.monotonic() - last[0] > 15 or done == total:
                last[0] = time.monotonic()
                log(f"rendering {what}: {done}/{total} chunks")
        return show

    workers = options.render_workers
    variation, vary_others = options.print_variation, options.vary_others
    looks: dict[str, Any] = {"size": INPUT_SIZE, "print_variation": variation,
                             **({"vary_others": True} if vary_others else {})}
    train = cached_set(cache, deck, train_sets, per_face, options.seed, workers=workers,
                       root=root, progress=progress("training set"), **looks)
    table_per_face = options.table_samples // max(1, n_faces)
    if table_per_face:
        table = cached_set(cache, deck, train_sets, table_per_face, options.seed + 500, workers=workers,
                           root=root, progress=progress("table-style set"), style="table", **looks)
        train = join_sets(train, table)
    val_sets = holdout or train_sets
    val = cached_set(cache, deck, val_sets, options.val_per_face, options.seed + 1000, workers=workers,
                     root=root, progress=progress("validation set"), size=INPUT_SIZE)
    plan = {"train_sets": train_sets, "holdout_sets": holdout, "per_face": per_face,
            "table_per_face": table_per_face, "negatives": {"back": BACK_SHARE},
            **({"print_variation": variation} if variation else {}),
            **({"vary_others": True} if vary_others else {}),
            "train_crops": len(train), "val_crops": len(val)}
    return train, val, plan


def _real_set(options: TrainOptions, log: _Logger) -> RealSet | None:
    """``real_photos``: the real crops to add to every batch (None when the share is 0): the
    training half of the pinochle photos (french) or the ``real_decks`` (italian)."""
    if options.real_photos == 0:
        return None
    deck, decks = options.deck, options.real_decks
    root = require_shared("referee train --real-photos", "photos", options.shared)
    if decks:
        from referee.recognition.real_crops import build_deck_set

        real = build_deck_set(RECOGNISER_LABELS[deck], INPUT_SIZE, options.seed + 700, decks, root)
        log(f"real deck crops: {real.photos} photos of {', '.join(sorted(decks))}, {len(real)} copies "
            f"({options.real_per_batch} a batch)")
        return real
    from referee.recognition.real_crops import build_real_set

    real = build_real_set(deck, RECOGNISER_LABELS[deck], INPUT_SIZE, options.seed + 700, root)
    log(f"real crops: {real.crops} boxes from {real.photos} photos, {len(real)} copies ({options.real_per_batch} a batch)")
    return real


def check_real_decks(options: TrainOptions) -> None:
    """The ``real_decks`` are decks of the real photos, checked before anything is rendered."""
    if not options.real_decks:
        return
    from referee.recognition.real_decks import deck_names

    known = deck_names(options.shared)
    unknown = sorted(set(options.real_decks) - set(known))
    if unknown:
        raise ConfigError(f"--real-decks: no such deck {', '.join(unknown)}; known: {', '.join(known)}")


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


def _fit(model: Any, data: SynthSet, options: TrainOptions, t0: float, log: _Logger,
         real: RealSet | None = None) -> int:
    import torch

    rng = np.random.default_rng(options.seed)
    # the real crops are drawn from a stream of their own, seeded apart from the synthetic one
    real_rng = np.random.default_rng(options.seed + 7)
    n_real = 0 if real is None else options.real_per_batch
    layout = torch.channels_last if options.memory_format == "channels_last" else torch.contiguous_format
    model.to(memory_format=layout)
    opt = torch.optim.AdamW(model.parameters(), lr=options.lr, weight_decay=5e-4)
    labels = torch.from_numpy(data.labels)
    allowed = None if real is None else torch.from_numpy(real.allowed)
    support = None if real is None else torch.from_numpy(real.support)[None]
    total = options.steps
    step, seen, correct, loss_sum = 0, 0, torch.zeros(()), torch.zeros(())
    order = rng.permutation(len(data))
    cursor = 0
    timing_start = last_snap = time.monotonic()
    snap_every = options.snapshot_minutes * 60
    model.train()
    while total is None or step < total:  # total is set by step ESTIMATE_AT[0] at the latest
        if cursor + options.batch > len(order):
            order, cursor = rng.permutation(len(data)), 0
        idx = np.sort(order[cursor:cursor + options.batch])
        cursor += options.batch
        lr = _lr(step, total, options.lr)
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
        if options.steps is None and step in ESTIMATE_AT:
            # Only during warm-up, whose learning rate does not depend on the total: so the
            # recorded total replays the same schedule with --steps.
            per_step = (time.monotonic() - timing_start) / step
            left = options.minutes * 60 - (time.monotonic() - t0) - RESERVE_S
            total = max(WARMUP_STEPS + 10, step + int(left / per_step))
            log(f"{per_step * 1000:.0f} ms/step -> {total} steps ({total * options.batch / len(data):.1f} epochs)")
        if snap_every and time.monotonic() - last_snap > snap_every:
            last_snap = time.monotonic()
            _snapshot(model, options, step, log)
        if step % 200 == 0 or step == total:
            log(f"step {step}/{total} lr {lr:.4f} loss {float(loss_sum) / seen:.3f} train acc {float(correct) / seen:.3f} "
                f"({(time.monotonic() - t0) / 60:.1f} min)")
            seen = 0
            correct.zero_()
            loss_sum.zero_()
    model.to(memory_format=torch.contiguous_format)  # export and evaluation see the usual layout
    model.eval()
    return step


def _snapshot(model: Any, options: TrainOptions, step: int, log: _Logger) -> None:
    """Export the model as it is now (uncalibrated), for consumers that cannot wait."""
    from referee.recognition.export import export

    out = options.cache / "snapshots"
    export(model, options.deck, out, 1.0, {"snapshot_step": step})
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

