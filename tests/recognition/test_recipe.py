"""Recipes as data: the committed models' recipe files say what their JSON records, and a bad
recipe is refused by file and key before anything is rendered or written."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path

import pytest

from referee.cli.train import add_arguments, options
from referee.errors import ConfigError
from referee.paths import REPO_ROOT
from referee.recognition.recipe import load_recipe
from referee.recognition.train_options import RUN_FIELDS, TrainOptions, recipe_fields

MODELS = REPO_ROOT / "models"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser


def _args(*argv: str) -> TrainOptions:
    return options(_parser().parse_args(list(argv)))


def test_every_option_is_a_field_of_the_training_options_and_back() -> None:
    dests = {a.dest for a in _parser()._actions if a.option_strings and a.dest != "help"}
    assert dests - {"recipe"} == {f.name for f in fields(TrainOptions)}
    assert set(recipe_fields()) == dests - RUN_FIELDS - {"recipe"}


def test_the_command_line_gives_only_what_it_names_and_the_options_hold_the_defaults() -> None:
    given = vars(_parser().parse_args(["--deck", "french", "--holdout", "--vary-others", "--print-variation", "0.5"]))
    assert given == {"deck": "french", "holdout": [], "vary_others": True, "print_variation": 0.5}
    chosen = _args("--deck", "french", "--holdout", "--calibrate-on", "table:x")
    assert chosen.holdout == () and chosen.calibrate_on == ("table:x",) and chosen.report_on == ()
    assert chosen == TrainOptions("french", holdout=(), calibrate_on=("table:x",))


@pytest.mark.parametrize("deck", ["italian", "french"])
def test_the_committed_recipe_is_what_the_committed_model_was_trained_with(deck: str) -> None:
    args = _args("--recipe", str(MODELS / f"{deck}.recipe.toml"))
    training = json.loads((MODELS / f"{deck}.json").read_text())["training"]
    assert args.deck == deck
    assert list(args.holdout or ()) == training["holdout_sets"]
    for key in ("steps", "seed", "batch", "lr", "threads", "memory_format"):
        assert getattr(args, key) == training[key], key
    assert args.print_variation == training.get("print_variation", 0.0)
    assert args.vary_others == training.get("vary_others", False)
    assert args.real_photos == training.get("real_photos", {}).get("share", 0.0)
    # the per-face counts the JSON records follow from the sample counts and the training faces
    faces = {"italian": 15 * 40, "french": None}[deck]
    if faces is not None:
        assert (args.samples // faces, args.table_samples // faces) == (training["per_face"], training["table_per_face"])


def test_the_command_line_adds_where_to_write() -> None:
    args = _args("--recipe", str(MODELS / "italian.recipe.toml"), "--out", "build/x", "--seed", "0")
    assert args.out == Path("build/x") and args.samples == 80000


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "r.recipe.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "message"), [
    ('deck = "italian"\nsample = 100\n', r"r\.recipe\.toml: unknown key 'sample'; known: "),
    ('deck = "italian"\nsamples = "many"\n', r"key 'samples': expected int, got 'many'"),
    ('deck = "italian"\nsamples = 1.5\n', r"key 'samples': expected int, got 1\.5"),
    ('deck = "italian"\nvary_others = 1\n', r"key 'vary_others': expected true or false"),
    ('deck = "italian"\nholdout = "omerkel_scopa_commons/napoletane"\n', r"key 'holdout': expected a list"),
    ('deck = "italian"\nmemory_format = "rows"\n', r"key 'memory_format': expected one of channels_last, contiguous"),
    ('deck = "italian"\ncalibrate_on = "table:x"\n', r"key 'calibrate_on': expected a list"),
    ('deck = "italian"\ncourt_swap = 0.5\n', r"unknown key 'court_swap'"),
    ('deck = "italian"\nout = "models"\n', r"key 'out' says where a run reads or writes: give --out on the command line"),
    ('samples = 100\n', r"key 'deck' is missing"),
    ('deck = "italian"\nsamples = \n', r"r\.recipe\.toml: not valid TOML"),
])
def test_a_bad_recipe_is_named_by_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_recipe(_write(tmp_path, text))


@pytest.mark.parametrize(("text", "message"), [
    ('deck = "italian"\nprint_variation = 1.5\n', r"r\.recipe\.toml: --print-variation 1\.5: expected a probability"),
    ('deck = "italian"\nvary_others = true\n', r"r\.recipe\.toml: --vary-others needs --print-variation"),
    ('deck = "italian"\nreal_photos = 0.1\n', r"r\.recipe\.toml: --real-photos: the italian deck trains on --real-decks"),
    ('deck = "italian"\nbatch = 0\n', r"r\.recipe\.toml: --batch 0: expected at least 1"),
])
def test_a_recipe_value_out_of_range_is_named_with_its_file(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _args("--recipe", str(_write(tmp_path, text)))


def test_an_option_given_both_ways_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, 'deck = "italian"\nsamples = 100\n')
    with pytest.raises(ConfigError, match=r"key 'samples' is 100 but the command line gives --samples 200"):
        _args("--recipe", str(path), "--samples", "200")


def test_a_missing_recipe_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"recipe .*nowhere\.toml: cannot read"):
        _args("--recipe", str(tmp_path / "nowhere.toml"))


def test_referee_train_with_a_bad_recipe_writes_nothing(tmp_path: Path) -> None:
    from referee.cli import main

    path = _write(tmp_path, 'deck = "italian"\nsteps = "ten"\n')
    with pytest.raises(ConfigError, match="key 'steps': expected int"):
        main(["train", "--recipe", str(path), "--out", str(tmp_path / "m"), "--cache", str(tmp_path / "c")])
    assert not (tmp_path / "m").exists() and not (tmp_path / "c").exists()


def test_a_deck_is_still_required(tmp_path: Path) -> None:
    from referee.cli import main

    with pytest.raises(ConfigError, match="--deck: required"):
        main(["train", "--out", str(tmp_path / "m")])


class _DataBuilt(Exception):
    """Stops a training run once every set it would render is named."""


def _sets_built(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[str]:
    """The cache names of every set a ``referee train`` run renders (its training data), in order."""
    import numpy as np

    from referee.cli import main
    from referee.recognition import train
    from referee.recognition.dataset import SynthSet, cache_name

    names: list[str] = []

    def record(cache: Path, family: str, sets: list[str], per_face: int, seed: int, **kw: object) -> SynthSet:
        kw.pop("workers", None), kw.pop("root", None), kw.pop("progress", None)
        names.append(cache_name(family, sets, per_face, seed, **kw))
        if len(names) == 3:  # training, table-style and validation sets: all named
            raise _DataBuilt
        return SynthSet(np.zeros((1, 96, 64, 3), np.uint8), np.zeros(1, np.int64), np.zeros(1, np.int64), tuple(sets))

    monkeypatch.setattr(train, "cached_set", record)
    monkeypatch.setattr(train, "join_sets", lambda a, b: a)
    with pytest.raises(_DataBuilt):
        main(argv)
    return names


@pytest.mark.shared("faces")
@pytest.mark.parametrize(("deck", "command"), [
    ("italian", "--deck italian --seed 0 --samples 80000 --table-samples 40000 --steps 9139 --print-variation 0.5 "
                "--vary-others --threads 1 --workers 1"),
    ("french", "--deck french --seed 0 --samples 160000 --table-samples 40000 --steps 13298 --threads 2 --workers 2 "
               "--real-photos 0.04"),
])
def test_the_recipe_builds_the_same_training_data_as_the_committed_command(
        deck: str, command: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    try:
        where = ["--out", str(tmp_path / "m"), "--cache", str(tmp_path / "c")]
        from_recipe = _sets_built(monkeypatch, ["train", "--recipe", str(MODELS / f"{deck}.recipe.toml"), *where])
        from_command = _sets_built(monkeypatch, ["train", *command.split(), *where])
    finally:
        torch.set_num_threads(threads)
    assert from_recipe == from_command and len(from_recipe) == 3
    assert not (tmp_path / "m").exists()


def test_the_help_shows_each_default_the_options_hold(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["train", "--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    defaults = TrainOptions("italian")
    assert f"synthetic training crops (cached) (default {defaults.samples})" in text
    assert f"(default {defaults.memory_format})" in text and f"(default {defaults.lr})" in text
    assert "where it reads and writes (command line only)" in text and "--court-swap" not in text
