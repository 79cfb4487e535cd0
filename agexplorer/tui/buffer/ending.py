"""SIGTERM, SIGHUP (the terminal closed), a terminal that hung up and a served explorer's
closed input end the explorer the way quitting does, its unsaved buffer kept first, within two
seconds even when giving the terminal back hangs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import threading
from collections.abc import Callable
from typing import Any

# After SIGTERM or SIGHUP the explorer ends on its own within this long, worker and all, even
# when giving the terminal back hangs (a closed terminal).
LAST_RESORT_S = 1.5


class Ending:
    """On a signal: ``keep()`` (the recovery copy), then ``end(code)`` (the app's exit, code
    128 + the signal). In a terminal (not ``headless()``) a last-resort timer then ends the
    worker (``close_worker``) and the process if the exit hangs. ``running()`` says whether
    the app still runs (not ending already); ``key_thread()`` is the thread a served
    explorer reads stdin with (None in a terminal)."""

    def __init__(self, keep: Callable[[], object], end: Callable[[int], object],
                 running: Callable[[], bool], close_worker: Callable[[], object],
                 headless: Callable[[], bool],
                 key_thread: Callable[[], threading.Thread | None] = lambda: None) -> None:
        self.keep, self.end, self.running, self.close_worker = keep, end, running, close_worker
        self.headless, self.key_thread = headless, key_thread
        self._signals: list[tuple[int, Any]] = []  # (signal, the handler it replaced)
        self._last_resort: threading.Timer | None = None

    def catch(self) -> None:
        """Catch SIGTERM and SIGHUP (in the main thread only) and watch a served input."""
        loop = asyncio.get_running_loop()
        self._watch_input(loop)
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                previous = signal.getsignal(sig)
                loop.add_signal_handler(sig, self.by_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError, OSError):
                continue
            self._signals.append((sig, previous))

    def release(self) -> None:
        """Give the signals back to the handlers they had before the app."""
        loop = asyncio.get_running_loop()
        for sig, previous in self._signals:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
                signal.signal(sig, previous)
        self._signals.clear()

    def _watch_input(self, loop: asyncio.AbstractEventLoop) -> None:
        """A served explorer (Textual's web driver) reads its keys and the browser's "quit"
        from stdin, in one thread: when that thread ends while the app runs, stdin closed
        and nobody can ever quit it, so it ends as on SIGHUP.

        In a terminal, the kernel sends SIGHUP when it closes only to the processes it is the
        controlling terminal of; an explorer that has none (the warm explorer's, ``setsid``)
        would read end-of-file for ever, spinning Textual's input thread. It ends as on
        SIGHUP when its terminal hangs up (``poll``'s POLLHUP: no time spent until then)."""
        keys = self.key_thread()
        if keys is None:
            if self.headless() or not _is_terminal(0):
                return  # no reader started, or no terminal to watch
            waiter: Callable[[], object] = _hang_up
        else:
            waiter = keys.join

        def wait() -> None:
            waiter()
            with contextlib.suppress(RuntimeError):  # the loop is closed: the app ended
                loop.call_soon_threadsafe(self.input_closed)

        threading.Thread(target=wait, name="agx-input-watch", daemon=True).start()

    def input_closed(self) -> None:
        """A served explorer's input ended, or the terminal hung up: as on SIGHUP, unless the
        app is ending anyway."""
        if self.running():
            self.by_signal(signal.SIGHUP)

    def by_signal(self, sig: int) -> None:
        """End as the signal ``sig`` asks, the buffer kept first."""
        self.keep()
        if not self.headless():
            # The terminal may be gone (SIGHUP): if restoring it hangs, end anyway.
            self._last_resort = threading.Timer(LAST_RESORT_S, self._end_now, (128 + sig,))
            self._last_resort.daemon = True
            self._last_resort.start()
        self.end(128 + sig)

    def _end_now(self, code: int) -> None:
        """The last resort: the worker (and what it started) ends, then this process."""
        with contextlib.suppress(Exception):
            self.close_worker()
        os._exit(code)

    def ended(self) -> None:
        """The app's run is over: a last-resort exit timer set by a signal goes."""
        if self._last_resort is not None:
            self._last_resort.cancel()


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _hang_up(fd: int = 0) -> None:
    """Return once the terminal ``fd`` hangs up (its other end closed) or is unusable."""
    poller = select.poll()
    poller.register(fd, 0)  # POLLHUP, POLLERR and POLLNVAL are reported whatever is asked
    while True:
        try:
            if poller.poll():
                return
        except InterruptedError:
            continue
        except OSError:
            return
