"""Training recipes as data: ``referee train --recipe models/italian.recipe.toml``.

A recipe is a TOML file of :class:`~referee.recognition.train_options.TrainOptions` fields, one
key per field, named as ``referee train``'s option without its dashes (``--table-samples 40000``
is ``table_samples = 40000``). It says what a model is made from and how (prints, sample counts,
real photos, steps, seed, threads: everything a replay needs), never where (``--out``,
``--cache`` and ``--shared`` stay on the command line). Each committed model has its recipe
beside it in ``models/``, so it is rebuilt by naming one file.

An unknown key, a value of the wrong type, or an option given both in the recipe and on the
command line with another value is an error naming the file and the key, raised before anything
is rendered or written.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.recognition.train_options import (
    RUN_FIELDS,
    TrainOptions,
    choices,
    option,
    recipe_fields,
)
from referee.toml_file import read_toml


def load_recipe(path: Path) -> dict[str, Any]:
    """The recipe's fields, each checked against the type :class:`TrainOptions` gives it."""
    try:
        data = read_toml(path, "file")
    except ConfigError as exc:
        raise ConfigError(f"recipe {exc}") from exc
    known = recipe_fields()
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in RUN_FIELDS:
            raise ConfigError(f"recipe {path}: key {key!r} says where a run reads or writes: give "
                              f"{option(key)} on the command line instead")
        if key not in known:
            raise ConfigError(f"recipe {path}: unknown key {key!r}; known: {', '.join(sorted(known))}")
        out[key] = _checked(f"recipe {path}: key {key!r}", value, known[key])
        allowed = choices(key)
        if allowed is not None and out[key] not in allowed:
            raise ConfigError(f"recipe {path}: key {key!r}: expected one of {', '.join(allowed)}, got {value!r}")
    if "deck" not in out:
        raise ConfigError(f"recipe {path}: key 'deck' is missing (italian or french)")
    return out


def _checked(where: str, value: Any, hint: Any) -> Any:
    """``value`` as a field of type ``hint`` (bool, int, float, str, tuple[str, ...], or one of
    those or None: TOML has no None, so a recipe gives the value), else a ConfigError."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(h for h in typing.get_args(hint) if h is not type(None))
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        item = typing.get_args(hint)[0]
        return tuple(_checked(where, v, item) for v in value)
    if isinstance(value, list):
        raise ConfigError(f"{where}: expected one value, got {value!r}")
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    ok = {int: (int,), float: (int, float), str: (str,)}[hint]
    if isinstance(value, bool) or not isinstance(value, ok):
        raise ConfigError(f"{where}: expected {hint.__name__}, got {value!r}")
    return hint(value)


def with_recipe(given: Mapping[str, Any], path: Path | None) -> TrainOptions:
    """The options ``given`` on the command line, with the recipe at ``path`` (if any) filled in.

    An option given both ways with two values is an error naming the recipe and the key; so is
    a run with no deck.
    """
    values = dict(given)
    if path is not None:
        recipe = load_recipe(path)
        try:  # the recipe alone must make sense: a value out of range is named with its file
            TrainOptions(**recipe)
        except ConfigError as exc:
            raise ConfigError(f"recipe {path}: {exc}") from exc
        for key, value in recipe.items():
            if key in given and given[key] != value:
                raise ConfigError(f"recipe {path}: key {key!r} is {value!r} but the command line gives "
                                  f"{option(key)} {given[key]!r}: change the recipe, or drop the option")
            values[key] = value
    if "deck" not in values:
        raise ConfigError("--deck: required (italian or french), on the command line or as a recipe's 'deck' key")
    return TrainOptions(**values)
