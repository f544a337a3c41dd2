"""Behaviour of the committed models in ``models/`` (skipped where they or ../shared are absent)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.cards import BACK, RECOGNISER_LABELS
from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.dataset import render_set
from referee.recognition.enroll import enroll
from referee.recognition.faces import face_sets

needs_shared = pytest.mark.shared("faces")


def load(deck: str, trained: bool = False) -> CardClassifier:
    """The committed model; ``trained``: one with its training record (not an interim snapshot)."""
    if not (models_dir() / f"{deck}.onnx").exists():
        pytest.skip(f"no committed {deck} model")
    clf = CardClassifier.load(deck, threads=1)
    if trained and "validation" not in clf.info.extra:
        pytest.skip(f"committed {deck} model is an interim snapshot")
    return clf


@pytest.mark.parametrize("deck", ["italian", "french"])
def test_committed_model_meets_size_and_label_contract(deck: str) -> None:
    clf = load(deck)
    assert clf.labels == RECOGNISER_LABELS[deck]
    assert (models_dir() / f"{deck}.onnx").stat().st_size <= 5_000_000
    assert clf.model_sha256 == clf.info.onnx_sha256


@pytest.mark.parametrize("deck", ["italian", "french"])
def test_bare_table_and_noise_are_not_confident_cards(deck: str) -> None:
    clf = load(deck)
    rng = np.random.default_rng(0)
    felt = np.zeros((120, 80, 3), np.uint8)
    felt[:] = (40, 110, 30)
    felt = np.clip(felt + rng.normal(0, 6, felt.shape), 0, 255).astype(np.uint8)
    grey = np.full((120, 80, 3), 128, np.uint8)
    for pred in clf.classify([felt, grey]):
        assert pred.card == BACK or pred.confidence < 0.5, pred


@needs_shared
@pytest.mark.parametrize("deck", ["italian", "french"])
def test_held_out_print_is_read_in_both_orientations(deck: str) -> None:
    clf = load(deck, trained=True)
    held = clf.info.extra["training"]["holdout_sets"][0]
    data = render_set(deck, [held], 1, seed=5, back_count=1, workers=1)
    cards = data.images[:-1]
    flipped = np.ascontiguousarray(cards[:, ::-1, ::-1])
    up = [p.card for p in clf.classify(list(cards))]
    down = [p.card for p in clf.classify(list(flipped))]
    agree = np.mean([a == b for a, b in zip(up, down, strict=True)])
    assert agree >= 0.8


@needs_shared
def test_enrollment_fixes_a_held_out_print_the_base_model_gets_wrong() -> None:
    base = load("italian", trained=True)
    per_set = base.info.extra["validation"]["per_set"]
    held = min(base.info.extra["training"]["holdout_sets"], key=lambda s: per_set[s]["acc"])
    assert held in {s.name for s in face_sets("italian")}
    # The club photographs its deck (enroll renders), then plays (other renders, other seed).
    photos = render_set("italian", [held], 2, seed=11, back_count=1, workers=1)
    play = render_set("italian", [held], 2, seed=12, back_count=1, workers=1)
    codes = [base.labels[i] for i in photos.labels[:-1]]
    enrolled = CardClassifier.load("italian", threads=1, enrollment=enroll(base, list(photos.images[:-1]), codes))
    truth = [base.labels[i] for i in play.labels[:-1]]
    before = [p.card == t for p, t in zip(base.classify(list(play.images[:-1])), truth, strict=True)]
    after = [p.card == t for p, t in zip(enrolled.classify(list(play.images[:-1])), truth, strict=True)]
    fixed = sum(a and not b for a, b in zip(after, before, strict=True))
    broken = sum(b and not a for a, b in zip(after, before, strict=True))
    assert sum(before) < len(before), "base model already perfect on this print"
    assert np.mean(after) > np.mean(before) and fixed >= 2 * max(1, broken)
