"""A whole deal's contract, discard, melds and declarations entered with the three buttons
alone (gpiozero's mock pins), through the box's one path: what is recorded is what a log of
the same deal records, and a rejected entry shows the rules core's reason, recording nothing."""

from __future__ import annotations

import json
import queue
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from box.helpers import FakeClock, RecordingSignals
from referee.box import chosen_game
from referee.box.app import Box
from referee.box.buttons import Buttons
from referee.box.config import BoxConfig, PinsConfig
from referee.box.display import NullDisplay
from referee.box.entry_menu import GameChoice, actions_for
from referee.box.menu import ContractMenu
from referee.box.screens import MenuScreen, RefusedScreen
from referee.box.state import MatchStore
from referee.cards import FRENCH_32
from referee.replay import replay_lines
from referee.rules import get_game
from referee.rules.playout import random_deal_events

PINS = PinsConfig(hold_s=0.05)
SUITS = list(dict.fromkeys(c.suit for c in FRENCH_32))


def _ranks(game: str) -> list[str]:
    """The ranks the card menu offers, in order (binocolo's deck starts at the 9)."""
    return list(dict.fromkeys(c.rank for c in get_game(game).deck))


class Table:
    """The box with its buttons on mock pins; each gesture goes to the box as the main loop
    hands it on (gpiozero's threads only queue it)."""

    def __init__(self, box: Box, factory: MockFactory) -> None:
        self.box, self.factory = box, factory
        self.gestures: queue.Queue[tuple[str, str]] = queue.Queue()
        self.buttons = Buttons(PINS, lambda b, g: self.gestures.put((b, g)), pin_factory=factory)
        self.pins = {"left": PINS.button_left, "ok": PINS.button_ok, "right": PINS.button_right}

    def press(self, button: str, hold: bool = False) -> None:
        pin = self.factory.pin(self.pins[button])
        pin.drive_low()
        if hold:
            gesture = self.gestures.get(timeout=5)  # gpiozero's hold thread saw it
            pin.drive_high()
        else:
            pin.drive_high()
            gesture = self.gestures.get(timeout=5)
        assert gesture == (button, "hold" if hold else "press")
        self.box.gesture(*gesture)

    def menu(self, action: str) -> None:
        """Open the entry menu (hold OK) on ``action``."""
        self.press("ok", hold=True)
        for _ in range(actions_for(self.box.cfg.game.name).index(action)):
            self.press("right")
        self.press("ok")

    def step(self, at: int, to: int, size: int) -> None:
        """Right presses from value ``at`` to ``to`` of ``size`` (left when shorter)."""
        forward = (to - at) % size
        for _ in range(forward) if forward <= size - forward else ():
            self.press("right")
        if forward > size - forward:
            for _ in range(size - forward):
                self.press("left")

    def cards(self, codes: list[str], suit_at: int = 0) -> None:
        """Each card: its suit, OK, its rank, OK; then the suits' "done", OK."""
        for code in codes:
            suit, rank = code[-1], code[:-1]
            self.step(suit_at, SUITS.index(suit), len(SUITS) + 1)
            suit_at = SUITS.index(suit)
            self.press("ok")
            ranks = _ranks(self.box.cfg.game.name)
            self.step(0, ranks.index(rank), len(ranks))
            self.press("ok")
        screen = self.box.display.last
        if not (isinstance(screen, MenuScreen) and screen.value.startswith(("FINE", "DONE"))):
            self.step(suit_at, len(SUITS), len(SUITS) + 1)  # "done" follows the suits
        self.press("ok")

    def enter(self, event: dict[str, Any]) -> None:
        seats = self.box.cfg.game.seats
        kind = event["event"]
        self.menu(kind)
        if kind == "contract":
            self.step(0, seats.index(event["seat"]), len(seats))
            self.press("ok")
            if "bid" in event:
                menu = ContractMenu("binocolo", seats)
                tens_at, units_at = menu.fields[1].index, menu.fields[2].index
                self.step(tens_at, event["bid"] // 10 - 1, 5)
                self.press("ok")
                self.step(units_at, event["bid"] % 10, 10)
                self.press("ok")
            self.step(0, ["C", "D", "H", "S"].index(event["trump"]), 4)
            self.press("ok")
        elif kind == "discard":  # the declarer's seat is offered first
            self.cards(event["cards"])
        else:
            self.step(0, seats.index(event["seat"]), len(seats))
            self.press("ok")
            self.cards(event["cards"])

    def close(self) -> None:
        self.buttons.close()


@pytest.fixture
def table_for(factory: MockFactory, cfg: BoxConfig) -> Any:
    made: list[Table] = []

    def make(game: str) -> Table:
        box_cfg = chosen_game.applied(cfg, GameChoice(game))
        box = Box(box_cfg, MatchStore.open(box_cfg.state_dir), RecordingSignals(), NullDisplay(), clock=FakeClock())
        box.start()
        made.append(Table(box, factory))
        return made[-1]

    yield make
    for table in made:
        table.close()


ENTERED = ("contract", "discard", "declare")


def test_binocolo_contract_discard_and_melds_with_the_buttons(table_for: Any) -> None:
    events = random_deal_events("binocolo", seed=1)
    assert [e["event"] for e in events[1:6]] == ["contract", "discard", "declare", "declare", "declare"]
    table = table_for("binocolo")
    for event in events:
        if event["event"] in ENTERED:
            table.enter(event)
        else:
            table.box.handle(event)
        recorded = table.box.store.events(table.box.match_id) if table.box.match_id else None
        if recorded is not None:
            assert recorded[-1] == event, table.box.display.last
    assert _record_of(table) == events
    assert _calls_of(table) == _replayed(events)


def test_belotta_contract_and_declarations_with_the_buttons(table_for: Any) -> None:
    events = random_deal_events("belotta", seed=9)
    declared = [e for e in events if e["event"] == "declare"]
    assert len(declared) == 3 and ["KC", "QC"] in [e["cards"] for e in declared]  # belotta-rebelotta too
    table = table_for("belotta")
    for event in events:
        if event["event"] in ENTERED:
            table.enter(event)
        else:
            table.box.handle(event)
    assert _record_of(table) == events
    assert _calls_of(table) == _replayed(events)
    kinds = [c.get("kind") for c in _calls_of(table) if c["call"] == "declaration"]
    assert "terza" in kinds and "belotta" in kinds


def test_a_refused_entry_shows_the_core_reason_and_records_nothing(table_for: Any) -> None:
    events = random_deal_events("binocolo", seed=1)
    table = table_for("binocolo")
    table.box.handle(events[0])
    table.enter(events[1])  # the contract
    before = len(_record_of(table))
    table.enter({"event": "discard", "seat": "E", "cards": events[2]["cards"][:3]})  # one card short
    shown = table.box.display.last
    assert isinstance(shown, RefusedScreen) and "4" in shown.reason and "discard" in shown.reason
    assert len(_record_of(table)) == before
    table.enter(events[2])  # the right discard goes in
    assert _record_of(table)[-1] == events[2]


def test_belotta_via_with_the_buttons(table_for: Any) -> None:
    table = table_for("belotta")
    table.box.handle({"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E",
                      "turned": "JH"})
    table.menu("via")
    table.press("ok")  # N speaks first: "via"
    assert _record_of(table)[-1] == {"event": "via", "seat": "N"}
    table.menu("via")
    table.step(0, 2, 4)  # S out of turn: W speaks next
    table.press("ok")
    shown = table.box.display.last
    assert isinstance(shown, RefusedScreen) and _record_of(table)[-1] == {"event": "via", "seat": "N"}


def test_chiamata_forfait_and_in_mano_with_the_buttons(table_for: Any) -> None:
    table = table_for("briscola-chiamata")
    deal = random_deal_events("briscola-chiamata", seed=1)[0]
    table.box.handle(deal)
    table.menu("forfait")
    table.step(0, 2, 5)  # seat C
    table.press("ok")
    last = _record_of(table)[-1]
    assert last == {"event": "forfait", "seat": "C"}
    deal2 = {k: v for k, v in deal.items() if k != "dealer"}
    table.box.handle({**deal2, "dealer": table.box.referee.next_dealer})
    table.menu("contract")
    for _ in range(5):
        table.press("ok")  # seat A, the first card, 61 points
    table.press("right")  # in mano: yes
    table.press("ok")
    contract = _record_of(table)[-1]
    assert contract["event"] == "contract" and contract["in_mano"] is True and contract["points"] == 61


def test_the_game_chosen_on_the_menu_is_kept_across_a_restart(cfg: BoxConfig, factory: MockFactory) -> None:
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=FakeClock())
    box.start()
    table = Table(box, factory)
    try:
        table.menu("game")
        table.step(1, 3, 5)  # briscola-4 -> belotta
        table.press("ok")
        for _ in range(20):  # each option on its document's value
            if box.menu is None:
                break
            table.press("ok")
    finally:
        table.close()
    assert box.menu is None and box.cfg.game.name == "belotta"
    assert chosen_game.with_chosen_game(cfg).game.name == "belotta"  # what `referee run` starts with
    assert box.cfg.game.teams == (("N", "S"), ("W", "E"))


