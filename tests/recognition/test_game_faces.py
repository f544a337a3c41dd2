"""A recogniser that knows the game reads only the game's faces and ``back``
(:mod:`referee.recognition.game_faces`): the other labels' probabilities go to zero and each read is
renormalised over what is left, before the sureness rule; without a game nothing changes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from referee.cards import BACK, BINOCOLO_48, FRENCH_32, ITALIAN_40, RECOGNISER_LABELS
from referee.errors import ConfigError, ModelError
from referee.paths import models_dir
from referee.recognition import CardClassifier, Enrollment
from referee.recognition.game_faces import GameFaces
from referee.rules.errors import UnknownGameError

FRENCH = RECOGNISER_LABELS["french"]
needs_french = pytest.mark.skipif(not (models_dir() / "french.onnx").exists(), reason="no committed french model")


def _read(scores: dict[str, float], labels: tuple[str, ...] = FRENCH) -> np.ndarray:
    """One read's probabilities: ``scores`` on their labels, the rest shared evenly."""
    row = np.full((1, len(labels)), (1.0 - sum(scores.values())) / (len(labels) - len(scores)), np.float32)
    for code, p in scores.items():
        row[0, labels.index(code)] = p
    return row


def test_each_game_names_its_deck_family_faces_and_copies() -> None:
    binocolo, belotta, briscola = GameFaces.of("binocolo"), GameFaces.of("belotta"), GameFaces.of("briscola-4")
    assert (binocolo.family, binocolo.faces, binocolo.copies) == ("french", BINOCOLO_48.codes, 2)
    assert (belotta.family, belotta.faces, belotta.copies) == ("french", FRENCH_32.codes, 1)
    assert (briscola.family, briscola.faces, briscola.copies) == ("italian", ITALIAN_40.codes, 1)
    assert not any(code[:-1] in ("2", "3", "4", "5", "6") for code in belotta.faces)


def test_an_unknown_game_lists_the_known_ones() -> None:
    with pytest.raises(UnknownGameError, match=r"'pinochle'.*binocolo.*briscola-4"):
        GameFaces.of("pinochle")


def test_a_read_of_six_of_diamonds_is_under_binocolo_the_next_face_of_its_deck() -> None:
    probs = _read({"6D": 0.90, "7D": 0.05, "9D": 0.03, BACK: 0.001})
    out = GameFaces.of("binocolo").restrict(probs, FRENCH)
    assert FRENCH[int(out[0].argmax())] == "9D"  # 7D is no binocolo card either
    assert out[0, FRENCH.index("6D")] == 0.0 and out[0, FRENCH.index("7D")] == 0.0
    assert out[0].sum() == pytest.approx(1.0, abs=1e-6)
    # the rest keep their proportions: 9D over 'back' as before
    ratio = out[0, FRENCH.index("9D")] / out[0, FRENCH.index(BACK)]
    assert ratio == pytest.approx(0.03 / 0.001, rel=1e-4)


def test_a_read_of_six_of_diamonds_with_more_on_back_than_on_any_binocolo_face_is_no_card() -> None:
    probs = _read({"6D": 0.95, BACK: 0.04})
    out = GameFaces.of("binocolo").restrict(probs, FRENCH)
    assert FRENCH[int(out[0].argmax())] == BACK


def test_a_read_with_all_its_probability_on_faces_the_game_lacks_is_no_card() -> None:
    probs = np.zeros((1, len(FRENCH)), np.float32)
    probs[0, FRENCH.index("6D")] = 1.0
    out = GameFaces.of("binocolo").restrict(probs, FRENCH)
    assert out[0, FRENCH.index(BACK)] == 1.0 and out[0].sum() == 1.0


def test_a_game_played_with_the_whole_family_deck_changes_no_read() -> None:
    labels = RECOGNISER_LABELS["italian"]
    probs = _read({"coppe_3": 0.7, "spade_3": 0.2}, labels)
    assert GameFaces.of("briscola-2").restrict(probs, labels) is probs


def test_a_model_without_a_label_for_one_of_the_games_faces_is_refused_naming_it() -> None:
    with pytest.raises(ModelError, match=r"binocolo.*9C"):
        GameFaces.of("binocolo").read_labels(tuple(c for c in FRENCH if c != "9C"))


reads = arrays(np.float32, (3, len(FRENCH)), elements=st.floats(0.0, 1.0, width=32))


