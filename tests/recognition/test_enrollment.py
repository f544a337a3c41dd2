"""Deck enrollment: prototype blending, the enrollment file, and ``referee enroll``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cards import BACK
from referee.cli import main
from referee.errors import BadCardError, ConfigError, ModelError
from referee.recognition import CardClassifier, Enrollment

LABELS = ("A", "B", "C", BACK)


def unit(v: list[float]) -> np.ndarray:
    a = np.array(v, np.float32)
    return a / np.linalg.norm(a)


def enrollment(codes: tuple[str, ...] = ("A", "B")) -> Enrollment:
    protos = np.stack([unit([1, 0, 0]), unit([0, 1, 0]), unit([0, 0, 1])][: len(codes)])
    return Enrollment("test", codes, protos, "sha", weight=0.7, scale=20.0)


def test_a_close_prototype_overrules_a_wrong_base_guess() -> None:
    base = np.array([[0.1, 0.8, 0.05, 0.05]], np.float32)  # base model says B
    out = enrollment().blend(base, unit([1, 0.05, 0])[None], LABELS)  # looks like A's prototype
    assert out[0].argmax() == 0
    assert out.sum() == pytest.approx(1.0)


def test_prototypes_do_not_steal_the_back_vote() -> None:
    base = np.array([[0.05, 0.05, 0.0, 0.9]], np.float32)
    out = enrollment().blend(base, unit([1, 0, 0])[None], LABELS)
    assert out[0, 3] == pytest.approx(0.9, abs=1e-5)


def test_cards_without_prototype_keep_their_base_share() -> None:
    base = np.array([[0.1, 0.1, 0.7, 0.1]], np.float32)
    out = enrollment().blend(base, unit([1, 0, 0])[None], LABELS)
    assert out[0, 2] == pytest.approx(0.7, abs=1e-5)


def test_enrollment_file_round_trips(tmp_path: Path) -> None:
    e = enrollment()
    e.save(tmp_path / "deck.npz")
    back = Enrollment.load(tmp_path / "deck.npz")
    assert back.codes == e.codes and np.allclose(back.prototypes, e.prototypes)
    with pytest.raises(ModelError, match=r"missing\.npz"):
        Enrollment.load(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"garbage")
    with pytest.raises(ModelError, match=r"bad\.npz"):
        Enrollment.load(tmp_path / "bad.npz")


def test_enroll_command_writes_prototypes_the_classifier_uses(
    smoke_models: Path, tmp_path: Path, face_drawer: Callable[..., np.ndarray]
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    for code, colour in (("AH", (0, 0, 255)), ("10C", (0, 0, 0)), ("10C-2", (10, 10, 10))):
        table = np.full((200, 160, 3), 40, np.uint8)
        table[30:170, 30:125] = cv2.resize(face_drawer(code, colour), (95, 140))
        cv2.imwrite(str(photos / f"{code}.jpg"), table)
    out = tmp_path / "club.npz"
    assert main(["enroll", "--deck", "french", "--photos", str(photos), "--out", str(out),
                 "--model-dir", str(smoke_models), "--threads", "1"]) == 0
    e = Enrollment.load(out)
    assert e.codes == ("10C", "AH") and e.prototypes.shape == (2, 128)
    clf = CardClassifier.load("french", smoke_models, enrollment=out)
    assert clf.enrollment is not None and len(clf.classify([table])) == 1


def test_enrollment_from_another_model_is_refused(smoke_models: Path, tmp_path: Path) -> None:
    e = Enrollment("french", ("AH",), unit([1] * 128)[None], "0" * 64)
    with pytest.raises(ModelError, match="another model"):
        CardClassifier.load("french", smoke_models, enrollment=e)


def test_photo_not_named_by_a_card_code_is_named_in_the_error(smoke_models: Path, tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    cv2.imwrite(str(tmp_path / "p" / "joker.jpg"), np.zeros((90, 60, 3), np.uint8))
    with pytest.raises(BadCardError, match=r"joker\.jpg"):
        main(["enroll", "--deck", "french", "--photos", str(tmp_path / "p"), "--out",
              str(tmp_path / "x.npz"), "--model-dir", str(smoke_models)])


def test_layout_file_enrolls_several_cards_per_photo(
    smoke_models: Path, tmp_path: Path, face_drawer: Callable[..., np.ndarray]
) -> None:
    table = np.full((200, 300, 3), 40, np.uint8)
    table[20:160, 20:115] = cv2.resize(face_drawer("QS", (0, 0, 0)), (95, 140))
    table[20:160, 160:255] = cv2.resize(face_drawer("KD", (0, 0, 255)), (95, 140))
    cv2.imwrite(str(tmp_path / "two.png"), table)
    layout = tmp_path / "layout.csv"
    layout.write_text("image,code,x0,y0,x1,y1\ntwo.png,QS,10,10,125,170\ntwo.png,KD,150,10,265,170\n")
    out = tmp_path / "club.npz"
    assert main(["enroll", "--deck", "french", "--photos", str(tmp_path), "--layout", str(layout),
                 "--out", str(out), "--model-dir", str(smoke_models)]) == 0
    assert Enrollment.load(out).codes == ("KD", "QS")


def test_layout_row_with_a_bad_code_names_the_line(smoke_models: Path, tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((100, 100, 3), np.uint8))
    layout = tmp_path / "layout.csv"
    layout.write_text("image,code,x0,y0,x1,y1\na.png,QS,0,0,50,90\na.png,ZZ,0,0,50,90\n")
    with pytest.raises(ConfigError, match=r"layout\.csv:3: .*ZZ"):
        main(["enroll", "--deck", "french", "--photos", str(tmp_path), "--layout", str(layout),
              "--out", str(tmp_path / "x.npz"), "--model-dir", str(smoke_models)])


def clustered_deck(n: int = 10) -> tuple[list[str], np.ndarray]:
    """``n`` cards the base model maps to one small region: a shared direction plus a small
    card-specific one (plain cosine between any two of them is ~0.99)."""
    rng = np.random.default_rng(0)
    common = unit(list(rng.normal(size=16)))
    own = rng.normal(size=(n, 16)).astype(np.float32)
    emb = common * 10 + own * 0.7
    return [f"C{i}" for i in range(n)], (emb / np.linalg.norm(emb, axis=1, keepdims=True)).astype(np.float32)


def test_centred_prototypes_tell_apart_cards_the_model_maps_close_together() -> None:
    codes, emb = clustered_deck()
    centred = Enrollment.from_embeddings("test", codes, emb, "sha")
    plain = Enrollment.from_embeddings("test", codes, emb, "sha", centered=False)
    assert centred.center is not None and np.linalg.norm(centred.center) > 0.5
    # each card is nearest its own prototype either way, but only about the centre by a margin
    for e in (centred, plain):
        assert (e.similarities(emb).argmax(axis=1) == np.arange(len(codes))).all()

    def gap(e: Enrollment) -> float:  # mean margin of the nearest prototype over the next
        top = np.sort(e.similarities(emb), axis=1)
        return float(np.mean(top[:, -1] - top[:, -2]))

    assert gap(centred) > 0.5 > 0.05 > gap(plain)


def test_a_handful_of_cards_is_not_centred() -> None:
    codes, emb = clustered_deck(3)  # the mean of 3 cards is not the deck's
    assert not np.any(Enrollment.from_embeddings("test", codes, emb, "sha").center)


def test_the_centre_round_trips_and_older_files_without_one_read_as_plain_cosine(tmp_path: Path) -> None:
    codes, emb = clustered_deck()
    e = Enrollment.from_embeddings("test", codes, emb, "sha").with_fit(0.9, 30.0)
    e.save(tmp_path / "deck.npz")
    back = Enrollment.load(tmp_path / "deck.npz")
    assert back.center is not None and e.center is not None and np.allclose(back.center, e.center)
    assert (back.weight, back.scale) == (0.9, 30.0)
    old = enrollment()
    np.savez_compressed(tmp_path / "old.npz", deck=old.deck, codes=np.array(old.codes), prototypes=old.prototypes,
                        model_sha256=old.model_sha256, weight=old.weight, scale=old.scale)
    loaded = Enrollment.load(tmp_path / "old.npz")
    assert loaded.center is None
    assert np.allclose(loaded.similarities(unit([1, 0, 0])[None]), [[1.0, 0.0]])


def random_units(n: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def test_a_card_put_down_the_other_way_up_matches_its_turned_prototype() -> None:
    """The embedding is not turn-invariant: a card photographed one way up and read the other
    way matches a prototype of its turned photo, not a blur of the two ways."""
    codes = [f"C{i}" for i in range(10)]
    up, turned = random_units(10, 32, 1), random_units(10, 32, 2)
    e = Enrollment.from_embeddings("test", codes, up, "sha", turned=turned, centered=False)
    both = Enrollment.from_embeddings("test", codes * 2, np.concatenate([up, turned]), "sha", centered=False)
    for reads in (up, turned):
        assert np.allclose(np.diag(e.similarities(reads)), 1.0, atol=1e-5)
    assert np.diag(both.similarities(turned)).max() < 0.9  # one averaged prototype matches neither


def pip_twins(noise: float, seed: int) -> tuple[list[str], np.ndarray]:
    """12 cards: 6 faces far apart, each in two suits told apart only by a small pip (a short
    offset along one direction), plus ``noise``."""
    rng = np.random.default_rng(seed)
    faces = random_units(6, 24, 3) * 3.0
    pip = np.zeros(24, np.float32)
    pip[0] = 0.4
    emb = np.concatenate([faces + pip, faces - pip]) + rng.normal(0, noise, (12, 24)).astype(np.float32)
    return [f"F{i}{s}" for s in "HS" for i in range(6)], emb.astype(np.float32)


def test_whitening_reads_cards_that_differ_only_in_a_small_pip_surely() -> None:
    codes, emb = pip_twins(0.0, 0)
    white = Enrollment.from_embeddings("test", codes, emb, "sha").with_fit(1.0, 20.0)
    plain = Enrollment.from_embeddings("test", codes, emb, "sha", whiten_shrink=None).with_fit(1.0, 20.0)
    assert white.whiten is not None and plain.whiten is None
    _, reads = pip_twins(0.02, 1)  # the same cards photographed again
    labels = (*codes, BACK)
    base = np.full((12, 13), 0.99 / 12, np.float32)  # a base model that knows no card of this deck
    base[:, -1] = 0.01
    for e, sure in ((white, True), (plain, False)):
        out = e.blend(base, reads, labels)
        assert (out.argmax(axis=1) == np.arange(12)).all()
        assert bool((out.max(axis=1) >= 0.8).all()) is sure


def test_whitening_and_turned_prototypes_round_trip_and_older_files_have_neither(tmp_path: Path) -> None:
    codes, emb = pip_twins(0.0, 0)
    e = Enrollment.from_embeddings("test", codes, emb, "sha", turned=emb[::-1].copy())
    e.save(tmp_path / "deck.npz")
    back = Enrollment.load(tmp_path / "deck.npz")
    assert back.whiten is not None and back.turned is not None
    assert np.allclose(back.similarities(emb), e.similarities(emb), atol=1e-5)
    old = enrollment()
    np.savez_compressed(tmp_path / "old.npz", deck=old.deck, codes=np.array(old.codes), prototypes=old.prototypes,
                        model_sha256=old.model_sha256, weight=old.weight, scale=old.scale,
                        center=np.zeros(3, np.float32))
    loaded = Enrollment.load(tmp_path / "old.npz")
    assert loaded.whiten is None and loaded.turned is None
    assert np.allclose(loaded.similarities(unit([0, 1, 0])[None]), [[0.0, 1.0]])


def test_an_enrollment_file_whose_arrays_do_not_fit_names_itself(tmp_path: Path) -> None:
    codes, emb = pip_twins(0.0, 0)
    e = Enrollment.from_embeddings("test", codes, emb, "sha", turned=emb.copy())
    assert e.center is not None and e.whiten is not None
    np.savez_compressed(tmp_path / "cut.npz", deck=e.deck, codes=np.array(e.codes), prototypes=e.prototypes,
                        model_sha256=e.model_sha256, weight=e.weight, scale=e.scale,
                        center=e.center, whiten=e.whiten, turned=e.prototypes[:5])
    with pytest.raises(ModelError, match=r"cut\.npz: turned has shape \(5, 24\)"):
        Enrollment.load(tmp_path / "cut.npz")


def test_a_crop_nearer_a_prototype_than_two_cards_are_overrules_the_base_models_back_vote() -> None:
    """A base model trained on paper negatives may call a deck of plain white faces 'back'."""
    codes, emb = pip_twins(0.0, 0)
    e = Enrollment.from_embeddings("test", codes, emb, "sha").with_fit(0.97, 20.0)
    assert e.back_gate is not None and 0.0 < e.back_gate < 1.0  # the two nearest cards' similarity
    assert e.back_gate == pytest.approx(e.nearest_other_card())
    labels = (*codes, BACK)
    base = np.full((2, 13), 0.05 / 12, np.float32)
    base[:, -1] = 0.95  # the base model says 'back'
    _, again = pip_twins(0.02, 1)  # the same cards photographed again
    far = random_units(1, 24, 9)[0] * 3.0  # something no card looks like
    out = e.blend(base, np.stack([again[0], far]).astype(np.float32), labels)
    assert out[0].argmax() == e.codes.index(codes[0]) and out[0].max() >= 0.8
    assert out[1, -1] == pytest.approx(0.95, abs=1e-5)  # a crop like no card keeps the back vote
    older = replace(e, back_gate=None)  # files written before the gate: the back vote stands
    assert older.blend(base, again[:1], labels)[0, -1] == pytest.approx(0.95, abs=1e-5)


def test_the_back_gate_round_trips_and_older_files_have_none(tmp_path: Path) -> None:
    codes, emb = pip_twins(0.0, 0)
    e = Enrollment.from_embeddings("test", codes, emb, "sha")
    e.save(tmp_path / "deck.npz")
    assert Enrollment.load(tmp_path / "deck.npz").back_gate == pytest.approx(e.back_gate)
    assert Enrollment.from_embeddings("test", codes, emb, "sha", whiten_shrink=None).back_gate is None
    enrollment().save(tmp_path / "plain.npz")
    assert Enrollment.load(tmp_path / "plain.npz").back_gate is None
