"""``[web]`` in the box's config: the console's address and table PIN, validated at start."""

from __future__ import annotations

import pytest

from referee.box.config import parse_config
from referee.errors import ConfigError


def test_web_section_gives_host_port_and_pin() -> None:
    web = parse_config('[web]\nlisten = "0.0.0.0:8080"\npin = "4711"\n', "c.toml").web
    assert web is not None and (web.host, web.port, web.pin) == ("0.0.0.0", 8080, "4711")


def test_no_web_section_means_no_console() -> None:
    assert parse_config("", "c.toml").web is None


def test_ipv6_listen_address_in_brackets() -> None:
    web = parse_config('[web]\nlisten = "[::]:80"\npin = "4711"\n', "c.toml").web
    assert web is not None and (web.host, web.port) == ("::", 80)


@pytest.mark.parametrize("listen", ["8080", "host:", ":8080", "host:0", "host:65536", "host:８０", 8080])
def test_bad_listen_names_the_key(listen: object) -> None:
    text = f"[web]\nlisten = {listen!r}\npin = \"4711\"\n".replace("'", '"')
    with pytest.raises(ConfigError, match=r"^c.toml: web.listen: expected \"HOST:PORT\""):
        parse_config(text, "c.toml")


@pytest.mark.parametrize("pin", ['"12"', '" 1234"', "1234", '"12\\t34"'])
def test_bad_pin_names_the_key_and_never_echoes_it(pin: str) -> None:
    with pytest.raises(ConfigError, match=r"^c.toml: web.pin: expected a string") as err:
        parse_config(f'[web]\nlisten = "h:1"\npin = {pin}\n', "c.toml")
    assert "12" not in str(err.value).split("expected")[1]


def test_pin_is_not_in_the_config_repr() -> None:
    cfg = parse_config('[web]\nlisten = "h:1"\npin = "secret-pin"\n', "c.toml")
    assert "secret-pin" not in repr(cfg)


def test_unknown_web_key_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"web\.port: unknown key"):
        parse_config('[web]\nlisten = "h:1"\npin = "4711"\nport = 1\n', "c.toml")