@settings(max_examples=60, deadline=None)
@given(reads, st.sampled_from(["binocolo", "belotta"]))
def test_no_read_under_a_game_names_a_card_its_deck_lacks(raw: np.ndarray, game: str) -> None:
    probs = (raw + np.float32(1e-6)) / (raw + np.float32(1e-6)).sum(axis=1, keepdims=True)
    faces = GameFaces.of(game)
    out = faces.restrict(probs.astype(np.float32), FRENCH)
    allowed = {*faces.faces, BACK}
    assert all(FRENCH[int(i)] in allowed for i in out.argmax(axis=1))
    assert np.allclose(out.sum(axis=1), 1.0, atol=1e-5)
    assert all(out[:, FRENCH.index(code)].max() == 0.0 for code in FRENCH if code not in allowed)


# --- through the classifier: a stand-in for the ONNX session, the committed model's JSON -------


class _Session:
    """An ONNX session stand-in whose every row reads ``scores`` (logits)."""

    def __init__(self, logits: np.ndarray, dim: int) -> None:
        self.logits, self.dim = logits, dim

    def get_inputs(self) -> list[Any]:
        class _Input:
            name = "input"

        return [_Input()]

    def run(self, _outputs: None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        n = len(feeds["input"])
        return [np.repeat(self.logits[None], n, axis=0), np.ones((n, self.dim), np.float32)]


def _classifier(logits: dict[str, float], game: GameFaces | None, enrollment: Enrollment | None = None) -> CardClassifier:
    info = CardClassifier.load("french", threads=1).info
    row = np.full(len(info.labels), -10.0, np.float32)
    for code, value in logits.items():
        row[info.labels.index(code)] = value
    clf = CardClassifier.load("french", threads=1, game=game)
    return CardClassifier(_Session(row, info.embedding_dim), info, enrollment, views=clf.views if enrollment is None else (),
                          sureness=clf.sureness, game=game)


@needs_french
def test_a_crop_read_as_six_of_diamonds_is_never_six_of_diamonds_under_binocolo() -> None:
    crop = np.full((96, 64, 3), 200, np.uint8)
    logits = {"6D": 8.0, "9D": 5.0, "10D": 2.0, BACK: -2.0}
    (plain,) = _classifier(logits, None).classify([crop])
    (game,) = _classifier(logits, GameFaces.of("binocolo")).classify([crop])
    assert plain.card == "6D"
    assert game.card == "9D" and all(code != "6D" for code, _ in game.top)


@needs_french
def test_the_sureness_rule_judges_the_share_of_back_among_the_games_faces() -> None:
    # 'back' holds 1% of the whole read (under the committed rule's 0.02), but once the six of
    # diamonds, no binocolo card, is taken away it holds over a tenth of what is left
    crop = np.full((96, 64, 3), 200, np.uint8)
    logits = {"6D": 9.0, "9D": 6.0, BACK: 4.5}
    (plain,) = _classifier(logits, None).classify([crop])
    (game,) = _classifier(logits, GameFaces.of("binocolo")).classify([crop])
    assert plain.card == "6D"
    assert game.card == BACK


@needs_french
def test_a_club_deck_enrolment_that_reads_six_of_diamonds_is_under_binocolo_read_over_binocolos_faces() -> None:
    # the stand-in's every crop embeds as all ones: nearest the six of diamonds' prototype
    dim = CardClassifier.load("french", threads=1).info.embedding_dim
    near = np.ones(dim, np.float32) / np.sqrt(dim)
    far = np.zeros(dim, np.float32)
    far[0] = 1.0
    club = Enrollment("french", ("6D", "9D"), np.stack([near, far]), "0" * 64, weight=0.9, scale=20.0)
    crop = np.full((96, 64, 3), 200, np.uint8)
    logits = {"6D": 5.0, "9D": 5.5, "10D": 1.0, BACK: -2.0}
    (plain,) = _classifier(logits, None, club).classify([crop])
    (game,) = _classifier(logits, GameFaces.of("binocolo"), club).classify([crop])
    assert plain.card == "6D"
    assert game.card == "9D" and all(code != "6D" for code, _ in game.top)


@needs_french
def test_a_game_of_the_other_family_is_refused_at_load() -> None:
    with pytest.raises(ConfigError, match=r"briscola-4.*italian.*not french"):
        CardClassifier.load("french", threads=1, game=GameFaces.of("briscola-4"))
