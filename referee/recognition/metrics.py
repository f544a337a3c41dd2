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
