"""``referee enroll`` checks the photos' names before a slip becomes a wrong prototype: the EPFL
set's own CSV slips (a card named twice, another missing) and two swapped files of a print the
base model knows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from recognition.benchmark_module import load_benchmark
from referee.cards import DECKS
from referee.cli import main
from referee.errors import ConfigError
from referee.paths import models_dir, shared_dir
from referee.recognition import CardClassifier, Enrollment
from referee.recognition.dataset import render_set
from referee.recognition.enroll import checked_enroll
from referee.recognition.enroll_check import BASE_SURE, _coverage, check_names, shots_per_card
from referee.recognition.rectify import cut_card

EPFL = shared_dir() / "photos" / "french_suits_epfl_iapr2021_custom_topdown"
FRENCH_52 = DECKS["french-52"].codes
#: a print the committed French model was trained on (it reads it ~95 % right)
KNOWN_PRINT = "bellot_svgcards_lgpl/french"


@pytest.fixture(scope="module")
def base() -> CardClassifier:
    if not (models_dir() / "french.onnx").exists():
        pytest.skip("no committed french model")
    return CardClassifier.load("french", threads=1)


@pytest.fixture(scope="module")
def epfl(base: CardClassifier, need_shared: Callable[[str], Path]) -> list[tuple[np.ndarray, str, str, int]]:
    """(crop, code as the CSV names it, 'g<game>/<photo>:<side>', game) for games 1-3."""
    need_shared(str(EPFL.relative_to(shared_dir())))
    cards = load_benchmark("enroll_photos").load_epfl(shared_dir(), base.input_size)
    return [(c.crop, c.code, f"g{c.game}/{c.image.name}:{c.side}", c.game)
            for c in cards if c.game <= 3 and c.crop is not None]


@pytest.fixture(scope="module")
def known_print(base: CardClassifier, need_shared: Callable[[str], Path]) -> tuple[list[np.ndarray], list[str]]:
    """One render of every face of a print the base model knows, named right."""
    need_shared(f"faces/{KNOWN_PRINT}")
    data = render_set("french", [KNOWN_PRINT], 1, seed=21, back_count=0, workers=1)
    return [np.asarray(c, np.uint8) for c in data.images], [base.labels[i] for i in data.labels]


def sure_pair(base: CardClassifier, crops: list[np.ndarray], codes: list[str]) -> tuple[str, str]:
    """A pip card and a court card the base model reads as themselves surely, both ways up (7H
    and QS when it does): a swap of those two is certain. Chosen by the model, not fixed, so
    the tests hold for any model that knows the print, not only for the one they were written
    with (an earlier French model read the Bellot 7H render less surely)."""
    ahead, turned = base.classify(crops), base.classify([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    sure = [c for c, a, t in zip(codes, ahead, turned, strict=True)
            if a.card == c and t.card == c and a.confidence >= BASE_SURE]
    pips = [c for c in ["7H", *sure] if c in sure and c[:-1] not in ("J", "Q", "K")]
    courts = [c for c in ["QS", *sure] if c in sure and c[:-1] in ("J", "Q", "K")]
    return pips[0], courts[0]


def on_table(crop: np.ndarray) -> np.ndarray:
    """A card photographed on a dark table."""
    table = np.full((crop.shape[0] + 60, crop.shape[1] + 60, 3), 40, np.uint8)
    table[30:-30, 30:-30] = crop
    return table


def test_the_epfl_csvs_slip_in_game_2_is_named_with_the_cards_it_misses(
        epfl: list[tuple[np.ndarray, str, str, int]], base: CardClassifier) -> None:
    """Game 2 as its CSV labels it: KS, 6H, 6S named twice; KC, 9H, 9S have no photo."""
    game = [s for s in epfl if s[3] == 2]
    check = check_names(base, [s[0] for s in game], [s[1] for s in game], [s[2] for s in game], FRENCH_52)
    twice = {f.code: f for f in check.named("coverage")}
    assert set(twice) == {"KS", "6H", "6S"}
    assert {c: f.likely for c, f in twice.items()} == {"KS": ("KC",), "6H": ("9H",), "6S": ("9S",)}
    assert all(len(f.names) == 2 and "twice" in f.message and "is one of them" in f.message for f in twice.values())
    # the base model reads ~4 % of this deck: its opinion is no evidence, so no warning from it
    assert check.base_right < 0.1 and not check.named("base") and not check.certain


def test_a_photo_nearer_another_cards_photos_than_its_own_names_the_likely_card(
        epfl: list[tuple[np.ndarray, str, str, int]], base: CardClassifier) -> None:
    """Games 1-3 enrolled together (three photos a card): two of game 2's slips look like the
    cards the CSV misses; game 1, which the CSV names right, gives no warning at all."""
    check = check_names(base, [s[0] for s in epfl], [s[1] for s in epfl], [s[2] for s in epfl])
    found = {(f.names[0], f.code, f.likely[0]): f for f in check.named("embedding")}
    slips = {("g2/10.jpg:bottom", "KS", "KC"), ("g2/13.jpg:left", "6S", "9S")}
    assert slips <= set(found)
    # Any other warning is a photo named right that looks like one of the slips, and names it
    # (a French model may find g1's KC like g2/10's "KS", which is a KC).
    assert all("g2/10.jpg:bottom" in f.message or "g2/13.jpg:left" in f.message
               for key, f in found.items() if key not in slips)
    assert not check.certain  # twins exist: never a refusal on the embedding alone
    game1 = [s for s in epfl if s[3] == 1]
    assert not check_names(base, [s[0] for s in game1], [s[1] for s in game1], [s[2] for s in game1],
                           FRENCH_52).findings


def test_two_swapped_files_of_a_print_the_model_knows_are_refused_unless_forced(
        known_print: tuple[list[np.ndarray], list[str]], base: CardClassifier) -> None:
    crops, codes = known_print
    right = [(c, code, f"{code}.png") for c, code in zip(crops, codes, strict=True)]
    _, clean = checked_enroll(base, right, FRENCH_52)
    # named right: nothing refused, no coverage finding; at most a warning where the base
    # model itself misreads a render (e.g. the 8C as 9C), which it cannot tell from a slip
    assert not clean.certain and not clean.named("coverage") and clean.base_right >= 0.9
    pip, court = sure_pair(base, crops, codes)
    a, b = codes.index(pip), codes.index(court)
    swapped = list(right)
    swapped[a], swapped[b] = (crops[a], court, f"{court}.png"), (crops[b], pip, f"{pip}.png")
    with pytest.raises(ConfigError, match=rf"{court}\.png named {court} is {pip}.*{pip}\.png named {pip} is {court}.*--force"):
        checked_enroll(base, swapped, FRENCH_52)
    enrollment, check = checked_enroll(base, swapped, FRENCH_52, force=True)
    assert {(f.names, f.likely) for f in check.named("base") if f.certain} == {
        ((f"{court}.png",), (pip,)), ((f"{pip}.png",), (court,))}
    assert all(f.certain and "swapped" in f.message for f in check.certain)
    assert len(enrollment.codes) == 52  # forced: written as named


def test_enroll_command_warns_of_a_twice_named_card_and_refuses_a_swap(
        known_print: tuple[list[np.ndarray], list[str]], base: CardClassifier, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    crops, codes = known_print
    photos = tmp_path / "photos"
    photos.mkdir()
    tables = [on_table(crop) for crop in crops]
    pip, court = sure_pair(base, [cut_card(t) for t in tables], codes)  # as the command cuts them
    for table, code in zip(tables, codes, strict=True):
        name = {"9H": "6H-2", pip: court, court: pip}.get(code, code)  # 9H filed as a 2nd 6H; a swap
        cv2.imwrite(str(photos / f"{name}.png"), table)
    args = ["enroll", "--deck", "french", "--photos", str(photos), "--out", str(tmp_path / "club.npz"),
            "--expect", "french-52", "--threads", "1"]
    # the swap, and the twice-named 6H whose second photo the base model reads surely as the missing 9H
    with pytest.raises(ConfigError, match=r"3 photo\(s\) surely misnamed") as refused:
        main(args)
    for slip in ("6H-2.png named 6H is 9H", f"{pip}.png named {pip} is {court}", f"{court}.png named {court} is {pip}"):
        assert slip in str(refused.value)
    err = capsys.readouterr().err
    assert "6H named twice (6H-2.png, 6H.png); 9H has no photo: is one of them 9H?" in err
    assert "6H.png is named" not in err  # the right one of the two 6H photos is not blamed
    assert not (tmp_path / "club.npz").exists()
    assert main([*args, "--force"]) == 0
    assert len(Enrollment.load(tmp_path / "club.npz").codes) == 51


def test_extra_shots_of_every_card_are_not_duplicates() -> None:
    """``coppe_3-2.jpg`` extras: with two photos of every card, a third is the slip."""
    codes = [c for c in FRENCH_52 for _ in range(2)]
    assert shots_per_card(codes, FRENCH_52) == 2
    assert not _coverage(codes, [f"{c}.jpg" for c in codes], FRENCH_52)
    codes[codes.index("9H")] = "6H"
    found = _coverage(codes, [f"p{i}" for i in range(len(codes))], FRENCH_52)
    assert [(f.code, f.likely) for f in found] == [("6H", ("9H",))]
    assert "6H named 3 times" in found[0].message and "9H has only 1 photo" in found[0].message


def test_a_card_of_another_deck_and_unpaired_missing_cards_are_named() -> None:
    deck = DECKS["french-32"].codes
    codes = [c for c in deck if c not in ("AS", "7C")] + ["2H"]
    found = {f.code: f.message for f in _coverage(codes, [f"{c}.jpg" for c in codes], deck)}
    assert found == {"2H": "2H is not a card of this deck (2H.jpg)", "AS": "AS has no photo (others 1)",
                     "7C": "7C has no photo (others 1)"}


def test_grid_enrollment_names_cards_laid_in_each_others_place_by_position(
        known_print: tuple[list[np.ndarray], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--grid`` in the whole deck's order: two cards laid in each other's place are named by
    their position in the order (the cards' finding is tested in tests/vision/test_enroll_grid.py)."""
    from referee.vision import enroll_grid

    crops, codes = known_print
    by_code = dict(zip(codes, crops, strict=True))
    order = enroll_grid.deck_order("french")
    laid = [by_code[{"7H": "QS", "QS": "7H"}.get(c, c)] for c in order]

    def found(folder: Path, wanted: list[str]) -> list[tuple[np.ndarray, str]]:
        assert wanted == order  # the whole deck expected: --grid without --order
        return list(zip(laid, wanted, strict=True))

    monkeypatch.setattr(enroll_grid, "grid_crops", found)
    with pytest.raises(ConfigError, match=rf"card {order.index('7H') + 1} \(7H\) named 7H is QS"):
        main(["enroll", "--deck", "french", "--photos", str(tmp_path), "--grid", "--out", str(tmp_path / "g.npz"),
              "--threads", "1"])
    assert not (tmp_path / "g.npz").exists()
