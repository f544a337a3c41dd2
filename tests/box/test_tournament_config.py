"""``[tournament]`` in the box config: absent means no publishing; every bad key is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.box.config import parse_config
from referee.errors import ConfigError


def test_no_tournament_section_means_the_box_publishes_nothing() -> None:
    assert parse_config("").tournament is None


def test_tournament_section_reads_broker_table_and_credentials() -> None:
    cfg = parse_config(
        '[tournament]\nbroker = "mqtts://club.local:8883"\ntable = 3\npassword_file = "pw"\n',
        base=Path("/etc/referee"),
    )
    assert cfg.tournament is not None
    assert cfg.tournament.table == 3
    assert cfg.tournament.username == "table-3"  # the broker account the ACL pattern expects
    assert cfg.tournament.password_file == Path("/etc/referee/pw")
    assert cfg.tournament.ca_file is None


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('broker = "http://x"\ntable = 1', "tournament.broker"),
        ('broker = "mqtt://x"', "tournament.table"),
        ('broker = "mqtt://x"\ntable = 1\npassword = "secret"', "tournament.password"),
    ],
)
def test_bad_tournament_key_is_named(body: str, key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_config(f"[tournament]\n{body}\n", "config.toml")
