"""A config of the wrong bytes or the wrong types is a ConfigError naming the file and the key,
never a traceback: `referee run` shows it and exits 2 (tests/box/test_run.py)."""

from __future__ import annotations

import copy
import datetime
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.box.config import config_from_table, display_settings, load_config, parse_config
from referee.cli import main
from referee.errors import ConfigError
from referee.paths import REPO_ROOT

DEFAULT = tomllib.loads((REPO_ROOT / "hardware" / "config.toml").read_text(encoding="utf-8"))
DEFAULT["layout"] = "layout.json"
DEFAULT["enrollment"] = "club.npz"
DEFAULT["game"]["options"] = {"tie": "last_trick", "rounds_to_win": 2, "out_of_turn": "report", "move_timer_s": 20}


def test_a_config_that_is_not_utf8_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes('language = "it"\n[game]\nname = "briscola-4" # a\xe8 Latin-1\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match=r"config\.toml:3:24: not UTF-8 text \(byte 0xe8\)"):
        load_config(path)
    assert display_settings(path) is None  # the fault screen falls back, it does not crash


def test_run_with_a_latin1_config_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'# caf\xe9\n')
    assert main(["run", "--config", str(path), "--no-hardware"]) == 2
    assert f"{path}:1:6: not UTF-8 text" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "message"), [
    ("[game]\nteams = [1, 2]", r"game\.teams: expected lists of seats .*\(a list of lists of seat names\), got \[1, 2\]"),
    ("[game]\nteams = [['N', 1], ['S', 'W', 'E']]", r"game\.teams: expected lists of seats"),
    ("[game]\nteams = [[['N']], ['S', 'W', 'E']]", r"game\.teams: expected lists of seats"),
    ("[game]\nteams = 'NS'", r"game\.teams: expected lists of seats"),
])
def test_teams_of_the_wrong_type_name_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(text, "box.toml")


@pytest.mark.parametrize("source", ["sim:-1", "sim:x", "sim:1.5", "sim:\u00b2", "usb:-1", "usb:\u0661"])
def test_a_camera_index_or_seed_that_is_not_a_whole_number_is_refused(source: str) -> None:
    with pytest.raises(ConfigError, match=rf"box\.toml: camera\.source: expected .*'sim:SEED'.*got '{source}'"):
        parse_config(f"[camera]\nsource = '{source}'", "box.toml")
    assert parse_config("[camera]\nsource = 'sim:7'").camera.source == "sim:7"


def _leaves(table: dict[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out += _leaves(value, f"{dotted}.")
        out.append(dotted)
    return out


def _with(dotted: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(DEFAULT)
    *path, last = dotted.split(".")
    table = data
    for key in path:
        table = table[key]
    table[last] = value
    return data


#: one value of every TOML type (a datetime too), and nested ones that break naive iteration
WRONG = [1, -1, 10**30, 1.5, float("nan"), True, "x", "", [1, 2], [[1]], [["N"], [1]], [], {"a": 1}, {},
         datetime.date(2026, 1, 1), datetime.time(12, 0)]


@pytest.mark.parametrize("dotted", _leaves(DEFAULT))
def test_a_wrong_type_at_any_key_is_a_config_error_naming_that_key(dotted: str) -> None:
    named = "game.options" if dotted.startswith("game.options.") else dotted
    for value in WRONG:
        try:
            config_from_table(_with(dotted, value), "box.toml")
        except ConfigError as exc:
            assert str(exc).startswith(f"box.toml: {named}"), (value, str(exc))


toml_values = st.recursive(
    st.none().map(lambda _: 0) | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(dotted=st.sampled_from(_leaves(DEFAULT)), value=toml_values)
def test_any_value_anywhere_gives_a_config_or_a_config_error(dotted: str, value: Any) -> None:
    try:
        config_from_table(_with(dotted, value), "box.toml")
    except ConfigError as exc:
        assert str(exc).startswith("box.toml: ")
