"""Config validation: the default file loads, and every mistake names its key and what is expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.box.config import BoxConfig, load_config, parse_config
from referee.errors import ConfigError
from referee.paths import REPO_ROOT

DEFAULT = REPO_ROOT / "hardware" / "config.toml"


def test_default_config_file_loads_with_documented_values() -> None:
    cfg = load_config(DEFAULT)
    assert cfg.game.name == "briscola-4"
    assert cfg.game.seats == ("N", "W", "S", "E")
    assert cfg.game.teams == (("N", "S"), ("W", "E"))
    assert cfg.pins.seat_leds == {"N": 17, "W": 27, "S": 22, "E": 23}
    assert cfg.display.i2c_address == 0x3C
    assert cfg.state_dir == Path("/var/lib/referee")
    assert cfg.language == "it"
    assert cfg.thresholds.trust_after_tricks == 0  # the example config asks before out of turn


def test_empty_config_gives_defaults() -> None:
    cfg = parse_config("")
    assert cfg.game == BoxConfig().game
    assert cfg.timer.seconds == 20 and cfg.timer.enabled == "game"
    assert cfg.thresholds.trust_after_tricks == 0  # never call out of turn from the camera alone


def test_trust_after_tricks_opts_in_to_out_of_turn_calls_from_the_camera() -> None:
    assert parse_config("[thresholds]\ntrust_after_tricks = 2").thresholds.trust_after_tricks == 2


def test_relative_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('state_dir = "state"\nlayout = "layout.json"\nenrollment = "club.npz"\n'
                    '[camera]\nsource = "events:log.jsonl"\n')
    cfg = load_config(path)
    assert cfg.state_dir == tmp_path / "state"
    assert cfg.layout == tmp_path / "layout.json"
    assert cfg.enrollment == tmp_path / "club.npz"  # `referee enroll`'s file, next to the config
    assert BoxConfig().enrollment is None
    assert cfg.camera.source == f"events:{tmp_path / 'log.jsonl'}"


def test_chiamata_five_seats_need_five_leds() -> None:
    text = '[game]\nname = "briscola-chiamata"\nseats = ["A","B","C","D","E"]\n'
    with pytest.raises(ConfigError, match=r"pins\.seat_leds\.A: expected a GPIO number for every seat"):
        parse_config(text)
    cfg = parse_config(text + "[pins]\nseat_leds = {A=17, B=27, C=22, D=23, E=24}\n")
    assert cfg.game.teams == (("A",), ("B",), ("C",), ("D",), ("E",))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('language = "de"', r"language: expected one of 'it', 'en', got 'de'"),
        ("colour = 1", r"colour: unknown key"),
        ("enrollment = 3", r"enrollment: expected a file path string, got 3"),
        ("[game]\nname = 'scopa'", r"game\.name: expected one of 'briscola-2'.*got 'scopa'"),
        ("[game]\nname = 'belotta'\ndeck = 'italian'", r"game\.deck: expected one of 'french', got 'italian'"),
        ("[game]\nseats = ['N', 'N', 'S', 'E']", r"game\.seats: expected a list of 4 distinct"),
        ("[game]\nname = 'binocolo'\nseats = ['N', 'S']", r"game\.seats: expected a list of 3 or 4"),
        ("[game]\nteams = [['N', 'S'], ['W']]", r"game\.teams: expected lists of seats that together hold"),
        ("[game]\noptions = 3", r"game\.options: expected a table of game options, got 3"),
        ("[game]\nseed = 3", r"game\.seed: unknown key"),
        # game options are checked by the rules core at start, not at the first deal
        ("[game.options]\nmove_timer = 30", r"^box\.toml: game\.options: unknown option 'move_timer' for briscola-4"),
        ("[game.options]\ntie = 'bogus'", r"game\.options: option 'tie' for briscola-4 must be one of .*got 'bogus'"),
        ("[game]\nname = 'belotta'\n[game.options]\ntarget = 0", r"game\.options: option 'target' must be at least 1"),
        ("[camera]\nsource = 'usb:x'", r"camera\.source: expected 'picamera2', 'usb:N'"),
        ("[camera]\nfps = 0", r"camera\.fps: expected an integer 1\.\.120, got 0"),
        ("[camera]\nretry_s = 'soon'", r"camera\.retry_s: expected a number"),
        ("[camera]\nkeep_frames_mb = -1", r"camera\.keep_frames_mb: expected an integer 0\.\.100000, got -1"),
        ("[thresholds]\nconfidence = 1.5", r"thresholds\.confidence: expected a number 0\.0\.\.1\.0, got 1\.5"),
        ("[thresholds]\ntrust_after_tricks = -1", r"thresholds\.trust_after_tricks: expected an integer 0\.\.40, got -1"),
        ("[thresholds]\ntrust_after_tricks = true", r"thresholds\.trust_after_tricks: expected an integer 0\.\.40"),
        ("[timer]\nenabled = 'yes'", r"timer\.enabled: expected true, false or \"game\", got 'yes'"),
        ("[timer]\nseconds = 20\nwarning_s = 20", r"timer\.warning_s: expected an integer 0\.\.19, got 20"),
        ("[display]\ndriver = 'ssd1351'", r"display\.driver: expected one of 'ssd1306', 'ssd1309', 'sh1106', 'none'"),
        ("[display]\ni2c_address = 200", r"display\.i2c_address: expected an integer 3\.\.119, got 200"),
        ("[pins]\nbuzzer = 40", r"pins\.buzzer: expected an integer 0\.\.27, got 40"),
        ("[pins]\nbuzzer = true", r"pins\.buzzer: expected an integer 0\.\.27, got True"),
        ("[pins]\nseat_leds = {N=17, W=27, S=22, E=99}", r"pins\.seat_leds\.E: expected a GPIO number 0\.\.27, got 99"),
        ("[pins]\nbutton_ok = 17", r"pins\.button_ok: expected a GPIO number 0\.\.27 not already used by pins\.seat_leds\.N, got 17"),
        ("[pins]\nfactory = 'pigpio'", r"pins\.factory: expected one of 'auto', 'lgpio'"),
        ("game = 3", r"game: expected a table, got 3"),
        ("[game\n", r"not valid TOML"),
    ],
)
def test_bad_value_names_key_and_expected(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(text, "box.toml")


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[pins]\nbuzzer = 99\n")
    with pytest.raises(ConfigError, match=rf"{path}: pins\.buzzer"):
        load_config(path)


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: cannot read config file"):
        load_config(tmp_path / "nope.toml")
