"""Contract entry menu: each game's fields give the rules core's contract event."""

from __future__ import annotations

from referee.box.menu import CANCELLED, ContractMenu, has_contract

SEATS = ("N", "W", "S", "E")


def run(menu: ContractMenu, actions: list[str]) -> object:
    result: object = None
    for action in actions:
        result = menu.press(action)
    return result


def test_belotta_seat_and_trump() -> None:
    menu = ContractMenu("belotta", SEATS)
    assert run(menu, ["prev", "select", "prev", "select"]) == {"event": "contract", "seat": "E", "trump": "S"}


def test_chiamata_called_card_and_points() -> None:
    menu = ContractMenu("briscola-chiamata", ("A", "B", "C", "D", "E"))
    event = run(menu, ["next", "next", "select", "next", "next", "select", "next", "select"])
    assert event == {"event": "contract", "seat": "C", "called": "bastoni_3", "points": 62}


def test_binocolo_bid_minimum_depends_on_players() -> None:
    four = ContractMenu("binocolo", SEATS)
    assert run(four, ["select", "select", "select"]) == {"event": "contract", "seat": "N", "bid": 15, "trump": "C"}
    three = ContractMenu("binocolo", ("N", "W", "S"))
    assert run(three, ["select", "next", "select", "next", "next", "select"]) == {
        "event": "contract", "seat": "N", "bid": 26, "trump": "H",
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
