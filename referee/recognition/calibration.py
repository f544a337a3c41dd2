"""Refit a recogniser's softmax temperature on chosen crops, without retraining the network.

The temperature ``T`` turns logits into the confidences the live loop acts on (vote, ask the
operator, reject). Fitted on the wrong crops it misleads: fitted mostly on an alien print (the
Spanish-suited Sarde), the table-style Italian candidate got T = 1.02 and too little confidence
on the prints clubs play with. Here ``T`` is fitted (negative log-likelihood) on the sets named,
other sets are only reported, and the JSON beside the unchanged graph records both.

Sets, as written on the command line (``referee train --recalibrate DIR --calibrate-on ...``):

  ``PRINT``             base-style renders of a print (``omerkel_scopa_commons/napoletane``)
  ``table:PRINT``       table-style renders: the card among other cards, cut as the pipeline cuts
  ``crops:FILE.npz``    crops cut from simulated frames (``benchmarks/recognition_sim.py --crops``),
                        grouped as ``sim-<mode>:<print>`` (mode ``true`` or ``finder``)

Renders include their share of ``back`` (not-a-card) crops and are seeded (cached under
``build/``), so a recalibration replays exactly from its recorded command.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.errors import ConfigError, ModelError
from referee.recognition.classifier import CardClassifier
from referee.recognition.metrics import fit_temperature, reliability
from referee.recognition.model_info import model_paths, sha256_file
from referee.recognition.npz_file import read_npz

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
#: Seed offset of calibration renders (training uses +0, validation +1000, benchmarks +2000/+3000).
SEED_OFFSET = 4000


@dataclasses.dataclass(frozen=True)
class Scored:
    """Logits of one set's crops, their true class and the group each is reported under."""

    logits: F32
    truth: I64
    groups: tuple[str, ...]


def parse_set(spec: str) -> tuple[str, str]:
    """``(kind, argument)`` of a set spec: kind ``base``, ``table`` or ``crops``."""
    kind, sep, arg = spec.partition(":")
    if not sep:
        return "base", spec
    if kind not in ("table", "crops") or not arg:
        raise ConfigError(f"calibration set {spec!r}: expected PRINT, table:PRINT or crops:FILE.npz")
    return kind, arg


def score_set(clf: CardClassifier, spec: str, *, per_face: int, seed: int, root: Path | None,
              cache: Path, workers: int = 1) -> Scored:
    """Run the model on one set's crops (rendered and cached, or read from a crops file)."""
    kind, arg = parse_set(spec)
    if kind == "crops":
        images, truth, groups = _sim_crops(Path(arg), clf.labels)
    else:
        from referee.recognition.dataset import cached_set
        from referee.recognition.faces import face_sets

        names = [s.name for s in face_sets(clf.info.deck, root)]
        if arg not in names:
            raise ConfigError(f"calibration set {spec!r}: no {clf.info.deck} print {arg!r}; known: {names}")
        style = {"style": "table"} if kind == "table" else {}
        data = cached_set(cache, clf.info.deck, [arg], per_face, seed, workers=workers, root=root,
                          size=clf.input_size, **style)
        images, truth = list(data.images), data.labels
        groups = [spec] * len(truth)
    logits = np.concatenate([clf.run(images[i:i + 64])[0] for i in range(0, len(images), 64)]) \
        if images else np.zeros((0, len(clf.labels)), np.float32)
    return Scored(logits.astype(np.float32), np.asarray(truth, np.int64), tuple(groups))


def _sim_crops(path: Path, labels: Sequence[str]) -> tuple[list[npt.NDArray[np.uint8]], I64, list[str]]:
    """Crops and truth from a ``recognition_sim.py --crops`` file (rows: mode, print, code, hidden)."""
    z = read_npz(path, "calibration crops file", ConfigError)  # never unpickled: a crafted file runs code
    try:
        images, rows = list(z["images"]), [tuple(str(v) for v in r[:3]) for r in z["rows"]]
    except KeyError as exc:
        raise ConfigError(f"calibration crops file {path}: no {exc} array (not written by "
                          "benchmarks/recognition_sim.py --crops?)") from exc
    except (ValueError, TypeError, IndexError) as exc:
        raise ConfigError(f"calibration crops file {path}: {exc}") from exc
    index = {c: i for i, c in enumerate(labels)}
    unknown = sorted({code for _, _, code in rows} - set(index))
    if unknown:
        raise ConfigError(f"calibration crops file {path}: cards {unknown} are not {len(labels)}-class labels")
    truth = np.array([index[code] for _, _, code in rows], np.int64)
    return images, truth, [f"sim-{mode}:{face_set}" for mode, face_set, _ in rows]


