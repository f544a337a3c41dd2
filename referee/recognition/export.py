"""Export a trained :class:`~referee.recognition.net.CardNet` to ONNX + its JSON, and check
that ONNX Runtime reproduces the PyTorch outputs."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from referee.cards import RECOGNISER_LABELS
from referee.errors import ModelError
from referee.recognition.model_info import ModelInfo, model_paths, sha256_file
from referee.recognition.preprocess import INPUT_SIZE, MEAN, STD

OPSET = 17


def export(model: Any, deck: str, out_dir: Path, temperature: float, extra: dict[str, Any],
           input_size: tuple[int, int] = INPUT_SIZE) -> Path:
    """Write ``<out_dir>/<deck>.onnx`` and ``<deck>.json`` for crops of ``input_size`` (width,
    height); returns the ONNX path."""
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path, json_path = model_paths(deck, out_dir)
    model.eval()
    w, h = input_size
    example = torch.zeros(1, 3, h, w)
    tmp = onnx_path.with_suffix(".tmp.onnx")
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated but needs no onnxscript (not installed offline).
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model, (example,), str(tmp), input_names=["image"], output_names=["logits", "embedding"],
            dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}, "embedding": {0: "batch"}},
            opset_version=OPSET, dynamo=False,
        )
    _check_same(model, tmp, input_size)
    tmp.replace(onnx_path)
    info = ModelInfo(deck, RECOGNISER_LABELS[deck], input_size, MEAN, STD, temperature,
                     int(model.classifier.in_features), sha256_file(onnx_path), extra)
    json_path.write_text(info.to_json(), encoding="utf-8")
    return onnx_path


def _check_same(model: Any, path: Path, input_size: tuple[int, int]) -> None:
    import onnxruntime as ort
    import torch

    x = np.random.default_rng(0).normal(size=(4, 3, input_size[1], input_size[0])).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(x))[0].numpy()
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]
    if not np.allclose(ref, got, atol=1e-3, rtol=1e-3):
        raise ModelError(f"{path}: ONNX output differs from PyTorch by {np.abs(ref - got).max():.4g}")
