"""Game options: one frozen dataclass per game, parsed from the ``deal`` event's ``options``.

Every option is a named field with the document's reading as default; ``parse_options`` rejects
an unknown key or a bad value with an :class:`~referee.rules.errors.OptionError` naming the key
and what it accepts.  Supported field types: ``bool``, ``int``, ``float``, ``str``, ``Literal[...]``
and ``X | None`` of those.

    @dataclass(frozen=True)
    class BriscolaOptions(GameOptions):
        tie: Literal["last_trick", "replay"] = "last_trick"

    parse_options(BriscolaOptions, {"tie": "replay"})   # -> BriscolaOptions(..., tie='replay')
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from referee.rules.errors import OptionError

#: what an out-of-turn play costs: nothing beyond the report, or the game (deal) for the team
OutOfTurn = Literal["report", "lose_game"]


@dataclass(frozen=True)
class GameOptions:
    """Options every game has.  Subclasses add their own and may change these defaults."""

    #: cost of an out-of-turn play; "report" unless the game's document names a penalty
    out_of_turn: OutOfTurn = "report"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


OptionsT = TypeVar("OptionsT", bound=GameOptions)


_HINTS: dict[type[GameOptions], dict[str, Any]] = {}


def _hints(cls: type[GameOptions]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _accepts(hint: Any) -> tuple[tuple[Any, ...], str]:
    """(allowed python types or literal values, human description) for one field type."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        values = typing.get_args(hint)
        return values, "one of " + ", ".join(repr(v) for v in values)
    if origin in (typing.Union, types.UnionType):
        allowed: list[Any] = []
        words: list[str] = []
        for arg in typing.get_args(hint):
            if arg is type(None):
                allowed.append(None)
                words.append("null")
            else:
                a, w = _accepts(arg)
                allowed.extend(a)
                words.append(w)
        return tuple(allowed), " or ".join(words)
    return (hint,), {bool: "true/false", int: "an integer", float: "a number", str: "a string"}.get(
        hint, str(hint)
    )


def _ok(value: Any, allowed: tuple[Any, ...]) -> bool:
    for a in allowed:
        if a is None and value is None:
            return True
        if isinstance(a, type):
            # bool is an int in Python, but an option asking for a number must not accept true
            if a is bool and isinstance(value, bool):
                return True
            if a is int and isinstance(value, int) and not isinstance(value, bool):
                return True
            if a is float and isinstance(value, int | float) and not isinstance(value, bool):
                return True
            if a is str and isinstance(value, str):
                return True
        elif not isinstance(a, type) and a is not None and value == a and type(value) is type(a):
            return True
    return False


#: the largest number any option takes (a target score, rounds to win, seconds): beyond it a
#: match could never end, and a 10**18 would only be a typing or a hostile mistake
MAX_NUMBER = 1_000_000


def _short(value: Any) -> str:
    """``repr`` of a given value, cut short (an option's value may be huge)."""
    if isinstance(value, int) and abs(value) >= 10**30:  # repr() refuses past 4300 digits
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_options(
    cls: type[OptionsT], given: Mapping[str, Any] | None, *, game: str = ""
) -> OptionsT:
    """Build ``cls`` from a dict; unknown keys and bad values raise :class:`OptionError`."""
    given = given or {}
    hints = _hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    where = f" for {game}" if game else ""
    for key, value in given.items():
        if key not in names:
            raise OptionError(f"unknown option {key!r}{where}; known options: {sorted(names)}")
        allowed, words = _accepts(hints[key])
        if not _ok(value, allowed):
            raise OptionError(f"option {key!r}{where} must be {words}, got {_short(value)}")
        if isinstance(value, int | float) and not isinstance(value, bool) and not abs(value) <= MAX_NUMBER:
            raise OptionError(f"option {key!r}{where} must be a number of at most {MAX_NUMBER}, got {_short(value)}")
    options = cls(**dict(given))
    check = getattr(options, "check", None)
    if callable(check):
        check()
    return options


def option_table(cls: type[GameOptions]) -> list[tuple[str, str, Any]]:
    """``(name, accepted values, default)`` rows, for the README and ``--help`` texts."""
    hints = _hints(cls)
    return [(f.name, _accepts(hints[f.name])[1], f.default) for f in dataclasses.fields(cls)]
