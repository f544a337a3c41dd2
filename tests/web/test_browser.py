"""The console in a real headless Chromium: a whole Binocolo deal and a whole Belotta deal set
up, bid, discarded and declared through the operator view while a simulated camera plays the
cards through the API; the recorded calls are what ``referee replay`` makes of the export.

``REFEREE_SCREENSHOTS=DIR`` also saves every view at phone (390x844) and TV (1920x1080) size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from web.browser import LiveBox, chromium_driver, table_frame
from web.helpers import PIN

DATA = Path(__file__).resolve().parents[1] / "data" / "rules"
REPO_ROOT = Path(__file__).resolve().parents[2]
SIZES = {"phone": (390, 844), "tv": (1920, 1080)}


@pytest.fixture
def driver() -> Iterator[Any]:
    yield from chromium_driver()


def _events(path: Path, first: int = 1, last: int | None = None) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines()[first - 1:last]
    return [json.loads(line) for line in lines]


def _by_id(driver: Any, element_id: str) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    # a live update may redraw the element between finding it and checking it: look again
    return WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException]).until(
        expected_conditions.element_to_be_clickable((By.ID, element_id)))


def _select(driver: Any, element_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(_by_id(driver, element_id)).select_by_value(value)


def _type(driver: Any, element_id: str, text: str) -> None:
    field = _by_id(driver, element_id)
    field.clear()
    field.send_keys(text)


def _submit(driver: Any, form_id: str) -> None:
    _by_id(driver, form_id).find_element("css selector", "button").click()


def _error_text(driver: Any) -> str:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 10).until(lambda d: d.find_element("id", "error").text.strip())
    return str(driver.find_element("id", "error").text)


def _login(driver: Any, live: LiveBox, view: str = "operator") -> None:
    driver.get(f"{live.url}/{view}")
    _type(driver, "pin", PIN)
    _by_id(driver, "login").find_element("css selector", "button").click()
    _by_id(driver, "logout" if view == "operator" else "csv")


def _start_match(driver: Any, live: LiveBox, game: str, seats: str, dealer: str, options: str,
                 face_up: str | None, names: dict[str, str]) -> None:
    _select(driver, "setup-game", game)
    _type(driver, "setup-seats", seats)
    driver.find_element("id", "setup-seats").send_keys("\t")  # change: the name fields follow
    _select(driver, "setup-dealer", dealer)
    _type(driver, "setup-options", options)
    _type(driver, "setup-table", "3")
    for seat, name in names.items():
        _type(driver, f"name-{seat}", name)
    if face_up is not None:
        _select(driver, "deal-card", face_up)
    _by_id(driver, "setupform").find_element("css selector", "button[type=submit]").click()
    assert live.wait_events(1)["events"] == 1


def _play_as_camera(live: LiveBox, plays: list[dict[str, Any]], recorded_before: int) -> None:
    for i, play in enumerate(plays):
        status, body = live.post("/api/events", play)
        assert status == 200, (play, body)
        assert live.wait_events(recorded_before + i + 1)["events"] == recorded_before + i + 1


def _replayed_calls(live: LiveBox, tmp_path: Path, match: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the calls the box recorded, ``referee replay`` of the exported events)."""
    exported = tmp_path / "export.jsonl"
    exported.write_text(live.get_text(f"/api/matches/{match}.jsonl"))
    recorded = [json.loads(line) for line in live.get_text(f"/api/matches/{match}.jsonl?calls=1").splitlines()]
    out = subprocess.run([sys.executable, "-m", "referee", "replay", str(exported)], check=True, text=True,
                         capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, timeout=60)
    return recorded, [json.loads(line) for line in out.stdout.splitlines()]


