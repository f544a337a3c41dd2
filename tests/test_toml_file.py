"""Every TOML file the product reads (box config, training recipe, tournament service config)
names a file that is not UTF-8, is not TOML or cannot be read, instead of a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.box.config import load_config
from referee.errors import ConfigError
from referee.recognition.recipe import load_recipe
from referee.tournament_service.config import load_service_config

READERS: dict[str, Callable[[Path], Any]] = {
    "box config": load_config,
    "recipe": load_recipe,
    "tournament service config": load_service_config,
}


@pytest.mark.parametrize("reader", READERS.values(), ids=list(READERS))
def test_a_file_that_is_not_utf8_is_named_with_line_and_column(tmp_path: Path, reader: Callable[[Path], Any]) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(b'# ok\ndeck = "it\xe8"\n')
    with pytest.raises(ConfigError, match=r"x\.toml:2:11: not UTF-8 text \(byte 0xe8\)"):
        reader(path)


@pytest.mark.parametrize("reader", READERS.values(), ids=list(READERS))
def test_a_file_that_is_not_toml_or_missing_is_named(tmp_path: Path, reader: Callable[[Path], Any]) -> None:
    path = tmp_path / "x.toml"
    path.write_text("[deck\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"x\.toml: not valid TOML"):
        reader(path)
    with pytest.raises(ConfigError, match=r"nope\.toml: cannot read"):
        reader(tmp_path / "nope.toml")