def test_the_game_menu_offers_every_few_valued_option_named_in_both_languages() -> None:
    from referee.box.entry_menu import GAME_NAMES, GameMenu
    from referee.box.i18n import OPTIONS

    for game in GAME_NAMES:
        menu = GameMenu(game, {})  # starts on the game being played
        menu.press("select")
        assert menu.game == game and menu.choices, game
        for name, values in menu.choices:
            assert set(OPTIONS[name]) == {"it", "en"}, name
            assert len(values) >= 2, name


def test_a_rule_option_chosen_on_the_menu_reaches_the_next_match(cfg: BoxConfig) -> None:
    """Belotta to 301: the option is kept and the next deal carries it."""
    from referee.box.entry_menu import GameMenu

    menu = GameMenu("belotta", {})
    menu.press("select")
    names = [name for name, _ in menu.choices]
    result = None
    for name in names:
        if name == "target":
            while menu.values["target"] != 301:
                menu.press("next")
        result = menu.press("select")
    assert result == GameChoice("belotta", {"target": 301})
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=FakeClock())
    box.start()
    box._choose_game(result)
    assert box.next_deal_event()["options"] == {"target": 301}
    assert chosen_game.with_chosen_game(cfg).game.options == {"target": 301}


def test_an_unreadable_game_file_keeps_the_config_game(cfg: BoxConfig, caplog: pytest.LogCaptureFixture) -> None:
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    chosen_game.path_of(cfg.state_dir).write_text('{"game": "belotta", "options": {"target": "lots"}}')
    assert chosen_game.with_chosen_game(cfg) == cfg
    assert "game.json: key 'options'" in caplog.text and "target" in caplog.text
    chosen_game.path_of(cfg.state_dir).write_text("{not json")
    assert chosen_game.with_chosen_game(cfg) == cfg
    assert "cannot read the chosen game" in caplog.text


def _record_of(table: Table) -> list[dict[str, Any]]:
    store, match = table.box.store, table.box.match_id
    if match is None:
        match = store.previous_match(table.box.cfg.game.name, None)
    assert match is not None
    return store.events(match)


def _calls_of(table: Table) -> list[dict[str, Any]]:
    store, match = table.box.store, table.box.match_id
    if match is None:
        match = store.previous_match(table.box.cfg.game.name, None)
    assert match is not None
    return [call for _, calls in store.steps(match) for call in calls]


def _replayed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    replay_lines((json.dumps(e) for e in events), calls.append)
    return calls
