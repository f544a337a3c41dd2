"""The table PIN: compared in constant time, failed attempts limited per client, and the
sessions a correct PIN opens (a cookie, so a phone need not send the PIN with every change).

The PIN is never logged, never put in a URL and never echoed in an error.

>>> gate = PinGate("4711", clock=lambda: 0.0)
>>> gate.check("0000", "10.0.0.7"), gate.check("4711", "10.0.0.7")
(<Verdict.WRONG: 'wrong'>, <Verdict.OK: 'ok'>)
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from enum import Enum

#: failed PIN attempts a client may make per window; then it waits out the window
MAX_FAILURES = 5
WINDOW_S = 60.0
#: how long a login lasts (a club evening)
SESSION_S = 12 * 3600.0


class Verdict(Enum):
    OK = "ok"
    WRONG = "wrong"  # 403
    LIMITED = "limited"  # 429: too many wrong PINs from this client lately


class PinGate:
    """See the module docstring; ``clock`` is injectable for tests."""

    def __init__(self, pin: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._pin = pin.encode("utf-8")
        self.clock = clock
        self._failures: dict[str, list[float]] = {}
        self._sessions: dict[str, float] = {}  # token -> expiry

    def __repr__(self) -> str:
        return "PinGate(pin=<hidden>)"

    def check(self, pin: str, client: str) -> Verdict:
        """Whether ``pin`` is the table PIN; a client with too many recent failures is not
        even compared (so guessing cannot go faster than :data:`MAX_FAILURES` per window)."""
        now = self.clock()
        recent = [t for t in self._failures.get(client, []) if now - t < WINDOW_S]
        if len(recent) >= MAX_FAILURES:
            self._failures[client] = recent
            return Verdict.LIMITED
        if hmac.compare_digest(pin.encode("utf-8", "surrogatepass"), self._pin):
            self._failures.pop(client, None)
            return Verdict.OK
        self._failures[client] = [*recent, now]
        if len(self._failures) > 10_000:  # a flood of clients: forget the stalest
            self._failures.pop(next(iter(self._failures)))
        return Verdict.WRONG

    def open_session(self) -> str:
        """A new session token (after a correct PIN)."""
        now = self.clock()
        self._sessions = {t: exp for t, exp in self._sessions.items() if exp > now}
        token = secrets.token_urlsafe(24)
        self._sessions[token] = now + SESSION_S
        return token

    def session_ok(self, token: str) -> bool:
        expiry = self._sessions.get(token)
        return expiry is not None and expiry > self.clock()

    def close_session(self, token: str) -> None:
        self._sessions.pop(token, None)
