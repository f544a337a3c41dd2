"""Requests from the console's thread, run by the box's main loop one at a time, in order.

The box is single-threaded on purpose (``referee.box.app``): the web thread never touches it.
It posts a job and awaits the job's future; the main loop runs every job waiting on each turn
(:meth:`Mailbox.drain`), in the order they were posted.

>>> box_mail = Mailbox()
>>> future = box_mail.post(lambda: 6 * 7)
>>> box_mail.drain(), future.result()
(1, 42)
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class Mailbox:
    """See the module docstring."""

    def __init__(self, fatal: tuple[type[BaseException], ...] = ()) -> None:
        #: errors that also stop the main loop (the record cannot be written), after the
        #: caller was told
        self.fatal = fatal
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()

    def post(self, job: Callable[[], T]) -> Future[T]:
        """Queue ``job`` for the main loop (any thread); its future holds what it returned or raised."""
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future

    def drain(self) -> int:
        """Run every job waiting, in order (the main loop); returns how many ran."""
        ran = 0
        while True:
            try:
                job, future = self._jobs.get_nowait()
            except queue.Empty:
                return ran
            ran += 1
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job())
            except BaseException as exc:  # the caller gets it; the main loop goes on, unless fatal
                future.set_exception(exc)
                if isinstance(exc, self.fatal) or not isinstance(exc, Exception):
                    raise
