"""The game (and rule options) chosen on the box's menu, kept next to the match record so a
restart keeps it: ``<state_dir>/game.json``, ``{"game": "belotta", "options": {...}}``.

It replaces ``[game]``'s name and options of the config file; the seats stay the config's
when the chosen game takes that many players, else the game's usual seats. A file that cannot
be read or names what the rules core does not accept is logged (naming the file and the key)
and the config's game is kept: the box still starts.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path

from referee.box.config import GAMES, BoxConfig, GameConfig
from referee.box.entry_menu import GameChoice
from referee.errors import RefereeError
from referee.rules import get_game

log = logging.getLogger(__name__)

FILE_NAME = "game.json"
#: the usual seats for a number of players (as the config's defaults)
DEFAULT_SEATS = {2: ("N", "S"), 3: ("N", "W", "S"), 4: ("N", "W", "S", "E"), 5: ("A", "B", "C", "D", "E")}


def path_of(state_dir: Path) -> Path:
    return state_dir / FILE_NAME


def save(state_dir: Path, choice: GameChoice) -> None:
    """Write the choice (a temporary file renamed over the old one: never half written)."""
    path = path_of(state_dir)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"game": choice.game, "options": dict(choice.options)}, sort_keys=True) + "\n")
    os.replace(tmp, path)


def load(state_dir: Path) -> GameChoice | None:
    """The saved choice, or ``None`` (none saved, or unusable: logged with the reason)."""
    path = path_of(state_dir)
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.warning("%s: cannot read the chosen game (%s); using the config's", path, exc)
        return None
    if not isinstance(raw, dict) or raw.get("game") not in GAMES:
        log.warning("%s: key 'game' must be one of %s; using the config's", path, list(GAMES))
        return None
    options = raw.get("options", {})
    if not isinstance(options, dict):
        log.warning("%s: key 'options' must be an object; using the config's", path)
        return None
    try:
        get_game(raw["game"])(dict(options))
    except RefereeError as exc:
        log.warning("%s: key 'options': %s; using the config's", path, exc)
        return None
    return GameChoice(raw["game"], options)


def applied(cfg: BoxConfig, choice: GameChoice | None) -> BoxConfig:
    """``cfg`` with the chosen game: its name, deck, options; seats and teams kept where the
    game takes as many players, else the game's usual ones."""
    if choice is None:
        return cfg
    deck, counts = GAMES[choice.game]
    seats = cfg.game.seats if len(cfg.game.seats) in counts else DEFAULT_SEATS[counts[0]]
    if seats == cfg.game.seats and (len(seats) != 4 or (choice.game == "binocolo") == (cfg.game.name == "binocolo")):
        teams = cfg.game.teams
    elif len(seats) == 4 and choice.game != "binocolo":
        teams = ((seats[0], seats[2]), (seats[1], seats[3]))
    else:  # heads-up, chiamata (teams unknown until the partner is revealed), binocolo
        teams = tuple((s,) for s in seats)
    game = GameConfig(choice.game, deck, tuple(seats), teams, dict(choice.options))
    return dataclasses.replace(cfg, game=game)


def with_chosen_game(cfg: BoxConfig) -> BoxConfig:
    """``cfg`` as the box runs it: with the game chosen on its menu, if one was."""
    return applied(cfg, load(cfg.state_dir))

