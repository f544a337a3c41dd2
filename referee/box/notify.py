"""systemd notifications (READY, WATCHDOG, STATUS) straight to ``$NOTIFY_SOCKET``.

The protocol is one datagram on a Unix socket, so no python-systemd dependency is needed.
Outside systemd (no ``$NOTIFY_SOCKET``) every call is a no-op.

>>> notifier = Notifier.from_env()
>>> notifier.ready("refereeing briscola-4")   # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Mapping

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, address: str | None, watchdog_s: float | None = None) -> None:
        # An address starting with '@' is in the abstract namespace (leading NUL byte).
        self.address = "\0" + address[1:] if address and address.startswith("@") else address
        self.watchdog_s = watchdog_s
        self.is_ready = False
        self._last_ping = 0.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Notifier:
        env = os.environ if env is None else env
        usec = env.get("WATCHDOG_USEC", "")
        watchdog = int(usec) / 1e6 if usec.isdigit() else None
        return cls(env.get("NOTIFY_SOCKET") or None, watchdog)

    def send(self, message: str) -> bool:
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode())
        except OSError as exc:
            log.warning("cannot notify systemd at %r: %s", self.address, exc)
            return False
        return True

    def ready(self, status: str) -> None:
        """Tell systemd the service is up: only once the first frame arrived."""
        if not self.is_ready:
            self.is_ready = True
            self.send(f"READY=1\nSTATUS={status}")

    def frames_flowing(self, now: float | None = None) -> None:
        """A frame arrived: ping the watchdog (at most twice per watchdog period)."""
        now = time.monotonic() if now is None else now
        interval = (self.watchdog_s or 10.0) / 2
        if now - self._last_ping >= interval:
            self._last_ping = now
            self.send("WATCHDOG=1")

    def status(self, text: str) -> None:
        self.send(f"STATUS={text}")

    def stopping(self) -> None:
        self.send("STOPPING=1")
