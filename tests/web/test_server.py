"""The console's server thread: a taken port is a clear error naming ``web.listen``."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from referee.web.console import Console
from referee.web.server import ConsoleError, ConsoleServer
from web.helpers import PIN, make_box


def test_a_taken_port_is_an_error_naming_web_listen(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        with pytest.raises(ConsoleError, match=rf"^web\.listen: cannot listen on 127\.0\.0\.1:{port}"):
            ConsoleServer(Console(box, PIN), "127.0.0.1", port).start()


def test_server_starts_on_a_free_port_and_stops(tmp_path: Path) -> None:
    console = Console(make_box(tmp_path), PIN)
    server = ConsoleServer(console, "127.0.0.1", 0).start()
    try:
        assert server.port > 0 and console.publish is not None
    finally:
        server.stop()
    assert console.publish is None
