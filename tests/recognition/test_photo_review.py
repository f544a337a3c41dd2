"""The reviewed real-photo boxes: the committed review loads and matches the photos, a bad row is
named, and the in-contract figures count what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.recognition.evaluate import score_contract
from referee.recognition.photo_review import (
    COLUMNS,
    DEFAULT_REVIEW,
    PhotoReview,
    key_of,
    load_review,
)
from referee.recognition.photos import PhotoCard, photo_cards

HEADER = ",".join(COLUMNS)


def card(name: str, rank: str, suit: str | None = None) -> PhotoCard:
    return PhotoCard("src", Path("/photos") / name, (0, 0, 10, 14), rank, suit)


def test_committed_review_loads() -> None:
    review = load_review(DEFAULT_REVIEW)
    sources = {k[0] for k in review.outside}
    assert sources == {"french_pinochle_voc_train", "italian_triestine_tressette_test"}
    assert len(review.outside) == 87
    assert set(review.ranks.values()) == {"10"}


@pytest.mark.shared("photos")
def test_committed_review_matches_the_photos() -> None:
    review = load_review(DEFAULT_REVIEW)
    cards = photo_cards("french") + photo_cards("italian")
    assert review.unmatched(cards) == []
    inside = [c for c in cards if review.in_contract(c)]
    assert len(cards) - len(inside) == 87
    fixed = [c for c in cards if review.rank(c) != c.rank]
    assert [(c.image.name, c.rank, review.rank(c)) for c in fixed] == [("IMG_2396.JPG", "9", "10")]


def test_a_bad_row_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    path.write_text(f"# comment\n{HEADER}\nsrc,a.jpg,0,0,10,14,outside,partial,\nsrc,b.jpg,0,0,10,14,outside,smudged,\n")
    with pytest.raises(ConfigError, match=r"review.csv, line 4: verdict 'outside' value 'smudged'"):
        load_review(path)
    path.write_text(f"{HEADER}\nsrc,a.jpg,0,0,10,14,label,11,\n")
    with pytest.raises(ConfigError, match=r"line 2: verdict 'label' value '11'"):
        load_review(path)
    path.write_text(f"{HEADER}\nsrc,a.jpg,0,zero,10,14,outside,partial,\n")
    with pytest.raises(ConfigError, match=r"line 2: box must be four integers"):
        load_review(path)
    path.write_text("source,image\n")
    with pytest.raises(ConfigError, match="header must be"):
        load_review(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_review(tmp_path / "missing.csv")


def test_a_box_reviewed_twice_is_named_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    # Before, the second row silently replaced the first.
    path.write_text(f"{HEADER}\nsrc,a.jpg,0,0,10,14,outside,partial,\nsrc,b.jpg,0,0,10,14,outside,blank,\n"
                    "src,a.jpg,0,0,10,14,outside,zoomed,\n")
    with pytest.raises(ConfigError, match=r"line 4: box a.jpg \(0, 0, 10, 14\) already has a 'outside' verdict \(line 2\)"):
        load_review(path)
    # One verdict of each kind on a box is fine: outside the contract, and its label corrected.
    path.write_text(f"{HEADER}\nsrc,a.jpg,0,0,10,14,outside,partial,\nsrc,a.jpg,0,0,10,14,label,10,\n")
    review = load_review(path)
    assert review.rank(card("a.jpg", "9")) == "10" and not review.in_contract(card("a.jpg", "9"))


def test_a_stale_review_is_found(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    path.write_text(f"{HEADER}\nsrc,gone.jpg,0,0,10,14,outside,partial,\nother,x.jpg,0,0,1,1,outside,blank,\n")
    review = load_review(path)
    # Only the listed cards' sources are checked: another set's rows are not this one's business.
    assert review.unmatched([card("a.jpg", "9")]) == [("src", "gone.jpg", (0, 0, 10, 14))]


def test_in_contract_figures() -> None:
    cards = [card("a.jpg", "9"), card("b.jpg", "K", "H"), card("c.jpg", "Q"), card("d.jpg", "A"),
             card("e.jpg", "10")]
    review = PhotoReview(outside={key_of(cards[3]): "partial"}, ranks={key_of(cards[0]): "10"})
    reads = [("10D", 0.95),  # right by the reviewer's rank (labelled 9)
             ("KS", 0.9),    # rank right, suit wrong: a sure wrong card
             ("back", 0.7),  # not sure, wrong
             ("AS", 0.99),   # outside the contract: not counted in
             ("10C", 0.5)]
    out = score_contract(cards, reads, review)
    assert out["n"] == 4 and out["n_outside"] == 1
    assert out["rank_acc"] == 0.75      # a, b, e
    assert out["card_acc"] == 0.5       # a, e
    assert out["called_back"] == 0.25
    assert out["sure_share"] == 0.5     # a, b
    assert out["sure_wrong"] == 1       # b
    assert out["rank_acc_outside"] == 1.0
    assert out["label_fixes"] == 1
    assert [w.split()[1] for w in out["wrong"]] == ["H/K->KS", "?/Q->back"]
