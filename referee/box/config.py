"""The box's one configuration file (TOML), validated at start.

Every error names the file, the dotted key and what was expected, e.g.
``config.toml: pins.buzzer: expected a GPIO number 0..27, got 40``. Unknown keys are errors too
(a typo must not silently fall back to a default). See ``hardware/config.toml`` for the
documented default.

>>> cfg = load_config(Path("hardware/config.toml"))  # doctest: +SKIP
>>> cfg.game.name, cfg.pins.seat_leds["N"]  # doctest: +SKIP
('briscola-4', 17)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from referee.errors import ConfigError
from referee.rules import get_game
from referee.toml_file import parse_toml, read_text, read_toml

DEFAULT_PATH = Path("/etc/referee/config.toml")

GAMES: dict[str, tuple[str, tuple[int, ...]]] = {
    # game -> (deck family, allowed seat counts)
    "briscola-2": ("italian", (2,)),
    "briscola-4": ("italian", (4,)),
    "briscola-chiamata": ("italian", (5,)),
    "belotta": ("french", (4,)),
    "binocolo": ("french", (3, 4)),
}
LANGUAGES = ("it", "en")
DISPLAY_DRIVERS = ("ssd1306", "ssd1309", "sh1106", "none")
PIN_FACTORIES = ("auto", "lgpio", "rpigpio", "native", "mock")
GPIO_RANGE = range(0, 28)  # BCM numbers on the 40-pin header


@dataclass(frozen=True)
class GameConfig:
    name: str = "briscola-4"
    deck: str = "italian"
    seats: tuple[str, ...] = ("N", "W", "S", "E")  # play order
    teams: tuple[tuple[str, ...], ...] = (("N", "S"), ("W", "E"))
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"  # picamera2 | usb:N | file:PATH | events:PATH.jsonl
    width: int = 1280
    height: int = 720
    fps: int = 15  # frames analysed per second at most (VisionFeed); the camera may give more
    no_frame_timeout_s: float = 3.0  # no frame for this long -> fault screen and LED pattern
    retry_s: float = 2.0  # wait between reopen attempts
    #: disk the frames that decided the plays may take (kept for a dispute, oldest evicted); 0: none
    keep_frames_mb: int = 200


@dataclass(frozen=True)
class ThresholdsConfig:
    confidence: float = 0.80  # below: ask the table to confirm the card
    still_s: float = 0.30  # a card still for this long is played
    #: whole tricks in a row the camera must have seen before it calls an out-of-turn play
    #: without asking "did <seat on turn> play?"; 0 (default): always ask (a camera that missed
    #: the turn seat's card entirely would call it falsely, and it forfeits a tournament deal)
    trust_after_tricks: int = 0


@dataclass(frozen=True)
class TimerConfig:
    #: "game": as the game's ``move_timer_s`` option says (briscola-2's document: 20 s);
    #: True: also for games without the option (``seconds``); False: never
    enabled: bool | Literal["game"] = "game"
    seconds: int = 20  # only where the game sets no move_timer_s
    warning_s: int = 5  # beep when this many seconds are left


@dataclass(frozen=True)
class DisplayConfig:
    driver: str = "ssd1306"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    rotate: int = 0  # 0..3, quarter turns


@dataclass(frozen=True)
class PinsConfig:
    factory: str = "auto"
    seat_leds: Mapping[str, int] = field(
        default_factory=lambda: {"N": 17, "W": 27, "S": 22, "E": 23, "X": 24}
    )
    violation_led: int = 25
    buzzer: int = 12
    button_left: int = 5
    button_ok: int = 6
    button_right: int = 13
    hold_s: float = 1.0  # a press this long is a "hold" (undo, next deal, menu)


@dataclass(frozen=True)
class TournamentConfig:
    """``[tournament]``: the broker this table publishes its record to (``referee.box.publish``).
    Absent: the box publishes nothing and works alone."""

    broker: str  # mqtt://host[:port] or mqtts://host[:port] (TLS)
    table: int
    username: str  # the broker account; the broker's ACL limits it to its own table's topics
    password_file: Path | None = None  # one line, the account's password (mode 0600)
    ca_file: Path | None = None  # mqtts: the club's CA certificate (default: the system's)


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the phone console ``referee run`` serves (``referee.web``). Absent: no
    console, the box opens no port. The PIN is left out of ``repr`` so it never reaches a log."""

    host: str  # the address listened on ("0.0.0.0": every network of the box)
    port: int
    pin: str = field(repr=False)  # the table PIN: every change through the console needs it


