"""The console's web server: its own thread and asyncio loop beside the box's main loop, which
it never blocks (requests wait on the :class:`~referee.web.mailbox.Mailbox`; the main loop
runs them on its next turn, within one poll of the feed).

    server = ConsoleServer(console, "0.0.0.0", 8080).start()   # raises ConsoleError if the port is taken
    ...
    server.stop()
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from aiohttp import web

from referee.errors import RefereeError
from referee.web.console import Console
from referee.web.routes import broadcast, make_app

log = logging.getLogger("referee.web")


class ConsoleError(RefereeError, OSError):
    """The console could not start (the address is taken or not the box's); names it."""


class ConsoleServer:
    """See the module docstring; ``port`` 0 picks a free port (:attr:`port` says which)."""

    def __init__(self, console: Console, host: str, port: int) -> None:
        self.console, self.host, self.port = console, host, port
        self.app = make_app(console)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._stop: asyncio.Event | None = None

    def start(self, timeout_s: float = 10.0) -> ConsoleServer:
        self._thread = threading.Thread(target=self._serve, name="referee-web", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise ConsoleError(f"web.listen: the console did not start on {self.host}:{self.port}")
        if self._failed is not None:
            raise ConsoleError(f"web.listen: cannot listen on {self.host}:{self.port}: {self._failed}")
        self.console.publish = self._publish
        log.info("console on http://%s:%d/", self.host, self.port)
        return self

    def _publish(self, snapshot: dict[str, Any]) -> None:
        """From the main loop: hand the snapshot to the server's loop, without waiting."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(broadcast, self.app, snapshot)

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # a port taken, an address not the box's: start() says so
            self._failed = exc
            self._ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await runner.setup()
        self._runner = runner
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            addresses = runner.addresses
            if addresses:
                self.port = int(addresses[0][1])
            self._ready.set()
            await self._stop.wait()
        finally:
            await runner.cleanup()

    def stop(self) -> None:
        self.console.publish = None
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
