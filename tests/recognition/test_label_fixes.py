"""Label fixes of the real photo sets (:mod:`referee.recognition.label_fixes`): the committed files
apply to their sets, the benchmark scores a set both as labelled and fixed, and a malformed file
is a clear error naming the file and line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from recognition.benchmark_module import load_benchmark
from referee.errors import ConfigError
from referee.paths import shared_dir
from referee.recognition.label_fixes import NO_CARD, load_label_fixes

HEADER = "photo,label,shows,xmin,ymin,xmax,ymax,checked\n"



def _file(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "set_label_fixes.csv"
    path.write_text("# how to write it\n" + header + "".join(r + "\n" for r in rows))
    return path


def test_a_relabelled_card_an_added_card_and_a_label_on_no_card(tmp_path: Path) -> None:
    path = _file(tmp_path, 'IMG_1.JPG,9,10D,,,,,"me, today: ten pips"', "IMG_1.JPG,,KS,10,20,110,160,me today",
                 "IMG_2.JPG,Q,none,,,,,me today: a napkin")
    fixes = load_label_fixes(path)
    assert [(f.photo, f.label, f.shows, f.box, f.line) for f in fixes] == [
        ("IMG_1.JPG", "9", "10D", None, 3), ("IMG_1.JPG", "", "KS", (10.0, 20.0, 110.0, 160.0), 4),
        ("IMG_2.JPG", "Q", NO_CARD, None, 5)]
    bench = load_benchmark("vision_photos")
    truths = {Path("IMG_1.JPG"): [bench.Truth("9?", (0, 0, 50, 80), raw="9")],
              Path("IMG_2.JPG"): [bench.Truth("Q?", (0, 0, 50, 80), raw="Q")]}
    fixed = bench.with_fixes(truths, fixes, "french")
    assert [t.label for t in fixed[Path("IMG_1.JPG")]] == ["10D", "KS"] and fixed[Path("IMG_2.JPG")] == []
    assert [t.label for t in truths[Path("IMG_1.JPG")]] == ["9?"]  # the labels as given stay


def test_no_file_is_no_fix(tmp_path: Path) -> None:
    assert load_label_fixes(tmp_path / "absent.csv") == []


@pytest.mark.parametrize(("rows", "header", "says"), [
    (["IMG_1.JPG,9,10D,,,,,me"], "photo,label,card\n", "expected the header photo,label,shows"),
    (["IMG_1.JPG,9,10D,me"], HEADER, "expected 8 fields"),
    (["IMG_1.JPG,9,10X,,,,,me"], HEADER, "shows: not a card code: '10X'"),
    (["IMG_1.JPG,,KS,,,,,me"], HEADER, "a card the labels leave out needs its box"),
    (["IMG_1.JPG,9,10D,,,,,"], HEADER, "checked: empty"),
    (["IMG_1.JPG,9,10D,50,20,10,160,me"], HEADER, "box: expected 0 <= xmin < xmax"),
    (["IMG_1.JPG,9,10D,a,b,c,d,me"], HEADER, "box: expected four numbers"),
    ([",9,10D,,,,,me"], HEADER, "photo: empty"),
])
def test_a_malformed_row_names_the_file_and_line(tmp_path: Path, rows: list[str], header: str, says: str) -> None:
    path = _file(tmp_path, *rows, header=header)
    line = 2 if "header" in says else 3
    with pytest.raises(ConfigError, match=f"{path}:{line}: .*{says}".replace("(", r"\(").replace(")", r"\)")):
        load_label_fixes(path)


@pytest.mark.parametrize(("row", "says"), [
    ("IMG_9.JPG,9,10D,,,,,me", "photo 'IMG_9.JPG' is not one of the set's labelled photos"),
    ("IMG_1.JPG,J,10D,,,,,me", "IMG_1.JPG has no label 'J'; its labels: 9"),
    ("IMG_1.JPG,9,coppe_3,,,,,me", "shows 'coppe_3': not a card of the set's french deck"),
])
def test_a_fix_the_set_does_not_match_names_the_file_and_line(tmp_path: Path, row: str, says: str) -> None:
    path = _file(tmp_path, row)
    bench = load_benchmark("vision_photos")
    truths = {Path("IMG_1.JPG"): [bench.Truth("9?", (0, 0, 50, 80), raw="9")]}
    with pytest.raises(ConfigError) as exc:
        bench.with_fixes(truths, load_label_fixes(path), "french")
    assert str(exc.value).startswith(f"{path}:3: ") and says in str(exc.value)


def test_two_labels_alike_need_the_box(tmp_path: Path) -> None:
    bench = load_benchmark("vision_photos")
    truths = {Path("IMG_1.JPG"): [bench.Truth("9?", (0, 0, 50, 80), raw="9"), bench.Truth("9?", (60, 0, 110, 80), raw="9")]}
    with pytest.raises(ConfigError, match="more than one label"):
        bench.with_fixes(truths, load_label_fixes(_file(tmp_path, "IMG_1.JPG,9,10D,,,,,me")), "french")
    fixed = bench.with_fixes(truths, load_label_fixes(_file(tmp_path, "IMG_1.JPG,9,10D,60,0,110,80,me")), "french")
    assert [t.label for t in fixed[Path("IMG_1.JPG")]] == ["9?", "10D"]


@pytest.mark.parametrize("name", ["pinochle", "triestine"])
@pytest.mark.shared("photos")
def test_the_committed_fixes_apply_to_their_set(name: str) -> None:
    bench = load_benchmark("vision_photos")
    family, loader = bench.SETS[name]
    fixes = load_label_fixes(bench.fixes_file(name))
    if not fixes:
        pytest.skip(f"no label fixes for {name}")
    truths = loader(shared_dir() / "photos")
    fixed = bench.with_fixes(truths, fixes, family)
    assert fixed != truths and all(f.checked for f in fixes)


def test_two_photos_of_one_name_in_two_folders_are_each_scored_against_their_own_labels() -> None:
    """EPFL's rounds repeat file names from one game's folder to the next: a record keyed by the
    file name alone scored every round against one round's labels."""
    bench = load_benchmark("vision_photos")
    root = shared_dir() / "photos" / "some_set"
    first, second = root / "game1" / "1.jpg", root / "game2" / "1.jpg"
    truths = {first: [bench.Truth("AS", (0.0, 0.0, 100.0, 150.0))], second: [bench.Truth("KH", (0.0, 0.0, 100.0, 150.0))]}
    quad = [[0, 0], [100, 0], [100, 150], [0, 150]]

    def record(path: Path, card: str) -> object:
        return bench.Record("some_set", bench.photo_key(path), {"cards": [{"card": card, "confidence": 0.99, "quad": quad}], "ms": 1.0},
                            (300, 400, 3), False)

    every, _ = bench.tally([record(first, "AS"), record(second, "KH")], truths)
    assert every.cards == 2 and every.right == 2


