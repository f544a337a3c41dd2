"""Shared trick helpers (winner, obligation sets) and option parsing, independent of any game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest

from referee.cards import BINOCOLO_48, FRENCH_32, ITALIAN_40, parse_card
from referee.rules import OptionError, parse_options
from referee.rules.options import GameOptions, option_table
from referee.rules.tricks import (
    BRISCOLA_STRENGTH,
    Trick,
    best_of_suit,
    breaks,
    follow_suit,
    overtrump,
    stronger_cards,
    suit_cards,
    trump_when_void,
    winner_index,
)

ACE_HIGH = {r: i for i, r in enumerate(("9", "J", "Q", "K", "10", "A"))}


def cards(*codes: str) -> list:  # type: ignore[type-arg]
    return [parse_card(c) for c in codes]


def trick(*plays: tuple[str, str]) -> Trick:
    return Trick(1, plays[0][0] if plays else "N", [(s, parse_card(c)) for s, c in plays])


def test_winner_first_of_two_identical_cards() -> None:
    assert winner_index(cards("AS", "AS", "10S"), "H", ACE_HIGH) == 0


def test_winner_trump_over_led_suit_and_led_over_off_suit() -> None:
    assert winner_index(cards("9S", "AD", "9H", "10H"), "H", ACE_HIGH) == 3
    assert winner_index(cards("9S", "AD", "KS"), "H", ACE_HIGH) == 2
    assert winner_index(cards("coppe_2", "coppe_1"), None, BRISCOLA_STRENGTH) == 1


def test_suit_and_stronger_sets() -> None:
    assert len(suit_cards(ITALIAN_40, "spade")) == 10 and len(suit_cards(BINOCOLO_48, "S")) == 6
    assert {c.code for c in stronger_cards(BINOCOLO_48, parse_card("KS"), ACE_HIGH)} == {
        "10S",
        "AS",
    }
    assert stronger_cards(ITALIAN_40, parse_card("coppe_1"), BRISCOLA_STRENGTH) == frozenset()
    assert best_of_suit(cards("9H", "AH", "AS"), "H", ACE_HIGH) == parse_card("AH")
    assert best_of_suit(cards("9S"), "H", ACE_HIGH) is None


def test_obligation_helpers() -> None:
    t = trick(("N", "9S"), ("W", "JH"))
    assert follow_suit(FRENCH_32, t, parse_card("7S")) == []
    revoke = follow_suit(FRENCH_32, t, parse_card("7D"))
    assert revoke[0].rule == "revoke" and parse_card("AS") in revoke[0].cards
    assert trump_when_void(FRENCH_32, t, parse_card("7H"), "H") == []
    assert trump_when_void(FRENCH_32, t, parse_card("7D"), "H")[0].rule == "must_trump"
    under = overtrump(FRENCH_32, t, parse_card("9H"), "H", ACE_HIGH | {"7": -2, "8": -1})
    assert under[0].rule == "must_overtrump" and parse_card("QH") in under[0].cards
    assert overtrump(FRENCH_32, t, parse_card("AH"), "H", ACE_HIGH | {"7": -2, "8": -1}) == []
    assert breaks(revoke, cards("AS")) == revoke[0] and breaks(revoke, cards("AD")) is None
    assert follow_suit(FRENCH_32, Trick(1, "N"), parse_card("7D")) == []  # leading is free


@dataclass(frozen=True)
class Opts(GameOptions):
    tie: Literal["a", "b"] = "a"
    count: int = 2
    ratio: float = 0.5
    flag: bool = False
    limit: int | None = None


def test_parse_options_accepts_declared_types() -> None:
    o = parse_options(Opts, {"tie": "b", "count": 3, "ratio": 1, "flag": True, "limit": None})
    assert o == Opts(tie="b", count=3, ratio=1, flag=True, limit=None)
    assert parse_options(Opts, None) == Opts()


@pytest.mark.parametrize(
    ("given", "key"),
    [
        ({"nope": 1}, "nope"),
        ({"tie": "c"}, "tie"),
        ({"count": True}, "count"),
        ({"count": 1.5}, "count"),
        ({"ratio": "x"}, "ratio"),
        ({"flag": 1}, "flag"),
        ({"limit": "3"}, "limit"),
        ({"out_of_turn": "forgive"}, "out_of_turn"),
    ],
)
def test_parse_options_names_the_bad_key(given: dict[str, object], key: str) -> None:
    with pytest.raises(OptionError, match=f"'{key}'"):
        parse_options(Opts, given, game="g")


def test_option_table_lists_every_option_with_its_default() -> None:
    rows = {name: (words, default) for name, words, default in option_table(Opts)}
    assert rows["tie"] == ("one of 'a', 'b'", "a") and rows["limit"][1] is None
    assert set(rows) == {"out_of_turn", "tie", "count", "ratio", "flag", "limit"}
