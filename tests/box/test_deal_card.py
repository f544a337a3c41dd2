"""The deal's face-up card (briscola's trump_card, belotta's turned card) is asked on the
display, never guessed: "next deal" and a deal event lacking it open the deal-card menu, on the
camera's reading of the stock when there is one (one OK confirms it)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from box.helpers import FakeClock, RecordingSignals
from referee.box.app import Box
from referee.box.config import BoxConfig, GameConfig
from referee.box.deal_card_menu import DealCardMenu, missing_deal_card
from referee.box.display import NullDisplay
from referee.box.menu import CANCELLED
from referee.box.screens import MenuScreen, ScoreScreen, render
from referee.box.state import MatchStore
from referee.rules.playout import random_deal_events

BELOTTA = GameConfig("belotta", "french", ("N", "W", "S", "E"), (("N", "S"), ("W", "E")))


def make_box(cfg: BoxConfig, clock: FakeClock, stock: str | None = None) -> tuple[Box, NullDisplay]:
    display = NullDisplay()
    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), display, clock=clock)
    if stock is not None:
        box.stock_reader = lambda: stock
    box.start()
    return box, display


def test_scenario_next_deal_button_asks_for_the_briscola_and_sends_a_complete_deal(
    cfg: BoxConfig, clock: FakeClock
) -> None:
    box, display = make_box(cfg, clock)
    box.gesture("right", "hold")  # next deal: before, a deal without trump_card was sent
    assert box.store.matches() == []  # nothing refereed blind
    assert isinstance(display.last, MenuScreen) and display.last.label_key == "field_deal_card"
    assert display.last.value == "bastoni" and display.last.step == "1/2"  # the suit first
    box.gesture("right", "press")  # suit: coppe
    box.gesture("ok", "press")
    box.gesture("right", "press")
    box.gesture("right", "press")  # rank: 3
    assert display.last == MenuScreen("briscola-4", "field_deal_card", "3 di coppe", "2/2", "deal_card")
    box.gesture("ok", "press")
    deal = box.store.events(1)[-1]
    assert deal["trump_card"] == "coppe_3" and deal["event"] == "deal"
    assert box.referee.deal is not None and box.referee.deal.trump == "coppe"
    assert box.referee.turn == "N" and isinstance(display.last, ScoreScreen)  # E deals by default
    assert box.deals_started == 1


def test_scenario_camera_reading_of_the_stock_is_confirmed_with_one_ok(
    cfg: BoxConfig, clock: FakeClock
) -> None:
    box, display = make_box(cfg, clock, stock="spade_10")
    box.gesture("right", "hold")
    assert isinstance(display.last, MenuScreen) and display.last.value == "re di spade"
    assert display.last.step == "2/2"
    box.gesture("ok", "press")
    assert box.store.events(1)[-1]["trump_card"] == "spade_10"


def test_a_logged_deal_without_its_card_waits_for_the_operator(cfg: BoxConfig, clock: FakeClock) -> None:
    events = random_deal_events("briscola-4", seed=4)
    trump = events[0].pop("trump_card")
    box, display = make_box(cfg, clock, stock=trump)
    assert box.handle(events[0], source_pos=1) == []
    assert isinstance(display.last, MenuScreen) and box.referee.deal is None
    box.gesture("ok", "press")
    assert box.store.events(1)[0] == {**events[0], "trump_card": trump}
    assert box.store.last_source_pos(1) == 1  # a restart does not ask again
    for event in events[1:]:
        box.handle(event)
    assert box.referee.result is not None  # the whole deal judged, winners included


def test_belotta_next_deal_asks_for_the_turned_card(cfg: BoxConfig, clock: FakeClock) -> None:
    box, display = make_box(replace(cfg, game=BELOTTA), clock, stock="JH")
    box.gesture("right", "hold")
    assert isinstance(display.last, MenuScreen) and display.last.label_key == "field_turned"
    box.gesture("ok", "press")
    assert box.store.events(1)[-1]["turned"] == "JH"


def test_cancel_sends_nothing_and_a_bad_camera_reading_is_ignored(cfg: BoxConfig, clock: FakeClock) -> None:
    box, display = make_box(cfg, clock, stock="7H")  # not an Italian card: no guess
    box.gesture("right", "hold")
    assert isinstance(display.last, MenuScreen) and display.last.step == "1/2"
    box.gesture("ok", "hold")  # cancel
    assert box.menu is None and box.store.matches() == []


def test_games_that_need_no_deal_card_deal_at_once() -> None:
    assert missing_deal_card({"event": "deal", "game": "briscola-chiamata"}) is None
    assert missing_deal_card({"event": "deal", "game": "briscola-2", "trump_card": "coppe_1"}) is None
    assert missing_deal_card({"event": "deal", "game": "briscola-2"}) == "trump_card"
    assert missing_deal_card({"event": "play", "game": "belotta"}) is None


@pytest.mark.parametrize("lang", ["it", "en"])
def test_menu_walks_suits_and_ranks_and_goes_back(lang: str) -> None:
    menu = DealCardMenu({"event": "deal", "game": "belotta"})
    assert menu.code == "7C"
    menu.press("prev")  # suit wraps round to spades
    menu.press("select")
    menu.press("prev")  # rank wraps round to the ace
    assert menu.code == "AS" and menu.screen(lang).step == "2/2"
    menu.press("back")
    assert menu.screen(lang).step == "1/2"
    assert menu.press("back") == CANCELLED
    assert menu.screen(lang).value == ("♠ picche" if lang == "it" else "♠ spades")
    assert render(menu.screen(lang), lang).size == (128, 64)


def test_runner_hands_the_feeds_stock_reading_to_the_menu(cfg: BoxConfig, clock: FakeClock) -> None:
    from referee.box.feed import FeedItem
    from referee.box.notify import Notifier
    from referee.box.run import Runner

    class StockFeed:
        finished = False

        def poll(self, timeout: float) -> list[FeedItem]:
            self.finished = True
            return [FeedItem(None)]

        def skip_to(self, pos: int | None) -> None: ...
        def reopen(self) -> None: ...
        def close(self) -> None: ...

        def stock_card(self) -> str | None:
            return "denari_9"

    box = Box(cfg, MatchStore.open(cfg.state_dir), RecordingSignals(), NullDisplay(), clock=clock)
    runner = Runner(cfg, box, StockFeed(), Notifier(None), clock=clock, sleep=clock.sleep)
    for gesture in (("right", "hold"), ("ok", "press")):
        runner.gestures.put(gesture)
    runner.run()
    assert box.store.events(1)[0]["trump_card"] == "denari_9"


def test_the_camera_forgets_the_old_table_once_when_next_deal_is_held(cfg: BoxConfig, clock: FakeClock) -> None:
    box, _ = make_box(cfg, clock)
    box.gesture("right", "hold")
    assert box.deals_started == 1  # at once: the table is being redealt
    box.gesture("ok", "press")
    box.gesture("ok", "press")
    assert box.deals_started == 1 and box.referee.deal is not None  # not a second time


def test_a_deal_from_the_camera_closes_the_menu(cfg: BoxConfig, clock: FakeClock) -> None:
    box, display = make_box(cfg, clock)
    box.gesture("right", "hold")
    box.handle({"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "trump_card": "coppe_5"})
    assert box.menu is None and isinstance(display.last, ScoreScreen)
    assert box.referee.deal is not None and box.referee.deal.trump == "coppe"


def test_next_deal_held_by_mistake_mid_deal_keeps_the_cameras_table(cfg: BoxConfig, clock: FakeClock) -> None:
    """Mid-deal, the menu opened by a stray hold and cancelled, or a deal event the rules
    refuse (the deal is not over), must not make the camera forget the trick on the table
    (its cards would be seen again as new plays)."""
    box, _ = make_box(cfg, clock)
    box.gesture("right", "hold")
    box.gesture("ok", "press")  # OK, OK: the menu's first suit and rank, deal 1 entered
    box.gesture("ok", "press")
    assert box.deals_started == 1 and box.referee.deal is not None
    box.handle({"event": "play", "seat": box.referee.turn, "card": "spade_3"})
    box.gesture("right", "hold")  # by mistake
    assert box.menu is not None and box.deals_started == 1
    box.gesture("ok", "hold")  # cancel
    assert box.menu is None and box.deals_started == 1
    box.handle({"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "trump_card": "coppe_5"})
    assert box.store.calls(1)[-1]["call"] == "error" and box.deals_started == 1
