"""A number option beyond any real match (``rounds_to_win = 10**18``) is refused, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.box.config import load_config
from referee.errors import ConfigError
from referee.rules import Referee
from referee.rules.errors import OptionError
from referee.rules.options import MAX_NUMBER

DEAL = {"event": "deal", "game": "briscola-4", "seats": ["N", "W", "S", "E"], "dealer": "E",
        "trump_card": "bastoni_1"}


@pytest.mark.parametrize("value", [10**18, 10**5000, -(10**7)], ids=["1e18", "5001_digits", "minus_1e7"])
def test_a_huge_rounds_to_win_is_an_error_naming_the_option(value: int) -> None:
    # regression: rounds_to_win = 10**18 was accepted, a match that could never end
    with pytest.raises(OptionError, match=f"option 'rounds_to_win' for briscola-4 must be a number of at most {MAX_NUMBER}"):
        Referee().apply({**DEAL, "options": {"rounds_to_win": value}})


def test_the_largest_number_is_still_accepted_where_the_game_takes_it() -> None:
    calls = [c.to_dict() for c in Referee().apply({**DEAL, "options": {"rounds_to_win": MAX_NUMBER}})]
    assert calls == [{"call": "turn", "seat": "N"}]


def test_a_config_with_a_huge_option_is_refused_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "box.toml"
    config.write_text("[game.options]\nrounds_to_win = 1000000000000000000\n")
    with pytest.raises(ConfigError, match=r"game\.options: option 'rounds_to_win' for briscola-4 must be a number of at most"):
        load_config(config)
