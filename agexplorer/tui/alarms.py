"""Callbacks at a later time, from one thread that waits for them all.

The worker's progress is shown only once a request has run ``PHASE_DELAY`` (tui/bridge.py),
and almost every request (an edit's re-trace, ~30 ms) ends before that. A
``threading.Timer`` per request started a thread on the way (0.1-1 ms, with the interpreter
handed to it) and woke it again when its cancel came, at the moment the answer arrived and
the app's thread was to draw it. Here one thread serves every alarm: a cancel only marks the
alarm, and the thread meets it when it was due, long after the answer.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable


class Alarm:
    """One callback due at a time (``time.monotonic``); :meth:`cancel` keeps it from running."""

    __slots__ = ("callback", "cancelled")

    def __init__(self, callback: Callable[[], object]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Alarms:
    """The alarms of a process, run on its thread (``name``), started with the first."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._due: list[tuple[float, int, Alarm]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def at(self, when: float, callback: Callable[[], object]) -> Alarm:
        """Call ``callback`` on the alarms' thread at ``when`` (``time.monotonic``), unless the
        alarm returned is cancelled by then."""
        alarm = Alarm(callback)
        with self._wake:
            heapq.heappush(self._due, (when, next(self._order), alarm))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            elif self._due[0][2] is alarm:  # sooner than the one the thread waits for
                self._wake.notify()
        return alarm

    def _run(self) -> None:
        while True:
            with self._wake:
                while True:
                    if not self._due:
                        self._wake.wait()
                        continue
                    wait = self._due[0][0] - time.monotonic()
                    if wait <= 0:
                        alarm = heapq.heappop(self._due)[2]
                        break
                    self._wake.wait(wait)
            if not alarm.cancelled:
                try:
                    alarm.callback()
                except Exception:  # noqa: BLE001 - one callback's failure ends no other alarm
                    pass

    def _forget(self) -> None:
        """In a forked child: no thread serves these alarms there (and the lock may be held)."""
        self._due, self._wake, self._thread = [], threading.Condition(), None


ALARMS = Alarms("agx-alarms")

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=ALARMS._forget)
