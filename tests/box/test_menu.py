"""Contract entry menu: each game's fields give the rules core's contract event."""

from __future__ import annotations

from referee.box.menu import CANCELLED, ContractMenu, has_contract
from referee.cards import ITALIAN_40

SEATS = ("N", "W", "S", "E")


def run(menu: ContractMenu, actions: list[str]) -> object:
    result: object = None
    for action in actions:
        result = menu.press(action)
    return result


def test_belotta_seat_and_trump() -> None:
    menu = ContractMenu("belotta", SEATS)
    assert run(menu, ["prev", "select", "prev", "select"]) == {"event": "contract", "seat": "E", "trump": "S"}


def test_chiamata_called_card_suit_then_rank_points_tens_then_units_and_in_mano() -> None:
    """40 cards and 60 point values are a few presses each: suit then rank, tens then units."""
    menu = ContractMenu("briscola-chiamata", ("A", "B", "C", "D", "E"))
    event = run(menu, ["next", "next", "select",  # seat C
                       "next", "select",  # the second suit
                       "prev", "select",  # its last rank
                       "next", "select", "prev", "select",  # 7_ then 0: 70
                       "next", "select"])  # in mano
    suits = list(dict.fromkeys(c.suit for c in ITALIAN_40))
    ranks = list(dict.fromkeys(c.rank for c in ITALIAN_40))
    assert event == {"event": "contract", "seat": "C", "called": f"{suits[1]}_{ranks[-1]}", "points": 70,
                     "in_mano": True}
    default = run(ContractMenu("briscola-chiamata", ("A", "B", "C", "D", "E")), ["select"] * 6)
    assert default == {"event": "contract", "seat": "A", "called": f"{suits[0]}_{ranks[0]}", "points": 61}


def test_binocolo_bid_tens_then_units_starts_at_the_minimum() -> None:
    four = ContractMenu("binocolo", SEATS)
    assert run(four, ["select"] * 4) == {"event": "contract", "seat": "N", "bid": 15, "trump": "C"}
    three = ContractMenu("binocolo", ("N", "W", "S"))
    assert run(three, ["select", "next", "select", "next", "select", "next", "next", "select"]) == {
        "event": "contract", "seat": "N", "bid": 36, "trump": "H",
    }


def test_back_and_cancel() -> None:
    menu = ContractMenu("belotta", SEATS)
    assert menu.press("select") is None
    assert menu.press("back") is None and menu.at == 0
    assert menu.press("back") == CANCELLED
    assert ContractMenu("belotta", SEATS).press("cancel") == CANCELLED


def test_screen_shows_field_and_value_in_language() -> None:
    menu = ContractMenu("belotta", SEATS)
    menu.press("select")
    menu.press("next")
    menu.press("next")
    it, en = menu.screen("it"), menu.screen("en")
    assert (it.label_key, it.value, it.step) == ("field_trump", "♥ cuori", "2/2")
    assert en.value == "♥ hearts"


def test_only_contract_games_have_a_menu() -> None:
    assert has_contract("belotta") and not has_contract("briscola-4")