def _screenshots(driver: Any, live: LiveBox, name: str) -> None:
    folder = os.environ.get("REFEREE_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for size, (w, h) in SIZES.items():
        driver.set_window_size(w, h)
        for view, path in (("scoreboard", "/"), ("operator", "/operator"), ("history", "/history")):
            driver.get(live.url + path)
            _by_id(driver, "head" if view == "scoreboard" else "logout" if view == "operator" else "csv")
            driver.execute_script("return new Promise(r => setTimeout(r, 400))")
            driver.save_screenshot(str(Path(folder) / f"{name}-{view}-{size}.png"))
    driver.set_window_size(*SIZES["phone"])


@pytest.mark.slow
def test_binocolo_deal_through_the_operator_view(driver: Any, tmp_path: Path) -> None:
    events = _events(DATA / "binocolo" / "deal-4.events.jsonl")
    contract, discard = events[1], events[2]
    declares = [e for e in events if e["event"] == "declare"]
    plays = [e for e in events if e["event"] == "play"]
    live = LiveBox(tmp_path, "binocolo", '["N", "W", "S", "E"]')
    try:
        _login(driver, live)
        _start_match(driver, live, "binocolo", "N W S E", "W", "{}", None,
                     {"N": "Anna", "W": "Bruno", "S": "Carla", "E": "Dario"})
        _select(driver, "bid-seat", contract["seat"])
        _type(driver, "bid-points", str(contract["bid"]))
        _select(driver, "bid-trump", contract["trump"])
        _submit(driver, "bid")
        assert live.wait_events(2)["state"]["contract"]["bid"] == 17
        # a discard of the wrong size: the rules core's reason on the page, nothing recorded
        _select(driver, "discard-seat", "N")
        _type(driver, "discard-cards", "KC AD JH")
        _submit(driver, "discard")
        assert "discard" in _error_text(driver).lower()
        assert live.state()["events"] == 2
        _type(driver, "discard-cards", " ".join(discard["cards"]))
        _submit(driver, "discard")
        live.wait_events(3)
        for i, meld in enumerate(declares):
            _select(driver, "declare-seat", meld["seat"])
            _type(driver, "declare-cards", " ".join(meld["cards"]))
            _submit(driver, "declareform")
            assert live.wait_events(4 + i)["events"] == 4 + i, _error_text(driver)
        _play_as_camera(live, plays, 3 + len(declares))
        _by_id(driver, "mini")
        _screenshots(driver, live, "binocolo")
        match = live.state()["match"]
        recorded, replayed = _replayed_calls(live, tmp_path, match)
        assert recorded == replayed
        assert next(c for c in recorded if c["call"] == "deal_end")["declarer"] == "N"
        assert live.call(lambda box: box.store.events(match)) == events
    finally:
        live.stop()


@pytest.mark.slow
def test_belotta_deal_with_a_declaration_through_the_operator_view(driver: Any, tmp_path: Path) -> None:
    events = _events(DATA / "belotta" / "match-to-41.events.jsonl", 72, 106)
    deal, contract, rest = events[0], events[1], events[2:]
    live = LiveBox(tmp_path, "belotta", '["N", "W", "S", "E"]')
    try:
        _login(driver, live)
        _start_match(driver, live, "belotta", "N W S E", deal["dealer"], '{"target": 41}', deal["turned"],
                     {"N": "Nadia", "W": "Walter", "S": "Sara", "E": "Elio"})
        _select(driver, "mando-seat", contract["seat"])
        _select(driver, "mando-trump", contract["trump"])
        _submit(driver, "mando")
        assert live.wait_events(2)["state"]["trump"] == contract["trump"]
        recorded = 2
        misread = False
        for event in rest:
            if event["event"] == "declare":  # through the page, as the player shows the cards
                _select(driver, "declare-seat", event["seat"])
                _type(driver, "declare-cards", " ".join(event["cards"]))
                _submit(driver, "declareform")
                recorded += 1
                assert live.wait_events(recorded)["events"] == recorded, _error_text(driver)
                # the same cards declared by another seat: refused with the reason, not recorded
                _select(driver, "declare-seat", "W" if event["seat"] != "W" else "E")
                _submit(driver, "declareform")
                assert _error_text(driver)
                assert live.state()["events"] == recorded
                continue
            if not misread and live.state()["state"]["tricks_done"] == 1:
                # the camera misread a card: the operator takes it back from the page
                misread = True
                status, _ = live.post("/api/events", {"event": "play", "seat": event["seat"], "card": "7C"
                                                      if event.get("card") != "7C" else "8C"})
                if status == 200:
                    recorded += 1
                    live.wait_events(recorded)
                    _by_id(driver, "undo").click()
                    recorded += 1
                    assert live.wait_events(recorded)["events"] == recorded
            _play_as_camera(live, [event], recorded)
            recorded += 1
            now = live.state()["state"]
            if now["tricks_done"] == 3 and now["trick"] and len(now["trick"]["plays"]) == 2:
                _screenshots(driver, live, "belotta-mid-deal")
        assert misread
        _screenshots(driver, live, "belotta")
        state = live.state()
        assert state["deal_over"] and state["names"]["N"] == "Nadia" and state["table"] == 3
        calls, replayed = _replayed_calls(live, tmp_path, state["match"])
        assert calls == replayed
        deal_end = next(c for c in calls if c["call"] == "deal_end")
        assert [d["seat"] for d in deal_end["declarations"]] == ["S"]
    finally:
        live.stop()


def _shot(driver: Any, url: str, name: str, ready: str, before: Any = None) -> None:
    """Screenshots of one view at phone and TV size (``REFEREE_SCREENSHOTS=DIR``);
    ``before(driver)``: what to do on the page first (open a section)."""
    folder = os.environ.get("REFEREE_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for size, (w, h) in SIZES.items():
        driver.set_window_size(w, h)
        driver.get(url)
        _by_id(driver, ready)
        if before is not None:
            before(driver)
        driver.execute_script("return new Promise(r => setTimeout(r, 500))")
        driver.save_screenshot(str(Path(folder) / f"{name}-{size}.png"))
    driver.set_window_size(*SIZES["phone"])


def _open_frames(match: int) -> Any:
    def click(driver: Any) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        _by_id(driver, f"frames-{match}").click()
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "const imgs = [...document.querySelectorAll('#frames img')];"
            "return imgs.length > 0 && imgs.every(i => i.complete && i.naturalWidth > 0);"))
    return click


