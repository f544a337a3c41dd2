"""Accuracy of a loaded :class:`CardClassifier` on held-out synthetic prints and real photos."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from referee.cards import BACK
from referee.recognition.classifier import CardClassifier
from referee.recognition.dataset import SynthSet
from referee.recognition.metrics import summarise
from referee.recognition.photo_review import PhotoReview
from referee.recognition.photo_suits import with_suits_if_known
from referee.recognition.photos import PhotoCard, crop, photo_cards
from referee.recognition.real_crops import TRAINABLE, seen_at, training_names

#: A read at least this sure is one the pipeline takes without asking (its ``sure`` threshold).
SURE = 0.8
#: JPEG quality of the camera-size figures: an assumption for a Pi camera's MJPEG stream (the
#: vision loop reads raw frames, so this is the worse case).
CAMERA_JPEG = 60


def on_synthetic(clf: CardClassifier, data: SynthSet, batch: int = 64) -> dict[str, Any]:
    """Per-print accuracy of ``clf`` on rendered crops (e.g. the held-out prints)."""
    preds: list[int] = []
    index = {c: i for i, c in enumerate(clf.labels)}
    for i in range(0, len(data), batch):
        preds += [index[p.card] for p in clf.classify(list(data.images[i:i + batch]))]
    names = [data.set_names[i] for i in data.set_ids]
    report = summarise(np.array(preds), data.labels, names, clf.labels)
    report["per_set_courts_pips"] = court_pip_split(np.array(preds), data.labels, names, clf.labels)
    return report


def is_court_code(code: str) -> bool:
    """J/Q/K of a French code, fante/cavallo/re (8/9/10) of an Italian one: the faces whose
    picture, not their pips, tells the rank."""
    if code == BACK:
        return False
    if "_" in code:
        return code.rpartition("_")[2] in {"8", "9", "10"}
    return code[:-1] in {"J", "Q", "K"}


def court_pip_split(pred: np.ndarray, truth: np.ndarray, groups: Sequence[str],
                    labels: Sequence[str]) -> dict[str, Any]:
    """Per print: accuracy on court faces and on pip faces apart (their failures differ: unseen
    court art vs unusual pips), e.g. ``{"knoll...": {"courts": [360, 0.99], "pips": [1200, 0.79]}}``."""
    court = np.array([is_court_code(labels[t]) for t in truth], bool)
    card = np.array([labels[t] != BACK for t in truth], bool)
    out: dict[str, Any] = {}
    for g in sorted(set(groups)):
        m = np.array([x == g for x in groups]) & card
        if not m.any():
            continue
        out[g] = {kind: [int(sel.sum()), round(float((pred[sel] == truth[sel]).mean()), 4)]
                  for kind, sel in (("courts", m & court), ("pips", m & ~court)) if sel.any()}
    return out


def split_code(code: str) -> tuple[str, str]:
    """(rank, suit) of a card code in either family."""
    if "_" in code:
        suit, _, rank = code.partition("_")
        return rank, suit
    return code[:-1], code[-1]


def on_photos(clf: CardClassifier, family: str, root: Path | None = None,
              straighten: bool = True, review: PhotoReview | None = None,
              heights: Sequence[int] = ()) -> dict[str, Any]:
    """Rank / suit / full-card accuracy on the labelled real photo boxes of ``family``; with a
    ``review``, also on the boxes that meet the input contract (``"in_contract"``), and, for each
    of ``heights``, on those boxes (the held-out half where a ``--real-photos`` run trains on
    the other) seen as the box's camera would see them (``"in_contract_at_height"``)."""
    cards = with_suits_if_known(photo_cards(family, root))  # pinochle: the suits read by eye
    if not cards:
        return {"n": 0}
    cache: dict[Path, Any] = {}
    crops = [crop(c, straighten, cache) for c in cards]
    reads = _reads(clf, crops)
    report = score_photos(cards, [card for card, _ in reads])
    if review is not None:
        report["in_contract"] = score_contract(cards, reads, review)
        side = list(range(len(cards)))
        trainable = [i for i, c in enumerate(cards) if c.source == TRAINABLE.get(family)]
        if trainable:
            # the half of the photos no ``--real-photos`` run trains on: the honest real figure
            train = training_names([cards[i].image.name for i in trainable])
            side = [i for i in trainable if cards[i].image.name not in train]
            report["in_contract_held_out"] = score_contract([cards[i] for i in side], [reads[i] for i in side], review)
        side = [i for i in side if review.in_contract(cards[i])]
        report["in_contract_at_height"] = {
            str(h): score_contract([cards[i] for i in side], _reads(clf, [seen_at(crops[i], h, CAMERA_JPEG) for i in side]),
                                   review)
            for h in heights
        }
    return report


