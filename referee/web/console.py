"""The console's parts wired together: the mailbox the web thread posts to, the desk the main
loop runs the posts on, the PIN gate and the live pages' fan-out.

    console = Console(box, pin="4711", setup_path=state_dir / "console.json")
    server = ConsoleServer(console, "0.0.0.0", 8080).start()   # its own thread and loop
    while running:                                             # the box's main loop
        ...
        console.pump()        # run the requests waiting, then push a changed table to the pages
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.box.app import Box
from referee.box.state import StateError
from referee.web.desk import Desk
from referee.web.gate import PinGate
from referee.web.mailbox import Mailbox


class Console:
    """See the module docstring. ``publish`` is set by the server: it takes a changed snapshot
    to every live page (from the main loop's thread; it must not block)."""

    def __init__(self, box: Box, pin: str, setup_path: Path | None = None) -> None:
        self.desk = Desk(box, setup_path)
        self.mailbox = Mailbox(fatal=(StateError,))
        self.gate = PinGate(pin)
        self.publish: Callable[[dict[str, Any]], None] | None = None
        self.published = 0  # the seq of the last snapshot pushed

    def __repr__(self) -> str:
        return "Console(pin=<hidden>)"

    def pump(self) -> None:
        """Called on every turn of the box's main loop (after its own events)."""
        self.mailbox.drain()
        snapshot = self.desk.snapshot()
        if snapshot["seq"] != self.published and self.publish is not None:
            self.published = snapshot["seq"]
            self.publish(snapshot)