@pytest.mark.slow
def test_briscola_deal_with_an_unsure_card_and_its_frames(driver: Any, tmp_path: Path) -> None:
    # a box configured for belotta: briscola in four is set up on the console, filed as such
    events = _events(DATA / "briscola" / "match-4.events.jsonl", 2, 42)
    deal, plays = events[0], events[1:]
    realistic = bool(os.environ.get("REFEREE_SCREENSHOTS"))
    live = LiveBox(tmp_path, "belotta", '["N", "W", "S", "E"]', frames=True)
    try:
        _login(driver, live)
        _start_match(driver, live, "briscola-4", "N W S E", deal["dealer"], "{}", deal["trump_card"],
                     {"N": "Nina", "W": "Wanda", "S": "Saverio", "E": "Ettore"})
        assert live.state()["state"]["trump_card"] == "bastoni_4"
        unsure_at = 5  # the second trick's lead: the camera doubts it
        trick: list[tuple[str, str]] = []
        for i, play in enumerate(plays):
            trick = [] if len(trick) == 4 else trick
            trick.append((play["seat"], play["card"]))
            image = table_frame(trick, deal["seats"], realistic, seed=i)
            pos = 100 + i
            if i != unsure_at:
                live.camera_play(play, pos, image)
                assert live.wait_events(2 + i)["events"] == 2 + i
                continue
            misread = "spade_10" if play["card"] != "spade_10" else "spade_9"
            live.camera_play({**play, "card": misread, "confidence": 0.4, "alternatives": [play["card"]]}, pos, image)
            question = live.state()["state"]["question"]
            assert question is not None and question["card"] == misread and live.state()["events"] == 1 + i
            driver.get(live.url + "/operator")
            _by_id(driver, "q-no")
            _shot(driver, live.url + "/operator", "briscola-4-question", "q-no")
            button = _by_id(driver, "q-no").find_element("xpath", f"//button[@data-card='{play['card']}']")
            button.click()
            assert live.wait_events(2 + i)["events"] == 2 + i
            assert live.state()["state"]["question"] is None
            if realistic:
                _shot(driver, live.url + "/", "briscola-4-scoreboard", "head")
        state = live.state()
        assert state["deal_over"]
        match = state["match"]
        recorded_events = live.call(lambda box: box.store.events(match))
        assert recorded_events[unsure_at + 1] == {**plays[unsure_at], "confirmed": True}
        assert [{k: v for k, v in e.items() if k != "confirmed"} for e in recorded_events] == events
        calls, replayed = _replayed_calls(live, tmp_path, match)
        assert calls == replayed
        # the history: filed under the game played, the frame of every play grouped by trick
        driver.get(live.url + "/history")  # logged in already: the session cookie
        _by_id(driver, f"frames-{match}")
        rows = driver.find_elements("css selector", "#matches tbody tr")
        assert [r.find_elements("css selector", "td")[1].text for r in rows] == ["briscola-4"]
        _open_frames(match)(driver)
        assert len(driver.find_elements("css selector", "#frames figure")) == 40
        assert len(driver.find_elements("css selector", "#frames .trickframes")) == 10
        _shot(driver, live.url + "/history", "briscola-4-history-frames", "csv", before=_open_frames(match))
    finally:
        live.stop()