def _reads(clf: CardClassifier, crops: Sequence[Any], batch: int = 32) -> list[tuple[str, float]]:
    return [(p.card, p.confidence) for i in range(0, len(crops), batch) for p in clf.classify(crops[i:i + batch])]


def score_contract(cards: list[PhotoCard], reads: list[tuple[str, float]], review: PhotoReview) -> dict[str, Any]:
    """Rank accuracy on the boxes that meet the input contract (the reviewer's rank where the
    dataset's label is wrong), card accuracy (rank and, where labelled, suit), how many reads are
    sure (>= :data:`SURE`) and how many of those are wrong; and the rank accuracy on the boxes
    outside, for contrast."""
    rows = []  # (card, read, confidence, rank right, card right) of the boxes inside
    outside = []  # rank right, of the boxes outside
    for c, (read, conf) in zip(cards, reads, strict=True):
        rank, suit = (read, "") if read == BACK else split_code(read)
        right = rank == review.rank(c)
        if review.in_contract(c):
            rows.append((c, read, conf, right, right and (c.suit is None or suit == c.suit)))
        else:
            outside.append(right)
    n = max(1, len(rows))
    return {
        "n": len(rows),
        "rank_acc": round(sum(r[3] for r in rows) / n, 4),
        "card_acc": round(sum(r[4] for r in rows) / n, 4),
        "called_back": round(sum(r[1] == BACK for r in rows) / n, 4),
        "sure_share": round(sum(r[2] >= SURE for r in rows) / n, 4),
        "sure_wrong": sum(r[2] >= SURE and not r[4] for r in rows),
        "n_outside": len(outside),
        "rank_acc_outside": round(sum(outside) / max(1, len(outside)), 4),
        "label_fixes": sum(review.rank(c) != c.rank for c in cards),
        "wrong": [f"{c.image.name}@{','.join(map(str, c.box))} {c.suit or '?'}/{review.rank(c)}->{read} {conf:.2f}"
                  for c, read, conf, _, whole in rows if not whole],
    }


def score_photos(cards: list[PhotoCard], predicted: list[str]) -> dict[str, Any]:
    rank_ok, suit_ok, full_ok, backs = 0, [], [], 0
    confusions: Counter[str] = Counter()
    per_rank: dict[str, list[bool]] = defaultdict(list)
    for card, pred in zip(cards, predicted, strict=True):
        if pred == BACK:
            backs += 1
            confusions[f"{card.rank}->back"] += 1
            per_rank[card.rank].append(False)
            continue
        rank, suit = split_code(pred)
        rank_ok += rank == card.rank
        per_rank[card.rank].append(rank == card.rank)
        if rank != card.rank:
            confusions[f"{card.rank}->{rank}"] += 1
        if card.suit is not None:
            suit_ok.append(suit == card.suit)
            full_ok.append(suit == card.suit and rank == card.rank)
    n = len(cards)
    return {
        "source": cards[0].source,
        "n": n,
        "rank_acc": round(rank_ok / n, 4),
        "suit_acc": round(float(np.mean(suit_ok)), 4) if suit_ok else None,
        "card_acc_where_suit_known": round(float(np.mean(full_ok)), 4) if full_ok else None,
        "n_suit_known": len(full_ok),
        "called_back": round(backs / n, 4),
        "per_rank": {r: round(float(np.mean(v)), 3) for r, v in sorted(per_rank.items())},
        "rank_confusions": [f"{k} x{v}" for k, v in confusions.most_common(8)],
    }
