"""``benchmarks/vision_photos.py --list-false``: each false detection named with its kind, and
right reads left out (the list a false-card study starts from)."""

from __future__ import annotations

from recognition.benchmark_module import load_benchmark
from referee.paths import shared_dir


def _card(card: str, conf: float, x0: float, y0: float, x1: float, y1: float) -> dict[str, object]:
    return {"card": card, "confidence": conf, "quad": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def test_each_false_card_is_listed_with_its_kind_and_the_photo_labels() -> None:
    bench = load_benchmark("vision_photos")
    path = shared_dir() / "photos" / "some_set" / "IMG_1.JPG"
    truths = {path: [bench.Truth("9C", (0, 0, 100, 150)), bench.Truth("KD", (200, 0, 300, 150))]}
    cards = [
        _card("9C", 0.99, 5, 5, 95, 145),      # right
        _card("9S", 0.97, 10, 60, 90, 140),    # on the nine, which another box reads right: a second box
        _card("KS", 0.90, 205, 5, 295, 145),   # the king read as another card: a misread
        _card("AS", 0.60, 400, 10, 480, 130),  # on no labelled card
    ]
    record = bench.Record("some_set", bench.photo_key(path), {"cards": cards, "ms": 1.0}, (300, 500, 3), False)
    listed = bench.false_cards([record], truths)
    assert [(f.kind, f.detection["card"], f.detection["confidence"]) for f in listed] == [
        ("second box", "9S", 0.97), ("misread", "KS", 0.90), ("non-card", "AS", 0.60)]
    assert all(f.path == path and [t.label for t in f.truths] == ["9C", "KD"] for f in listed)
    row = listed[1].row()
    assert "IMG_1.JPG" in row and "misread" in row and "KS" in row and "0.9000" in row and "labels: 9C KD" in row
