"""Merge trained recognisers of one deck into one ONNX graph that averages their reads (a probe).

    python benchmarks/ensemble_models.py --deck french --out build/lab/ens models build/lab/seed1/model

Each member's logits are divided by its own temperature inside the merged graph and averaged, so
the merged JSON carries temperature 1; the embeddings are set
side by side, so an enrolment made with any member does not fit the merged model (its sha256
differs, and :mod:`referee.recognition.enrollment` refuses it). Everything else in the JSON
(``views``, ``sureness``, ``still_floor``, ``training``) is the first member's, and ``ensemble``
names every member's graph sha256 and temperature. The runtime is unchanged: one graph,
onnxruntime, the same inputs and outputs.

Why a probe: the French model's held-out figures differ by about 3 points between two runs of one
recipe (models/HISTORY.md), so a mean of runs may read unseen prints better than any one of them.
Nothing in the product imports this file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx import compose, helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.errors import ModelError
from referee.recognition.model_info import ModelInfo, model_paths, sha256_file


def merge(members: list[Path], deck: str, out: Path) -> Path:
    """Write ``out/<deck>.onnx`` and ``out/<deck>.json``; returns the graph's path."""
    infos = [ModelInfo.load(model_paths(deck, d)[1], deck) for d in members]
    graphs = [_load_graph(model_paths(deck, d)[0]) for d in members]
    merged: onnx.ModelProto | None = None
    for i, graph in enumerate(graphs):
        prefixed = compose.add_prefix(graph, f"m{i}_")
        if merged is None:
            merged = prefixed
            continue
        merged = _join(merged, prefixed)  # the members share the first's input
    assert merged is not None
    g = merged.graph
    name = graphs[0].graph.input[0].name  # the merged graph reads the members' own input name
    for node in g.node:
        node.input[:] = [name if x == g.input[0].name else x for x in node.input]
    g.input[0].name = name
    scaled = []
    for i, info in enumerate(infos):
        t = helper.make_tensor(f"m{i}_inv_t", onnx.TensorProto.FLOAT, [], [1.0 / info.temperature])
        g.initializer.append(t)
        g.node.append(helper.make_node("Mul", [f"m{i}_logits", f"m{i}_inv_t"], [f"m{i}_scaled"]))
        scaled.append(f"m{i}_scaled")
    g.node.append(helper.make_node("Mean", scaled, ["logits"]))
    g.node.append(helper.make_node("Concat", [f"m{i}_embedding" for i in range(len(infos))], ["embedding"], axis=1))
    emb_dim = sum(info.embedding_dim for info in infos)
    del g.output[:]
    g.output.append(helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, ["batch", len(infos[0].labels)]))
    g.output.append(helper.make_tensor_value_info("embedding", onnx.TensorProto.FLOAT, ["batch", emb_dim]))
    onnx.checker.check_model(merged)
    out.mkdir(parents=True, exist_ok=True)
    onnx_path, json_path = model_paths(deck, out)
    onnx.save(merged, str(onnx_path))
    first = infos[0]
    info = ModelInfo(deck=first.deck, labels=first.labels, input_size=first.input_size, mean=first.mean,
                     std=first.std, temperature=1.0, embedding_dim=emb_dim, onnx_sha256=sha256_file(onnx_path),
                     extra={**first.extra, "ensemble": [{"member": str(d), "onnx_sha256": i.onnx_sha256,
                                                          "temperature": i.temperature}
                                                         for d, i in zip(members, infos, strict=True)]})
    json_path.write_text(info.to_json(), encoding="utf-8")
    return onnx_path


def _load_graph(path: Path) -> onnx.ModelProto:
    """The ONNX graph at ``path``; a missing or damaged file is a ModelError naming it."""
    try:
        return onnx.load(str(path))
    except (OSError, DecodeError) as exc:
        raise ModelError(f"{path}: not a readable ONNX graph ({exc})") from exc


def _join(a: onnx.ModelProto, b: onnx.ModelProto) -> onnx.ModelProto:
    """``a`` and ``b`` in one graph reading ``a``'s input (``b``'s input renamed to it)."""
    a_in, b_in = a.graph.input[0].name, b.graph.input[0].name
    for node in b.graph.node:
        node.input[:] = [a_in if x == b_in else x for x in node.input]
    graph = helper.make_graph([*a.graph.node, *b.graph.node], "ensemble", [a.graph.input[0]],
                              [*a.graph.output, *b.graph.output],
                              initializer=[*a.graph.initializer, *b.graph.initializer],
                              value_info=[*a.graph.value_info, *b.graph.value_info])
    model = helper.make_model(graph, opset_imports=a.opset_import)
    model.ir_version = a.ir_version
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("members", nargs="+", type=Path, help="model folders (each with <deck>.onnx and .json)")
    parser.add_argument("--deck", choices=("italian", "french"), required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if len(args.members) < 2:
        parser.error("give two or more model folders")
    try:
        path = merge(args.members, args.deck, args.out)
    except (ModelError, onnx.checker.ValidationError) as exc:
        parser.error(str(exc))  # a missing, damaged or foreign member, named by its file
    print(f"{path}: {len(args.members)} members, {path.stat().st_size / 1e6:.2f} MB")
    print(json.dumps(json.loads(model_paths(args.deck, args.out)[1].read_text())["ensemble"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
