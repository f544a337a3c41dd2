"""Golden games shared by every game's tests: ``<case>.events.jsonl`` -> exact ``<case>.calls.jsonl``.

Regenerate after a deliberate rules change with ``REFEREE_UPDATE_GOLDEN=1 .venv/bin/pytest
tests/rules`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from referee.replay import replay_lines

GOLDEN_ROOT = Path(__file__).parent.parent / "data" / "rules"


class GoldenSet:
    """The golden games of one folder under ``tests/data/rules``."""

    def __init__(self, folder: str) -> None:
        self.dir = GOLDEN_ROOT / folder
        self.cases = sorted(p.name.removesuffix(".events.jsonl") for p in self.dir.glob("*.events.jsonl"))

    def events(self, case: str) -> list[bytes]:
        return (self.dir / f"{case}.events.jsonl").read_bytes().splitlines(keepends=True)

    def replay(self, case: str) -> tuple[list[dict[str, Any]], int]:
        """The calls the referee makes for a case, and how many lines it rejected."""
        out: list[dict[str, Any]] = []
        rejected = replay_lines(self.events(case), out.append)
        return out, rejected

    def check(self, case: str) -> None:
        """Assert the case's calls equal the recorded ones exactly (or rewrite them on request)."""
        calls, _ = self.replay(case)
        expected_path = self.dir / f"{case}.calls.jsonl"
        if os.environ.get("REFEREE_UPDATE_GOLDEN"):
            expected_path.write_text("".join(json.dumps(c) + "\n" for c in calls))
        expected = [json.loads(line) for line in expected_path.read_text().splitlines()]
        assert calls == expected