def test_a_card_whose_quad_runs_past_the_photo_is_scored_by_its_part_inside_it() -> None:
    """IMG_2611's ace lies half off the photo: its quad's own centre fell outside the label box
    (cut at the photo's border), so a right read was counted as a box on no card."""
    bench = load_benchmark("vision_photos")
    shape = (504, 378, 3)
    photo = shared_dir() / "photos" / "some_set" / "a.jpg"
    truths = {photo: [bench.Truth("A?", (294.0, 231.0, 378.0, 357.0))]}
    past = [[300, 230], [470, 230], [470, 357], [300, 357]]  # most of it past the right border (378)
    assert not bench.on_truth(truths[photo][0], np.mean(np.array(past, float), axis=0), shape)
    assert bench.visible_centre(past, shape)[0] == pytest.approx((300 + 378) / 2, abs=0.5)

    def scored(card: str, quad: list[list[int]]) -> tuple[int, int]:
        record = bench.Record("some_set", bench.photo_key(photo), {"cards": [{"card": card, "confidence": 0.51, "quad": quad}], "ms": 1.0},
                              shape, False)
        every, _ = bench.tally([record], truths)
        return every.right, every.false["non-card"]

    assert scored("AD", past) == (1, 0)
    # a quad inside the photo is scored by its own centre, as before
    assert scored("AD", [[10, 10], [90, 10], [90, 130], [10, 130]]) == (0, 1)
