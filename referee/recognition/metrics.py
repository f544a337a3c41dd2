"""Accuracy summaries (per print/set, confusion pairs) and softmax temperature fitting."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.cards import BACK


def summarise(pred: npt.NDArray[np.int64], truth: npt.NDArray[np.int64], groups: Sequence[str],
              labels: Sequence[str], pairs: int = 12) -> dict[str, Any]:
    """Overall and per-group top-1 accuracy, back rejection and the commonest confusions."""
    pred, truth = np.asarray(pred), np.asarray(truth)
    ok = pred == truth
    back = labels.index(BACK)
    per_set: dict[str, dict[str, float | int]] = {}
    for g in sorted(set(groups)):
        m = np.array([x == g for x in groups])
        per_set[g] = {"n": int(m.sum()), "acc": round(float(ok[m].mean()), 4)}
    cards = truth != back
    confusions = Counter((labels[t], labels[p]) for t, p in zip(truth[~ok], pred[~ok], strict=True))
    return {
        "acc": round(float(ok.mean()), 4) if len(ok) else 0.0,
        "card_acc": round(float(ok[cards].mean()), 4) if cards.any() else 0.0,
        "cards_called_back": round(float((pred[cards] == back).mean()), 4) if cards.any() else 0.0,
        "back_called_card": round(float((pred[~cards] != back).mean()), 4) if (~cards).any() else 0.0,
        "per_set": per_set,
        "confusions": [f"{t}->{p} x{n}" for (t, p), n in confusions.most_common(pairs)],
    }


def nll(logits: npt.NDArray[np.floating[Any]], truth: npt.NDArray[np.int64], temperature: float) -> float:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(truth)), truth].mean())


def fit_temperature(logits: npt.NDArray[np.floating[Any]], truth: npt.NDArray[np.int64]) -> float:
    """Temperature minimising the negative log-likelihood on held-out data (grid + refine)."""
    grid = np.exp(np.linspace(np.log(0.25), np.log(8.0), 41))
    best = min(grid, key=lambda t: nll(logits, truth, float(t)))
    fine = best * np.exp(np.linspace(-0.1, 0.1, 21))
    return round(float(min(fine, key=lambda t: nll(logits, truth, float(t)))), 4)


def reliability(logits: npt.NDArray[np.floating[Any]], truth: npt.NDArray[np.int64], temperature: float,
                bins: int = 15) -> dict[str, float | int]:
    """How well the top-1 confidence ``softmax(logits / T)`` matches how often the top-1 is right.

    ``ece``: expected calibration error (|accuracy - mean confidence| per equal-width confidence
    bin, weighted by the bin's share); ``conf_right`` / ``conf_wrong``: mean top-1 confidence of
    the right and the wrong reads (the pipeline acts on the first and must doubt the second).
    """
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    conf = p.max(axis=1)
    ok = p.argmax(axis=1) == truth
    which = np.minimum((conf * bins).astype(int), bins - 1)
    ece = sum(abs(float(ok[which == b].mean()) - float(conf[which == b].mean())) * float((which == b).mean())
              for b in range(bins) if (which == b).any())
    return {
        "n": len(truth),
        "acc": round(float(ok.mean()), 4) if len(ok) else 0.0,
        "ece": round(ece, 4),
        "conf_right": round(float(conf[ok].mean()), 4) if ok.any() else 0.0,
        "conf_wrong": round(float(conf[~ok].mean()), 4) if (~ok).any() else 0.0,
        "nll": round(nll(logits, truth, temperature), 4) if len(truth) else 0.0,
    }
