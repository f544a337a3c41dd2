"""Training recipes as data: ``referee train --recipe models/italian.recipe.toml``.

A recipe is a TOML file of ``referee train`` options, one key per option, named as the option
without its dashes (``--table-samples 40000`` is ``table_samples = 40000``). It says what a model
is made from and how (prints, sample counts, real photos, steps, seed, threads: everything a
replay needs), never where (``--out``, ``--cache`` and ``--shared`` stay on the command line).
Each committed model has its recipe beside it in ``models/``, so it is rebuilt by naming one file.

An unknown key, a value of the wrong type, or an option given both in the recipe and on the
command line is an error naming the file and the key, raised before anything is rendered or
written.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.toml_file import read_toml

#: options that say where a run reads and writes, or how it reports: never part of a recipe
NOT_RECIPE = frozenset({"out", "cache", "shared", "quiet", "recipe", "recalibrate", "snapshot_minutes", "device"})


def recipe_keys(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The options a recipe may set: every ``referee train`` option but :data:`NOT_RECIPE`."""
    return {a.dest: a for a in parser._actions if a.dest not in NOT_RECIPE and a.dest != "help" and a.option_strings}


def load_recipe(path: Path, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The recipe's options, each checked against the option it sets."""
    try:
        data = read_toml(path, "file")
    except ConfigError as exc:
        raise ConfigError(f"recipe {exc}") from exc
    keys = recipe_keys(parser)
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in NOT_RECIPE:
            raise ConfigError(f"recipe {path}: key {key!r} says where a run reads or writes: give --"
                              f"{key.replace('_', '-')} on the command line instead")
        if key not in keys:
            raise ConfigError(f"recipe {path}: unknown key {key!r}; known: {', '.join(sorted(keys))}")
        out[key] = _checked(path, key, value, keys[key])
    if "deck" not in out:
        raise ConfigError(f"recipe {path}: key 'deck' is missing (italian or french)")
    return out


def _checked(path: Path, key: str, value: Any, action: argparse.Action) -> Any:
    where = f"recipe {path}: key {key!r}"
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    kind = action.type or str
    many = action.nargs not in (None, "?")
    values = value if isinstance(value, list) else [value]
    if many != isinstance(value, list):
        raise ConfigError(f"{where}: expected {'a list' if many else 'one value'}, got {value!r}")
    checked = []
    for v in values:
        if isinstance(v, bool) or (kind in (int, float) and not isinstance(v, (int, float))) \
                or (kind is int and not isinstance(v, int)) or (kind not in (int, float) and not isinstance(v, str)):
            raise ConfigError(f"{where}: expected {getattr(kind, '__name__', 'text')}, got {v!r}")
        checked.append(kind(v) if kind in (int, float) else v)
    if action.choices is not None and any(v not in action.choices for v in checked):
        raise ConfigError(f"{where}: expected one of {', '.join(map(str, action.choices))}, got {value!r}")
    if isinstance(action.nargs, int) and len(checked) != action.nargs:
        raise ConfigError(f"{where}: expected {action.nargs} values, got {value!r}")
    return checked if many else checked[0]


def apply_recipe(args: argparse.Namespace, parser: argparse.ArgumentParser) -> argparse.Namespace:
    """``args`` with the recipe's options filled in; an option set both ways is an error."""
    if getattr(args, "recipe", None) is None:
        return args
    path = Path(args.recipe)
    recipe = load_recipe(path, parser)
    for key, value in recipe.items():
        given = getattr(args, key, None)
        if given is not None and given != parser.get_default(key) and given != value:
            raise ConfigError(f"recipe {path}: key {key!r} is {value!r} but the command line gives "
                              f"--{key.replace('_', '-')} {given!r}: change the recipe, or drop the option")
        setattr(args, key, value)
    return args