def reliability_table(scored: Sequence[Scored], before: float, after: float) -> dict[str, Any]:
    """Per group: reliability at the old and the new temperature."""
    logits = np.concatenate([s.logits for s in scored])
    truth = np.concatenate([s.truth for s in scored])
    groups = np.array([g for s in scored for g in s.groups])
    out: dict[str, Any] = {}
    for g in dict.fromkeys(groups.tolist()):
        m = groups == g
        out[g] = {"before": reliability(logits[m], truth[m], before), "after": reliability(logits[m], truth[m], after)}
    return out


def recalibrate(model_dir: Path, deck: str, fit_on: Sequence[str], report_on: Sequence[str] = (),
                out_dir: Path | None = None, *, per_face: int = 24, seed: int | None = None,
                root: Path | None = None, cache: Path | None = None, workers: int = 1,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Fit ``T`` on ``fit_on``, report ``report_on`` too, and write the model to ``out_dir``.

    The graph is copied unchanged (same sha256); the JSON gets the new temperature and a
    ``calibration`` block (sets fitted and reported, previous temperature, reliability per
    group before and after). ``out_dir`` defaults to ``model_dir`` (the JSON is rewritten).
    """
    from referee.paths import REPO_ROOT

    if not fit_on:
        raise ConfigError("recalibration needs at least one set to fit the temperature on")
    clf = CardClassifier.load(deck, model_dir, threads=1)
    if seed is None:
        seed = int(clf.info.extra.get("training", {}).get("seed", 0)) + SEED_OFFSET
    cache = cache if cache is not None else REPO_ROOT / "build" / "recognition" / "calibration"
    kw: dict[str, Any] = {"per_face": per_face, "seed": seed, "root": root, "cache": cache, "workers": workers}
    fitted = [score_set(clf, s, **kw) for s in fit_on]
    reported = [score_set(clf, s, **kw) for s in report_on]
    old = clf.info.temperature
    new = fit_temperature(np.concatenate([s.logits for s in fitted]), np.concatenate([s.truth for s in fitted]))
    table = reliability_table(fitted + reported, old, new)
    pooled = Scored(np.concatenate([s.logits for s in fitted]), np.concatenate([s.truth for s in fitted]),
                    ("fitted sets together",) * sum(len(s.truth) for s in fitted))
    table.update(reliability_table([pooled], old, new))
    block = {"fitted_on": list(fit_on), "reported_only": list(report_on), "per_face": per_face, "seed": seed,
             "previous_temperature": old, "temperature": new, "reliability": table}
    log(f"temperature {old} -> {new} (fitted on {', '.join(fit_on)})")
    for group, r in table.items():
        b, a = r["before"], r["after"]
        log(f"  {group:52} n={b['n']:5d} acc {b['acc']:.4f}  ECE {b['ece']:.4f} -> {a['ece']:.4f}  "
            f"conf right {b['conf_right']:.3f} -> {a['conf_right']:.3f}  wrong {b['conf_wrong']:.3f} -> "
            f"{a['conf_wrong']:.3f}")
    write_model(clf, model_dir, out_dir if out_dir is not None else model_dir, new, block)
    return block


def write_model(clf: CardClassifier, model_dir: Path, out_dir: Path, temperature: float,
                block: dict[str, Any]) -> None:
    """The unchanged graph and a JSON with ``temperature`` and the ``calibration`` block."""
    src_onnx, _ = model_paths(clf.info.deck, model_dir)
    dst_onnx, dst_json = model_paths(clf.info.deck, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if src_onnx.resolve() != dst_onnx.resolve():
        shutil.copyfile(src_onnx, dst_onnx)
    if sha256_file(dst_onnx) != clf.info.onnx_sha256:
        raise ModelError(f"{dst_onnx}: sha256 differs from the one in {model_dir}'s JSON")
    info = dataclasses.replace(clf.info, temperature=temperature, extra={**clf.info.extra, "calibration": block})
    dst_json.write_text(info.to_json(), encoding="utf-8")
