import pytest

from referee.cards import (
    BINOCOLO_48,
    FRENCH_32,
    FRENCH_52,
    ITALIAN_40,
    RECOGNISER_LABELS,
    Card,
    parse_card,
)
from referee.errors import BadCardError


@pytest.mark.parametrize("code", ["coppe_1", "spade_10", "10H", "QS", "AC", "2D"])
def test_card_codes_round_trip(code: str) -> None:
    assert parse_card(code).code == code
    assert eval(repr(parse_card(code))) == parse_card(code)


@pytest.mark.parametrize("code", ["coppe_0", "coppe_11", "1H", "11S", "QX", "", "spade", "10h"])
def test_bad_codes_name_the_code(code: str) -> None:
    with pytest.raises(BadCardError, match=repr(code).replace("\\", "\\\\")):
        parse_card(code)


def test_deck_sizes() -> None:
    assert (len(ITALIAN_40), len(FRENCH_52), len(FRENCH_32), len(BINOCOLO_48)) == (40, 52, 32, 48)
    assert len(set(BINOCOLO_48)) == 24
    assert Card("H", "A") in FRENCH_32 and Card("H", "6") not in FRENCH_32


def test_recogniser_labels_have_a_back_class() -> None:
    assert len(RECOGNISER_LABELS["italian"]) == 41 and RECOGNISER_LABELS["italian"][-1] == "back"
    assert len(RECOGNISER_LABELS["french"]) == 53
