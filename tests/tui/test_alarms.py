"""Alarms: callbacks at their time from one thread; a cancelled one never runs (no Textual,
no TensorFlow)."""

from __future__ import annotations

import threading
import time

from agexplorer.tui import bridge
from agexplorer.tui.alarms import Alarms
from tests.tui.test_bridge_phases import _until


def test_alarms_run_at_their_time_in_order_and_a_cancelled_one_never():
    alarms = Alarms("test-alarms-order")
    ran: list[tuple[str, float]] = []
    start = time.monotonic()
    alarms.at(start + 0.15, lambda: ran.append(("late", time.monotonic())))
    cancelled = alarms.at(start + 0.05, lambda: ran.append(("cancelled", time.monotonic())))
    # sooner than the one the thread waits for: it is woken for it
    alarms.at(start + 0.02, lambda: ran.append(("soon", time.monotonic())))
    cancelled.cancel()
    assert _until(lambda: len(ran) == 2)
    time.sleep(0.1)
    assert [name for name, _ in ran] == ["soon", "late"]
    assert ran[0][1] >= start + 0.02 and ran[1][1] >= start + 0.15


def test_one_thread_serves_every_alarm_and_a_failing_callback_stops_none():
    alarms = Alarms("test-alarms-one")
    ran: list[int] = []

    def fails() -> None:
        raise RuntimeError("a callback's own failure")

    soon = time.monotonic() + 0.01
    alarms.at(soon, fails)
    for n in range(20):
        alarms.at(soon + n * 0.001, lambda n=n: ran.append(n))
    assert _until(lambda: len(ran) == 20)
    assert ran == list(range(20))
    assert [t.name for t in threading.enumerate()].count("test-alarms-one") == 1


def test_requests_phases_start_no_thread_each(monkeypatch):
    """A request's progress set no threading.Timer of its own (a thread started, and woken
    by the cancel as its answer came): quick requests add no thread."""
    monkeypatch.setattr(bridge, "PHASE_DELAY", 0.2)

    class PostBox:
        def post_message(self, message) -> bool:
            return True

    before = threading.active_count()
    for _ in range(10):
        phases = bridge._Phases(PostBox())
        phases.start()
        phases("tracing f")
        phases.close()
    assert threading.active_count() <= before + 1  # (the alarms' thread, at its first use)
