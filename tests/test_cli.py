"""The ``referee`` command itself: version, help, commands imported only when chosen."""

from __future__ import annotations

import pytest

import referee
from referee.cli import main


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"referee {referee.__version__}"


def test_help_is_a_plain_description_of_the_product_and_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "referees Briscola" in out and "referee demo" in out
    assert "``" not in out and "sub-command per module" not in out  # not the module's docstring
    for command in ("replay", "demo", "run", "history"):
        assert f"    {command} " in out

