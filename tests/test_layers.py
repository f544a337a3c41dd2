"""The package's layers, read from the source's import statements (lazy and TYPE_CHECKING
imports included): the rules core stands alone, the command line sits on top of the library and
nothing in the library reaches back into it.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

from referee.cli import COMMANDS

PACKAGE = Path(__file__).resolve().parent.parent / "referee"

#: what the rules core may import besides the standard library
CORE_ALLOWED = ("referee.rules", "referee.cards", "referee.errors")


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer} (line {self.line}) imports {self.imported}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[Import]:
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), name, package)


def imports_in(source: str, name: str, package: str) -> list[Import]:
    """Every module ``source`` (module ``name`` in ``package``) names in an import statement,
    wherever it stands; ``from X import Y`` names X and X.Y (Y may be a submodule)."""
    found: list[Import] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [Import(name, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.append(Import(name, base, node.lineno))
            found += [Import(name, f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return found


ALL_IMPORTS = [imp for path in sorted(PACKAGE.rglob("*.py")) for imp in imports_of(path)]


def within(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_the_walker_sees_lazy_relative_and_from_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from referee.recognition import CardClassifier\n"
        "def f():\n    from referee.cli import enroll\n    from .detections import Image\n"
        "    from ..errors import RefereeError\n    import argparse\n"
    )
    found = {i.imported for i in imports_in(source, "referee.vision.probe", "referee.vision")}
    assert {"referee.recognition.CardClassifier", "referee.cli.enroll", "referee.vision.detections",
            "referee.errors", "argparse"} <= found


def test_the_rules_core_imports_only_itself_cards_errors_and_the_standard_library() -> None:
    bad = [
        str(i) for i in ALL_IMPORTS
        if within(i.importer, "referee.rules")
        and i.imported.partition(".")[0] not in sys.stdlib_module_names
        and i.imported != "__future__" and not i.imported.startswith("__future__.")
        and not within(i.imported, *CORE_ALLOWED)
    ]
    assert bad == []


def test_nothing_in_the_library_imports_the_command_line() -> None:
    bad = [
        str(i) for i in ALL_IMPORTS
        if within(i.imported, "referee.cli")
        and not within(i.importer, "referee.cli")
        and i.importer != "referee.__main__"
    ]
    assert bad == []


def test_every_sub_command_lives_in_the_cli_package() -> None:
    outside = {name: module for name, (module, _) in COMMANDS.items() if not within(module, "referee.cli")}
    assert outside == {}


def test_recognition_does_not_import_vision() -> None:
    # the one place the two meet for enrollment (--grid: the vision edge finds the cards) is
    # the command line, referee.cli.enroll
    bad = [str(i) for i in ALL_IMPORTS if within(i.importer, "referee.recognition") and within(i.imported, "referee.vision")]
    assert bad == []


def test_vision_uses_only_the_recognisers_library_interface() -> None:
    # vision loads a CardClassifier; training and enrollment are recognition's command lines
    bad = [
        str(i) for i in ALL_IMPORTS
        if within(i.importer, "referee.vision")
        and within(i.imported, "referee.recognition.train", "referee.recognition.enroll", "referee.recognition.recipe")
    ]
    assert bad == []


def test_only_the_cli_package_parses_command_lines() -> None:
    bad = [
        str(i) for i in ALL_IMPORTS
        if within(i.imported, "argparse") and not within(i.importer, "referee.cli")
    ]
    assert bad == []


def test_every_module_is_read() -> None:
    read = {i.importer for i in ALL_IMPORTS}
    assert {"referee.cli", "referee.cli.enroll", "referee.rules.referee", "referee.vision.watch"} <= read
