"""Enrolling the club's deck at the table: a deck laid out in a grid under the box's camera
(rendered by the simulator), found and named by place, refused naming the places when a card
is missing, doubled or too many; enrolled, written, and read back with a typed report."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from referee.box.config import BoxConfig
from referee.box.enrol_deck import DeckEnrolment, EnrolReport, enrollment_in_use, enrollment_path
from referee.errors import ConfigError
from referee.paths import models_dir
from referee.recognition import CardClassifier, Enrollment
from referee.recognition.enroll_readback import Confusion, ReadBack, read_back
from referee.recognition.views import LIVE_VIEWS
from referee.vision.enroll_grid import (
    GridPlan,
    LayoutError,
    card_quads,
    check_order,
    locate,
    plan_grid,
    table_order,
)
from referee.vision.simulator import SceneSpec, render_scene
from referee.vision.simulator.deck_grid import LaidOutDeck, laid_out_scene

ITALIAN = table_order("italian", "italian-40")
#: a laid-out table, frames of it, the true quads of the first frame's cards
Table = tuple[LaidOutDeck, list[np.ndarray], list[np.ndarray]]


@pytest.fixture(scope="module")
def italian_table() -> Table:
    """The 40 Napoletane-order cards laid out under a simulated box camera: two frames and
    the true quads of the first."""
    table = LaidOutDeck(ITALIAN, plan_grid(len(ITALIAN), "italian"), seed=3)
    table.lay_out(0)
    frames = list(table.frames(2))
    return table, [f.image for f in frames], [c.quad for c in frames[0].cards]


def test_the_box_camera_holds_a_40_card_deck_in_one_layout_and_a_52_card_deck_in_two() -> None:
    italian = plan_grid(40, "italian")
    assert italian.layouts == 1 and italian.cards == 40 and italian.card_px >= 80
    assert plan_grid(32, "french").layouts == 1
    french = plan_grid(52, "french")
    assert french.layouts == 2 and [len(c) for c in french.layout_codes(table_order("french", "french-52"))] == [27, 25]
    assert french.describe() == "52 cards: 2 layouts of 27 (the last of 25), rows of 9"
    assert french.describe("it") == "52 carte: 2 disposizioni da 27 (l'ultima da 25), file da 9"
    assert italian.describe("it") == "40 carte: 1 disposizione, 4 file da 10"
    with pytest.raises(ConfigError, match=r"only 72 px tall .* at least 80 px"):
        plan_grid(40, "italian", frame_size=(640, 450))


def test_binocolo_is_laid_out_with_both_copies_of_each_card() -> None:
    order = table_order("french", "binocolo-48")
    assert len(order) == 48 and order[:4] == ["9C", "9C", "10C", "10C"]


def test_every_card_of_a_rendered_deck_is_found_at_its_place(italian_table: Table) -> None:
    table, images, truth = italian_table
    plan = table.plan
    quads = card_quads(images[0], most=40, markers=table.markers())
    at, problems = locate(quads, ITALIAN, plan.columns)
    assert problems == []
    centres = np.array([quads[i].mean(axis=0) for i in at])
    expected = np.array([q.mean(axis=0) for q in truth])
    assert float(np.abs(centres - expected).max()) < 5.0  # the n-th place holds the n-th card


def _without(scene: SceneSpec, *indices: int) -> SceneSpec:
    return dataclasses.replace(scene, cards=tuple(c for i, c in enumerate(scene.cards) if i not in indices))


def test_a_missing_card_is_named_by_its_row_column_and_code() -> None:
    plan = plan_grid(len(ITALIAN), "italian")
    rng = np.random.default_rng(5)
    scene = _without(laid_out_scene(ITALIAN, plan.columns, plan.card_px, rng), 17)
    image = render_scene(scene, rng).image
    _, problems = locate(card_quads(image, most=40), ITALIAN, plan.columns)
    row, column = divmod(17, plan.columns)
    assert problems == [f"row {row + 1}, column {column + 1} ({ITALIAN[17]}): no card found"]


def test_a_card_where_the_order_lists_none_is_named() -> None:
    # the club laid out the whole deck but the order (a file of its cards) lists one fewer
    plan = plan_grid(len(ITALIAN), "italian")
    rng = np.random.default_rng(6)
    image = render_scene(laid_out_scene(ITALIAN, plan.columns, plan.card_px, rng), rng).image
    _, problems = locate(card_quads(image, most=40), ITALIAN[:-1], plan.columns)
    row, column = divmod(39, plan.columns)
    assert problems == [f"row {row + 1}, column {column + 1}: a card where the order lists none "
                        f"(39 cards in rows of {plan.columns})"]


def test_an_order_naming_a_card_twice_is_refused_naming_both_places() -> None:
    plan = plan_grid(40, "italian")
    order = [*ITALIAN[:39], "coppe_3"]
    places = "; ".join(f"row {r + 1}, column {c + 1}" for r, c in
                       (divmod(n, plan.columns) for n, code in enumerate(order) if code == "coppe_3"))
    with pytest.raises(ConfigError, match=f"the order lists coppe_3 2 times \\({places}\\): each card once"):
        check_order(order, plan, "italian")
    binocolo = table_order("french", "binocolo-48")
    check_order(binocolo, plan_grid(48, "french"), "french", copies=2)  # two copies of each: right
    with pytest.raises(ConfigError, match="the order lists 9C 3 times"):
        check_order([*binocolo[:47], "9C"], plan_grid(48, "french"), "french", copies=2)
    with pytest.raises(ConfigError, match="lists 9C: not cards of the 'italian' recogniser"):
        check_order([*ITALIAN[:39], "9C"], plan, "italian")


class _Reads:
    """A stand-in classifier whose reads are set per crop (the crop's first pixel numbers it)."""

    labels = ("a_1", "a_2", "a_3", "back")

    def __init__(self, probs: Sequence[Sequence[float]]) -> None:
        self.probs = np.array(probs, np.float32)

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        return np.stack([self.probs[int(c[0, 0, 0]) % len(self.probs)] for c in crops])


def test_the_read_back_names_each_card_it_would_confuse_with_its_pair_and_margin(
        monkeypatch: pytest.MonkeyPatch) -> None:
    crops = [np.full((96, 64, 3), i, np.uint8) for i in range(3)]
    # a_1 read surely; a_2 read as itself but unsure against a_3; a_3 read as a_2
    clf = _Reads([[0.95, 0.03, 0.01, 0.01], [0.05, 0.55, 0.40, 0.0], [0.0, 0.7, 0.3, 0.0]])
    # jittered copies change the pixels: keep every read of a crop the crop's own
    monkeypatch.setattr("referee.recognition.enroll_readback.jitter", lambda crop, rng: crop)
    report = read_back(cast(CardClassifier, clf), crops, ["a_1", "a_2", "a_3"], ["p1", "p2", "p3"])
    assert isinstance(report, ReadBack) and report.cards == 3 and report.right == 2
    worst, unsure = report.confused
    assert isinstance(worst, Confusion) and (worst.position, worst.code, worst.first, worst.second) == (
        "p3", "a_3", "a_2", "a_3")
    assert worst.other == "a_2" and worst.margin == pytest.approx(-0.4)
    assert unsure.code == "a_2" and unsure.other == "a_3" and unsure.margin == pytest.approx(0.15)
    lines = report.with_seconds(12.5).lines()
    assert lines[0] == "read back 3 cards: 2 right every time, 2 the box would still confuse; 12.5 s in all"
    assert lines[1] == "  confused: p3: a_3 / a_2 margin -0.40 (a_2 0.70, a_3 0.30, read as a_2)"


def _italian_model() -> CardClassifier:
    if not (models_dir() / "italian.onnx").exists():
        pytest.skip("no committed italian model")
    # as the box loads it: the live loop and an enrollment read each crop once
    return CardClassifier.load("italian", threads=1, views=LIVE_VIEWS)


def test_a_layout_with_a_missing_card_writes_nothing_and_names_the_place(tmp_path: Path) -> None:
    plan = plan_grid(len(ITALIAN), "italian")
    rng = np.random.default_rng(7)
    image = render_scene(_without(laid_out_scene(ITALIAN, plan.columns, plan.card_px, rng), 0), rng).image
    out = tmp_path / "enrollment-italian.npz"
    session = DeckEnrolment(_italian_model(), ITALIAN, plan, out)
    with pytest.raises(LayoutError, match=r"row 1, column 1 \(bastoni_1\): no card found.*Nothing was written") as err:
        session.capture(0, [image, image])
    assert err.value.problems == ("row 1, column 1 (bastoni_1): no card found",)
    with pytest.raises(ConfigError, match=r"layout\(s\) 1 not captured yet"):
        session.finish()
    assert not out.exists()


@pytest.mark.slow
def test_a_deck_laid_out_under_the_camera_is_enrolled_written_and_read_back(italian_table: Table,
                                                                             tmp_path: Path) -> None:
    table, images, _ = italian_table
    clf = _italian_model()
    out = tmp_path / "state" / "enrollment-italian.npz"
    ticks = iter(range(0, 1000, 2))
    session = DeckEnrolment(clf, ITALIAN, table.plan, out, markers=table.markers(), clock=lambda: float(next(ticks)))
    assert session.capture(0, images) == 40
    report = session.finish()
    assert isinstance(report, EnrolReport) and report.path == out and report.enrolled == 40 and report.layouts == 1
    assert Enrollment.load(out).codes == tuple(sorted(ITALIAN))
    assert report.readback.cards == 40 and report.readback.seconds == 4.0  # two captures and the finish timed
    # the default print is one the model knows: enrolled, nearly every card is read right
    assert report.readback.right >= 36
    assert all(c.margin < 0.8 for c in report.readback.confused)  # only unsure or wrong reads are listed
    assert report.lines()[0] == f"enrolled 40 cards of italian from 1 layout(s) -> {out}"


def test_the_box_uses_the_deck_enrolled_at_the_table_over_the_configs(cfg: BoxConfig, tmp_path: Path) -> None:
    configured = tmp_path / "club.npz"
    cfg = dataclasses.replace(cfg, enrollment=configured)
    assert enrollment_in_use(cfg) == configured
    made_here = enrollment_path(cfg, "italian")
    made_here.parent.mkdir(parents=True)
    made_here.write_bytes(b"")
    assert made_here == cfg.state_dir / "enrollment-italian.npz" and enrollment_in_use(cfg) == made_here
    french = dataclasses.replace(cfg, game=dataclasses.replace(cfg.game, name="belotta", deck="french"))
    assert enrollment_in_use(french) == configured  # the Italian deck's is not the French one's


def test_the_box_enrols_its_deck_from_single_reads_as_its_live_loop_reads(
        cfg: BoxConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """An enrolment's prototypes are compared with the live loop's single reads, so the box
    enrols with single reads too, whatever test-time views the model names for a photo."""
    from referee.box.enrol_deck import box_enrolment

    loaded: list[object] = []

    def load(*args: object, **kwargs: object) -> object:
        loaded.append(kwargs.get("views"))
        raise RuntimeError("stop here")

    monkeypatch.setattr(CardClassifier, "load", load)
    with pytest.raises(RuntimeError, match="stop here"):
        box_enrolment(cfg, object())
    assert loaded == [LIVE_VIEWS] == [()]


def test_grid_plan_is_plain_data() -> None:
    plan = GridPlan(52, 9, 3, 115.0)
    assert plan.per_layout == 27 and plan.layouts == 2


def test_enroll_camera_needs_a_source_and_takes_no_photos(tmp_path: Path) -> None:
    from referee.cli import main

    out = tmp_path / "x.npz"
    with pytest.raises(ConfigError, match="--camera needs --source"):
        main(["enroll", "--camera", "--order", "italian-40", "--out", str(out)])
    with pytest.raises(ConfigError, match="leave out --photos"):
        main(["enroll", "--camera", "--source", "sim", "--photos", str(tmp_path), "--order", "italian-40",
              "--out", str(out)])
    with pytest.raises(ConfigError, match=r"--photos is needed \(or --camera"):
        main(["enroll", "--deck", "italian", "--out", str(out)])
    assert not out.exists()


@pytest.mark.slow
def test_enroll_camera_on_a_simulated_box_writes_the_file_the_box_reads(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.box.config import load_config
    from referee.cli import main

    _italian_model()
    config = tmp_path / "config.toml"
    config.write_text('state_dir = "state"\n[game]\nname = "briscola-2"\nseats = ["N", "S"]\nteams = [["N"], ["S"]]\n'
                      '[camera]\nsource = "sim:1"\n')
    assert main(["enroll", "--camera", "--config", str(config)]) == 0
    said = capsys.readouterr().out.splitlines()
    cfg = load_config(config)
    assert said[0].startswith("lay the deck face up: 40 cards: 1 layout, 4 rows of 10,")
    assert said[0].endswith("(cards assumed 115 px tall (16% of the frame: the table is not calibrated); "
                            "the cards found are measured at capture)")
    assert said[2] == f"enrolled 40 cards of italian from 1 layout(s) -> {cfg.state_dir / 'enrollment-italian.npz'}"
    assert said[3].startswith("read back 40 cards: ") and said[3].endswith(" s in all")
    assert enrollment_in_use(cfg) == cfg.state_dir / "enrollment-italian.npz"
    assert Enrollment.load(cfg.state_dir / "enrollment-italian.npz").codes == tuple(sorted(ITALIAN))


def test_two_cards_at_one_place_are_named_and_a_row_short_of_cards_too() -> None:
    def quad(cx: float, cy: float) -> np.ndarray:
        return np.array([[cx - 30, cy - 50], [cx + 30, cy - 50], [cx + 30, cy + 50], [cx - 30, cy + 50]], np.float32)

    codes = ["7C", "8C", "9C", "10C", "JC", "QC"]
    grid = [quad(100 + 80 * c, 100 + 120 * r) for r in range(2) for c in range(3)]
    at, problems = locate(grid, codes, 3)
    assert problems == [] and at == list(range(6))
    # a card pushed half onto its neighbour's place, the next place left empty
    pushed = [*grid[:2], quad(100 + 80 * 1 + 25, 100), *grid[3:]]
    _, problems = locate(pushed, codes, 3)
    assert problems == ["row 1, column 2 (8C): 2 cards found (lay them apart)", "row 1, column 3 (9C): no card found"]


def test_a_pale_card_found_only_by_its_inner_frame_is_placed_and_cut_at_the_decks_card_size() -> None:
    from referee.vision.enroll_grid import _like_the_others

    def quad(cx: float, cy: float, w: float = 60.0, h: float = 100.0) -> np.ndarray:
        return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
                         [cx - w / 2, cy + h / 2]], np.float32)

    cards = [quad(100 + 80 * c, 100 + 120 * r) for r in range(2) for c in range(3)]
    # the card at row 1, column 2 found only by its pips' frame (83 % x 94 %); a pip of the
    # card at row 2, column 1 proposed as a card of that frame's size too
    found = [*cards[:1], quad(180, 100, 50, 94), *cards[2:], quad(100, 230, 50, 94)]
    kept = _like_the_others(found)
    assert len(kept) == 6
    grown = next(q for q in kept if abs(q.mean(axis=0) - (180, 100)).max() < 1)
    assert np.allclose(grown, cards[1], atol=0.5)  # the deck's card size at the frame's centre
    assert not any(np.allclose(q, found[-1]) for q in kept)  # the pip inside a card found is not a card
    _, problems = locate(kept, ["7C", "8C", "9C", "10C", "JC", "QC"], 3)
    assert problems == []


@pytest.mark.slow
def test_a_deck_at_the_documented_mounting_is_found_whole_past_card_sized_markers_and_pale_cards() -> None:
    # 1920x1080 at 76 cm (10.8 px per cm): the finder grows card-sized quads from the mat's
    # corner markers that hold only part of a marker, and finds bastoni 1 to 3, pale under
    # this seed's light, only by the frame inside their border
    plan = GridPlan(40, 10, 4, 102.6, calibrated=True)  # as planned within the corner kit's mat
    table = LaidOutDeck(ITALIAN, plan, seed=1, frame_size=(1920, 1080))
    table.lay_out(0)
    image = next(table.frames(1)).image
    quads = card_quads(image, most=40, markers=table.markers())
    at, problems = locate(quads, ITALIAN, plan.columns)
    assert problems == [] and len(at) == 40


def test_enroll_camera_refuses_a_camera_too_far_for_80_px_cards_before_opening_it(tmp_path: Path) -> None:
    from referee.cli import main
    from referee.vision.layout import MAT_SIZE, TableLayout
    from referee.vision.printable_mat import KIT_MAT_WIDTH_MM

    s = 0.72 * KIT_MAT_WIDTH_MM["A4"] / MAT_SIZE[0]  # 7.2 px per cm: 76 cm over the table at 1280x720
    homography = np.array([[s, 0, (1280 - s * MAT_SIZE[0]) / 2], [0, s, (720 - s * MAT_SIZE[1]) / 2], [0, 0, 1.0]])
    TableLayout.default(("N", "S"), (1280, 720), homography).save(tmp_path / "layout.json")
    config = tmp_path / "config.toml"
    config.write_text('state_dir = "state"\nlayout = "layout.json"\n[game]\nname = "briscola-2"\nseats = ["N", "S"]\n'
                      'teams = [["N"], ["S"]]\n[camera]\nsource = "usb:7"\n')
    with pytest.raises(ConfigError, match=r"only 68 px tall in the camera's 1280x720 frames \(measured by the "
                                          r"table's calibration\).*too far from the table.*Nothing was written"):
        main(["enroll", "--camera", "--config", str(config)])
    assert not (tmp_path / "state" / "enrollment-italian.npz").exists()
