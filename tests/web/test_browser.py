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

from web.browser import LiveBox, chromium_driver
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
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 10).until(expected_conditions.element_to_be_clickable((By.ID, element_id)))


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
