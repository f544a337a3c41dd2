"""The table PIN's gate and the main loop's mailbox, on their own."""

from __future__ import annotations

import functools
import threading

from hypothesis import given
from hypothesis import strategies as st

from referee.web.gate import MAX_FAILURES, SESSION_S, WINDOW_S, PinGate, Verdict
from referee.web.mailbox import Mailbox


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@given(st.text(max_size=12).filter(lambda p: p != "4711"))
def test_any_other_pin_is_wrong(pin: str) -> None:
    assert PinGate("4711", clock=Clock()).check(pin, "a") is Verdict.WRONG


def test_failures_are_limited_per_client_and_forgotten_after_the_window() -> None:
    clock = Clock()
    gate = PinGate("4711", clock=clock)
    for _ in range(MAX_FAILURES):
        assert gate.check("0000", "a") is Verdict.WRONG
    assert gate.check("4711", "a") is Verdict.LIMITED  # not even compared
    assert gate.check("4711", "b") is Verdict.OK  # another phone is not held up
    clock.now += WINDOW_S
    assert gate.check("4711", "a") is Verdict.OK


def test_sessions_expire_and_close() -> None:
    clock = Clock()
    gate = PinGate("4711", clock=clock)
    token = gate.open_session()
    assert gate.session_ok(token) and not gate.session_ok(token + "x")
    gate.close_session(token)
    assert not gate.session_ok(token)
    later = gate.open_session()
    clock.now += SESSION_S
    assert not gate.session_ok(later)


def test_the_pin_is_not_in_the_gate_repr() -> None:
    assert "4711" not in repr(PinGate("4711"))


def test_mailbox_runs_jobs_in_posting_order_in_the_draining_thread() -> None:
    mailbox = Mailbox()
    ran: list[tuple[int, str]] = []

    def job(i: int) -> None:
        ran.append((i, threading.current_thread().name))

    futures = [mailbox.post(functools.partial(job, i)) for i in range(50)]
    drainer = threading.Thread(target=mailbox.drain, name="main-loop")
    drainer.start()
    drainer.join()
    assert [i for i, _ in ran] == list(range(50)) and {name for _, name in ran} == {"main-loop"}
    assert all(f.done() for f in futures)


def test_a_failing_job_tells_its_caller_and_the_loop_goes_on() -> None:
    mailbox = Mailbox()
    failing = mailbox.post(lambda: 1 // 0)
    after = mailbox.post(lambda: "ok")
    assert mailbox.drain() == 2
    assert isinstance(failing.exception(), ZeroDivisionError) and after.result() == "ok"
