"""A game chosen on the console, other than the config's, is filed under the chosen game: in
the record, the history and its exports, and an undo after its end reopens that match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.box import chosen_game
from referee.box.entry_menu import GameChoice
from referee.table.refused import Refused
from web.helpers import make_box

DATA = Path(__file__).resolve().parents[1] / "data" / "rules"


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_match_of_another_game_is_filed_under_that_game(tmp_path: Path) -> None:
    box = make_box(tmp_path, "belotta")  # the config says belotta; the console sets up briscola in four
    events = _events(DATA / "briscola" / "match-4.events.jsonl")
    assert events[0]["event"] == "draw"  # begun by the dealer draw, which names no game
    for event in events:
        assert not isinstance(box.submit(event), Refused), event
    [match] = box.store.matches()
    assert match.game == "briscola-4" and match.ended is not None
    config = box.store.match_config(match.id)
    assert config["game"] == "briscola-4" and config["deck"] == "italian"
    assert config["seats"] == ["N", "W", "S", "E"] and config["teams"] == [["N", "S"], ["W", "E"]]
    assert box.store.calls(match.id)[-1]["call"] == "match_end"
    assert chosen_game.load(box.cfg.state_dir) == GameChoice("briscola-4", {})  # kept for the next match


def test_a_deal_naming_the_game_files_the_match_under_it_at_once(tmp_path: Path) -> None:
    box = make_box(tmp_path, "belotta")
    deal = {"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_3",
            "options": {"rounds_to_win": 1}}
    assert not isinstance(box.submit(deal), Refused)
    [match] = box.store.matches()
    assert match.game == "briscola-2"
    assert box.store.match_config(match.id)["options"] == {"rounds_to_win": 1}


def test_undo_after_a_chosen_games_match_ended_reopens_that_match(tmp_path: Path) -> None:
    # the configured game's finished match is older: an undo must not reopen it instead
    box = make_box(tmp_path, "belotta")
    for event in _events(DATA / "belotta" / "match-to-41.events.jsonl"):
        box.submit(event)
    for event in _events(DATA / "briscola" / "match-4.events.jsonl"):
        box.submit(event)
    assert [(m.game, m.ended is not None) for m in box.store.matches()] == [("belotta", True), ("briscola-4", True)]
    undone = box.submit({"event": "undo"})
    assert not isinstance(undone, Refused) and undone[0]["call"] == "undo"
    assert box.match_id == 2 and box.store.current_match() == 2
    assert box.store.matches()[0].ended is not None


def test_a_game_set_up_on_the_console_is_resumed_after_a_restart(tmp_path: Path) -> None:
    box = make_box(tmp_path, "belotta")
    deal = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
            "trump_card": "bastoni_4", "options": {"rounds_to_win": 1}}
    assert not isinstance(box.submit(deal), Refused)
    assert not isinstance(box.submit({"event": "play", "seat": "N", "card": "spade_4"}), Refused)
    assert chosen_game.load(box.cfg.state_dir) == GameChoice("briscola-4", {"rounds_to_win": 1})
    assert box.cfg.game.name == "briscola-4" and box.next_deal_event()["game"] == "briscola-4"
    box.store.close()
    # referee run again, with the same config file: the match of the game played goes on
    again = make_box(tmp_path, "belotta")
    again.cfg = chosen_game.with_chosen_game(again.cfg)
    again.start()
    assert again.match_id == 1 and again.referee.turn == "W"


def test_the_configured_game_set_up_again_keeps_no_choice(tmp_path: Path) -> None:
    box = make_box(tmp_path, "belotta")
    deal = {"event": "deal", "game": "belotta", "seats": ["N", "W", "S", "E"], "dealer": "E", "turned": "7H"}
    assert not isinstance(box.submit(deal), Refused)
    assert chosen_game.load(box.cfg.state_dir) is None