@pytest.mark.slow
def test_chiamata_deals_with_the_auction_called_card_and_in_mano(driver: Any, tmp_path: Path) -> None:
    events = _events(DATA / "chiamata" / "match-5.events.jsonl", 1, 84)
    first, second = events[:42], events[42:]
    live = LiveBox(tmp_path, "briscola-chiamata", '["A", "B", "C", "D", "E"]')
    try:
        _login(driver, live)
        _start_match(driver, live, "briscola-chiamata", "A B C D E", first[0]["dealer"], "{}", None,
                     {"A": "Anna", "B": "Bice", "C": "Ciro", "D": "Dora", "E": "Ezio"})
        recorded = 1
        for deal_events in (first, second):
            if deal_events is second:  # the next deal from the page: the dealer passes on
                assert _by_id(driver, "deal-dealer").get_attribute("value") == second[0]["dealer"]
                _by_id(driver, "dealform").find_element("css selector", "button").click()
                recorded += 1
                assert live.wait_events(recorded)["events"] == recorded
            contract = deal_events[1]
            # the auction's outcome: who won it, the card called, the points bid, in mano or not
            _select(driver, "chiamata-seat", contract["seat"])
            _select(driver, "called-card", contract["called"])
            _type(driver, "chiamata-points", str(contract["points"]))
            mano = _by_id(driver, "chiamata-mano")
            if mano.is_selected() != bool(contract.get("in_mano")):
                mano.click()
            _submit(driver, "chiamata")
            recorded += 1
            state = live.wait_events(recorded)
            assert state["events"] == recorded and state["state"]["contract"]["called"] == contract["called"]
            # the same contract again: the rules core refuses it, the page says why, nothing recorded
            _submit(driver, "chiamata")
            assert _error_text(driver)
            assert live.state()["events"] == recorded
            _play_as_camera(live, deal_events[2:22], recorded)
            recorded += 20
            if deal_events is second:
                _shot(driver, live.url + "/", "chiamata-scoreboard", "head")
                _shot(driver, live.url + "/operator", "chiamata-operator", "logout")
                _by_id(driver, "logout")
            _play_as_camera(live, deal_events[22:], recorded)
            recorded += len(deal_events) - 22
            driver.execute_script("return new Promise(r => setTimeout(r, 300))")
        state = live.state()
        assert state["deal_over"] and state["state"]["deal"] == 2
        match = state["match"]
        assert live.call(lambda box: box.store.events(match)) == events
        calls, replayed = _replayed_calls(live, tmp_path, match)
        assert calls == replayed
        contracts = [c for c in calls if c["call"] == "contract"]
        assert [c.get("in_mano", False) for c in contracts] == [False, True]
        said = live.state()["said"]["it"]  # the scoreboard's list, in words
        assert any(text.startswith("fine mano: ") for text in said) and not any("=" in text for text in said)
    finally:
        live.stop()
