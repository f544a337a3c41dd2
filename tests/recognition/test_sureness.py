"""A read that leaves more than ``no_card_back`` on 'back' is no card
(:mod:`referee.recognition.sureness`), on a single photo only; a bad ``sureness`` block in a model's
JSON is refused naming the file and key."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from referee.cards import BACK, RECOGNISER_LABELS
from referee.errors import ModelError
from referee.paths import models_dir
from referee.recognition import CardClassifier
from referee.recognition.sureness import Sureness

LABELS = RECOGNISER_LABELS["italian"]
A, B = LABELS.index("coppe_3"), LABELS.index("spade_7")


def _probs(top: int, p: float = 0.95) -> np.ndarray:
    """One read naming ``top`` at ``p``, the rest on 'back'."""
    out = np.zeros((1, len(LABELS)), np.float32)
    out[0, LABELS.index(BACK)] = 1 - p
    out[0, top] += p
    return out


def test_a_read_of_not_a_card_is_never_doubted() -> None:
    rule = Sureness(no_card_back=0.02)
    probs = _probs(LABELS.index(BACK))
    assert not rule.no_card(probs, LABELS).any() and np.array_equal(rule.apply(probs, LABELS), probs)


def test_a_read_that_leaves_more_than_no_card_back_on_back_is_no_card() -> None:
    rule = Sureness(no_card_back=0.02)
    probs = np.concatenate([_probs(A, p=0.97), _probs(B, p=0.99)])  # 0.03 and 0.01 on 'back'
    out = rule.apply(probs, LABELS)
    assert out[0].argmax() == LABELS.index(BACK) and out[0].max() == 1.0
    assert np.array_equal(out[1], probs[1])


# --- the committed models, and a copy of one to damage -------------------------------------------

needs_models = pytest.mark.skipif(not (models_dir() / "italian.onnx").exists(), reason="no committed italian model")


@pytest.fixture
def model(copy_models: Callable[..., Path]) -> Path:
    """A copy of the committed Italian model, to damage."""
    return copy_models("italian")


def _edit_sureness(folder: Path, **changes: Any) -> None:
    path = folder / "italian.json"
    data = json.loads(path.read_text())
    data["sureness"] = {**data.get("sureness", {}), **changes}
    path.write_text(json.dumps(data))


@needs_models
def test_the_committed_models_take_a_read_that_leaves_much_on_back_for_no_card() -> None:
    for deck in ("italian", "french"):
        clf = CardClassifier.load(deck, threads=1)
        assert clf.sureness is not None and clf.sureness.no_card_back == 0.02


@needs_models
@pytest.mark.shared("photos/italian_triestine_tressette_test")
def test_alien_triestine_cards_read_wrong_are_no_card_and_those_read_surely_stay_sure() -> None:
    from referee.recognition.photos import crop, photo_cards

    clf = CardClassifier.load("italian", threads=1)
    plain = CardClassifier.load("italian", threads=1)
    plain.sureness = None
    cards = [c for c in photo_cards("italian") if c.suit is not None]
    cache: dict[Path, np.ndarray] = {}
    crops = [crop(c, straighten=True, cache=cache) for c in cards]
    truth = [f"{c.suit}_{c.rank}" for c in cards]
    before, after = plain.classify(crops), clf.classify(crops)
    wrong_before = [i for i, (p, t) in enumerate(zip(before, truth, strict=True)) if p.is_card and p.card != t]
    wrong_after = [i for i, (p, t) in enumerate(zip(after, truth, strict=True)) if p.is_card and p.card != t]
    # a Triestine coppe_4 (a pattern never trained on) read as coppe_1, and more like it
    assert len(wrong_after) <= len(wrong_before) - 2
    for b, a in zip(before, after, strict=True):
        if b.confidence >= 0.8:
            assert (a.card, a.confidence) == (b.card, b.confidence)


@needs_models
@pytest.mark.shared("photos/italian_napoletane_real_decks")
def test_real_napoletane_cards_a_pattern_the_model_knows_stay_sure() -> None:
    from referee.recognition.real_decks import cut, deck_photos

    clf = CardClassifier.load("italian", threads=1)
    photos = [p for p in deck_photos(decks=["deck02", "deck06"]) if p.quad is not None][:20]
    reads = clf.classify([cut(p) for p in photos])
    assert all(r.card == p.card and r.confidence >= 0.8 for r, p in zip(reads, photos, strict=True))


def test_an_unknown_sureness_key_is_refused_naming_the_file_and_key(model: Path) -> None:
    _edit_sureness(model, unsure_at=0.6)
    with pytest.raises(ModelError, match=r"italian\.json: sureness: unknown key\(s\) \['unsure_at'\]"):
        CardClassifier.load("italian", model)


def test_a_bad_sureness_value_is_refused_naming_the_key(model: Path) -> None:
    _edit_sureness(model, no_card_back=0.9)
    with pytest.raises(ModelError, match=r"italian\.json: sureness\.no_card_back: expected a number between 0\.0 and 0\.5"):
        CardClassifier.load("italian", model)


def test_a_sureness_block_without_its_rule_is_refused_naming_the_key(model: Path) -> None:
    path = model / "italian.json"
    data = json.loads(path.read_text())
    data["sureness"] = {}
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=r"italian\.json: sureness\.no_card_back: expected a number"):
        CardClassifier.load("italian", model)


@needs_models
@pytest.mark.shared("photos/italian_napoletane_real_decks")
def test_the_live_loop_reading_each_crop_once_is_not_judged_by_the_rules() -> None:
    from referee.recognition.real_decks import cut, deck_photos
    from referee.recognition.views import LIVE_VIEWS

    crops = [cut(p) for p in deck_photos(decks=["deck02"]) if p.quad is not None][:4]
    strict = Sureness(no_card_back=1e-6)  # every read of a card leaves more than this on 'back'
    live = CardClassifier.load("italian", threads=1, views=LIVE_VIEWS)
    plain = [p.card for p in live.classify(crops)]
    assert BACK not in plain
    live.sureness = strict
    assert [p.card for p in live.classify(crops)] == plain
    photo = CardClassifier.load("italian", threads=1)
    photo.sureness = strict
    assert all(p.card == BACK for p in photo.classify(crops))
