"""What a simulated deal writes: the annotated video, the box's screen per call, JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy.typing as npt

from referee.table.question import Question
from referee.vision.simulator.stages import Call, SeenCard


def annotate_frame(image: npt.NDArray[Any], layout: Any, seen: list[SeenCard], text: str, t: float,
                   width: int | None = None) -> npt.NDArray[Any]:
    from referee.vision.annotate import annotate

    out: npt.NDArray[Any] = annotate(image, layout, seen, text, t, width=width)
    return out


class VideoWriter:
    def __init__(self, path: Path, fps: float) -> None:
        from referee.vision.annotate import AnnotatedVideo

        self.path = path
        self._video = AnnotatedVideo(path, fps)

    def write(self, image: npt.NDArray[Any]) -> None:
        self._video.write(image)

    def close(self) -> None:
        self._video.close()


class ScreenWriter:
    """The box's OLED screen for each call, as PNG (skipped with a note if the box is missing)."""

    def __init__(self, folder: Path, say: Any) -> None:
        self.folder = folder
        self.count = 0
        try:
            from referee.box import screens
        except ImportError as exc:  # pragma: no cover - the box ships with the package
            say(f"# NOTE: no display screens: referee.box.screens not available ({exc})")
            self._screens: Any = None
            return
        self._screens = screens
        folder.mkdir(parents=True, exist_ok=True)

    def add(self, call: Call) -> None:
        if self._screens is None:
            return
        if call.get("call") == "confirm":  # the box asks the table with its confirm screen
            if call.get("card"):  # "did this seat play?" names no card: the box's menu asks it
                question = Question.from_call(call)
                self._save(self._screens.ConfirmScreen.for_question(question, str(call["card"])), "confirm")
            return
        made = self._screens.screen_for_call(call)
        if made is None:
            return
        screen, kind = made
        self._save(screen, kind)

    def final(self, calls: list[Call]) -> None:
        """The running-score screen as the deal ends."""
        if self._screens is None:
            return
        ends = [c for c in calls if c.get("call") == "deal_end"]
        if ends:
            points = sorted(ends[-1]["points"].items())
            self._save(self._screens.ScoreScreen(points), "score")

    def _save(self, screen: Any, kind: str) -> None:
        self.count += 1
        image = self._screens.render(screen, "it")
        image.save(self.folder / f"{self.count:03d}_{kind}.png")


def dump_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