@dataclass(frozen=True)
class BoxConfig:
    language: str = "it"
    state_dir: Path = Path("/var/lib/referee")
    layout: Path | None = None
    #: the club's own deck, from `referee enroll` (prototypes on the committed model's embedding)
    enrollment: Path | None = None
    game: GameConfig = field(default_factory=GameConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    thresholds: ThresholdsConfig = field(default_factory=ThresholdsConfig)
    timer: TimerConfig = field(default_factory=TimerConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    tournament: TournamentConfig | None = None
    web: WebConfig | None = None
    source: str = ""  # the file the config came from, for messages


class _Reader:
    """Pops typed values from one TOML table, naming ``file: table.key`` in every error."""

    def __init__(self, where: str, prefix: str, table: Any) -> None:
        self.where, self.prefix = where, prefix
        if not isinstance(table, dict):
            raise self.error("", "a table", table)
        self.table = dict(table)

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix and name else (self.prefix or name)

    def error(self, name: str, expected: str, got: Any) -> ConfigError:
        return ConfigError(f"{self.where}: {self.key(name)}: expected {expected}, got {got!r}")

    def raw(self, name: str, default: Any) -> Any:
        return self.table.pop(name, default)

    def str_(self, name: str, default: str, choices: tuple[str, ...] = ()) -> str:
        value = self.raw(name, default)
        if not isinstance(value, str) or (choices and value not in choices):
            expected = f"one of {', '.join(map(repr, choices))}" if choices else "a string"
            raise self.error(name, expected, value)
        return value

    def int_(self, name: str, default: int, allowed: range) -> int:
        value = self.raw(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
            raise self.error(name, f"an integer {allowed.start}..{allowed.stop - 1}", value)
        return value

    def float_(self, name: str, default: float, low: float, high: float) -> float:
        value = self.raw(name, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise self.error(name, f"a number {low}..{high}", value)
        return float(value)

    def bool_(self, name: str, default: bool) -> bool:
        value = self.raw(name, default)
        if not isinstance(value, bool):
            raise self.error(name, "true or false", value)
        return value

    def sub(self, name: str) -> _Reader:
        return _Reader(self.where, self.key(name), self.raw(name, {}))

    def done(self) -> None:
        if self.table:
            name = sorted(self.table)[0]
            raise ConfigError(f"{self.where}: {self.key(name)}: unknown key")


def load_config(path: Path) -> BoxConfig:
    """Read and validate ``path``; raises :class:`ConfigError` naming the key on any problem."""
    return parse_config(read_text(path), str(path), base=path.parent)


def parse_config(text: str, where: str = "<config>", base: Path | None = None) -> BoxConfig:
    """Validate TOML text; relative paths in it are relative to ``base`` (the file's folder)."""
    return config_from_table(parse_toml(text, where), where, base)


def config_from_table(data: Mapping[str, Any], where: str = "<config>", base: Path | None = None) -> BoxConfig:
    """Validate parsed TOML: a value of a wrong type anywhere is a :class:`ConfigError` naming
    its dotted key and what was expected, never another exception."""
    top = _Reader(where, "", data)
    base = base or Path.cwd()
    language = top.str_("language", "it", LANGUAGES)
    state_dir = base / top.str_("state_dir", "/var/lib/referee")
    layout_raw = top.raw("layout", None)
    if layout_raw is not None and not isinstance(layout_raw, str):
        raise top.error("layout", "a file path string", layout_raw)
    enrollment_raw = top.raw("enrollment", None)
    if enrollment_raw is not None and not isinstance(enrollment_raw, str):
        raise top.error("enrollment", "a file path string", enrollment_raw)
    game = _game(top.sub("game"))
    cfg = BoxConfig(
        language=language,
        state_dir=state_dir,
        layout=base / layout_raw if layout_raw else None,
        enrollment=base / enrollment_raw if enrollment_raw else None,
        game=game,
        camera=_camera(top.sub("camera"), base),
        thresholds=_thresholds(top.sub("thresholds")),
        timer=_timer(top.sub("timer")),
        display=_display(top.sub("display")),
        pins=_pins(top.sub("pins"), game.seats),
        tournament=_tournament(top.sub("tournament"), base) if "tournament" in data else None,
        web=_web(top.sub("web")) if "web" in data else None,
        source=where,
    )
    top.done()
    return cfg


def display_settings(path: Path) -> tuple[DisplayConfig, str] | None:
    """The display and language of a config that failed validation elsewhere, when those
    parts are sound: the box can still say "config error" on its own display. ``None``
    when the file cannot be read or those parts are wrong too."""
    try:
        top = _Reader(str(path), "", read_toml(path))
        language = top.str_("language", "it", LANGUAGES)
        return _display(top.sub("display")), language
    except ConfigError:
        return None


def _game(r: _Reader) -> GameConfig:
    name = r.str_("name", "briscola-4", tuple(GAMES))
    family, counts = GAMES[name]
    deck = r.str_("deck", family, (family,))
    default_seats = {2: ["N", "S"], 3: ["N", "W", "S"], 4: ["N", "W", "S", "E"], 5: list("ABCDE")}
    seats_raw = r.raw("seats", default_seats[counts[0]])
    if (
        not isinstance(seats_raw, list)
        or len(seats_raw) not in counts
        or not all(isinstance(s, str) and s and s.isalnum() for s in seats_raw)
        or len(set(seats_raw)) != len(seats_raw)
    ):
        expected = f"a list of {' or '.join(map(str, counts))} distinct alphanumeric seat names"
        raise r.error("seats", expected, seats_raw)
    seats = tuple(seats_raw)
    teams = _teams(r, name, seats)
    options = r.raw("options", {})
    if not isinstance(options, dict):
        raise r.error("options", "a table of game options", options)
    _check_options(r, name, options)
    r.done()
    return GameConfig(name, deck, seats, teams, dict(options))


def _check_options(r: _Reader, game: str, options: dict[str, Any]) -> None:
    """The rules core's own check of ``[game.options]``, at start: else a typo there rejects
    every deal event of the match, long after the box said it was ready."""
    try:
        get_game(game)(dict(options))
    except ConfigError as exc:  # OptionError: the message names the option and its values
        raise ConfigError(f"{r.where}: {r.key('options')}: {exc}") from exc


def _teams(r: _Reader, game: str, seats: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    if len(seats) == 4 and game != "binocolo":
        default: list[list[str]] = [[seats[0], seats[2]], [seats[1], seats[3]]]
    else:  # heads-up, chiamata (teams unknown until the partner is revealed), binocolo
        default = [[s] for s in seats]
    raw = r.raw("teams", default)
    expected = f"lists of seats that together hold each of {list(seats)} once"
    if not isinstance(raw, list) or not all(isinstance(t, list) and t for t in raw):
        raise r.error("teams", f"{expected} (a list of lists of seat names)", raw)
    flat = [s for team in raw for s in team]
    if not all(isinstance(s, str) for s in flat) or sorted(flat) != sorted(seats):
        raise r.error("teams", expected, raw)
    return tuple(tuple(t) for t in raw)


def _camera(r: _Reader, base: Path) -> CameraConfig:
    source = r.str_("source", "picamera2")
    kind, _, rest = source.partition(":")
    if (
        kind not in ("picamera2", "usb", "file", "events", "sim")
        or (kind == "usb" and not _natural(rest))
        or (kind == "sim" and rest and not _natural(rest))
    ):
        raise r.error(
            "source", "'picamera2', 'usb:N', 'file:PATH', 'events:PATH.jsonl' or 'sim'/'sim:SEED' "
            "(N, SEED: whole numbers >= 0)", source
        )
    if kind in ("file", "events") and rest and not Path(rest).is_absolute():
        source = f"{kind}:{base / rest}"
    cfg = CameraConfig(
        source=source,
        width=r.int_("width", 1280, range(160, 4609)),
        height=r.int_("height", 720, range(120, 3457)),
        fps=r.int_("fps", 15, range(1, 121)),
        no_frame_timeout_s=r.float_("no_frame_timeout_s", 3.0, 0.1, 600.0),
        retry_s=r.float_("retry_s", 2.0, 0.01, 600.0),
        keep_frames_mb=r.int_("keep_frames_mb", 200, range(0, 100_001)),
    )
    r.done()
    return cfg


def _natural(text: str) -> bool:
    """A camera index or seed: ASCII digits only (``str.isdigit`` also takes '²' and '١')."""
    return text.isascii() and text.isdigit()


def _thresholds(r: _Reader) -> ThresholdsConfig:
    cfg = ThresholdsConfig(
        confidence=r.float_("confidence", 0.80, 0.0, 1.0),
        still_s=r.float_("still_s", 0.30, 0.0, 10.0),
        trust_after_tricks=r.int_("trust_after_tricks", 0, range(0, 41)),
    )
    r.done()
    return cfg


def _timer(r: _Reader) -> TimerConfig:
    enabled = r.raw("enabled", "game")
    if enabled != "game" and not isinstance(enabled, bool):
        raise r.error("enabled", "true, false or \"game\"", enabled)
    seconds = r.int_("seconds", 20, range(3, 601))
    warning = r.int_("warning_s", 5, range(0, seconds))
    r.done()
    return TimerConfig(enabled, seconds, warning)


def _display(r: _Reader) -> DisplayConfig:
    cfg = DisplayConfig(
        driver=r.str_("driver", "ssd1306", DISPLAY_DRIVERS),
        i2c_port=r.int_("i2c_port", 1, range(0, 23)),
        i2c_address=r.int_("i2c_address", 0x3C, range(0x03, 0x78)),
        rotate=r.int_("rotate", 0, range(0, 4)),
    )
    r.done()
    return cfg


def _pins(r: _Reader, seats: tuple[str, ...]) -> PinsConfig:
    factory = r.str_("factory", "auto", PIN_FACTORIES)
    leds_raw = r.raw("seat_leds", dict(PinsConfig().seat_leds))
    if not isinstance(leds_raw, dict):
        raise r.error("seat_leds", "a table seat = GPIO number", leds_raw)
    missing = [s for s in seats if s not in leds_raw]
    if missing:
        raise r.error(f"seat_leds.{missing[0]}", "a GPIO number for every seat", None)
    leds: dict[str, int] = {}
    for seat in seats:  # LEDs of seats not at this table are ignored (a 5-LED box plays briscola-4)
        value = leds_raw[seat]
        if isinstance(value, bool) or not isinstance(value, int) or value not in GPIO_RANGE:
            raise r.error(f"seat_leds.{seat}", "a GPIO number 0..27", value)
        leds[seat] = value
    gpio = "a GPIO number 0..27"
    cfg = PinsConfig(
        factory=factory,
        seat_leds=leds,
        violation_led=r.int_("violation_led", 25, GPIO_RANGE),
        buzzer=r.int_("buzzer", 12, GPIO_RANGE),
        button_left=r.int_("button_left", 5, GPIO_RANGE),
        button_ok=r.int_("button_ok", 6, GPIO_RANGE),
        button_right=r.int_("button_right", 13, GPIO_RANGE),
        hold_s=r.float_("hold_s", 1.0, 0.2, 5.0),
    )
    r.done()
    used: dict[int, str] = {}
    named = [(f"seat_leds.{s}", p) for s, p in leds.items()] + [
        (k, getattr(cfg, k))
        for k in ("violation_led", "buzzer", "button_left", "button_ok", "button_right")
    ]
    for key, pin in named:
        if pin in used:
            raise ConfigError(
                f"{r.where}: pins.{key}: expected {gpio} not already used by pins.{used[pin]}, got {pin}"
            )
        used[pin] = key
    return cfg


def _tournament(r: _Reader, base: Path) -> TournamentConfig:
    broker = r.str_("broker", "")
    scheme, sep, rest = broker.partition("://")
    if scheme not in ("mqtt", "mqtts") or not sep or not rest.split(":")[0]:
        raise r.error("broker", "'mqtt://host[:port]' or 'mqtts://host[:port]'", broker)
    table = r.int_("table", 0, range(1, 1000))
    username = r.str_("username", f"table-{table}")
    files: dict[str, Path | None] = {}
    for key in ("password_file", "ca_file"):
        raw = r.raw(key, None)
        if raw is not None and not isinstance(raw, str):
            raise r.error(key, "a file path string", raw)
        files[key] = base / raw if raw else None
    r.done()
    return TournamentConfig(broker, table, username, files["password_file"], files["ca_file"])


#: shortest table PIN: a console on a club's open Wi-Fi takes changes from anyone who knows it
MIN_PIN = 4


def _web(r: _Reader) -> WebConfig:
    listen = r.raw("listen", None)
    host, sep, port_text = listen.rpartition(":") if isinstance(listen, str) else ("", "", "")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1]:8080
    if not isinstance(listen, str) or not sep or not host or not _natural(port_text) or not (
            0 < int(port_text) < 65536):
        raise r.error("listen", "\"HOST:PORT\", e.g. \"0.0.0.0:8080\" (PORT 1..65535)", listen)
    pin = r.raw("pin", None)
    if not isinstance(pin, str) or len(pin) < MIN_PIN or not pin.isprintable() or pin != pin.strip():
        # the value is not echoed: a config error is logged, and the PIN must never be
        raise ConfigError(f"{r.where}: {r.key('pin')}: expected a string of at least {MIN_PIN} "
                          "printable characters without leading or trailing spaces")
    r.done()
    return WebConfig(host, int(port_text), pin)
