"""SIGTSTP and SIGCONT handled on the explorer's event loop, not inside a signal handler.

Textual's Linux driver suspends the terminal in its SIGTSTP handler (and resumes it in its
SIGCONT handler), writing the terminal's reset through its writer thread's queue. Python runs
a signal handler in the main thread between two bytecodes: a SIGTSTP that came while the main
thread was inside that queue's ``put`` (a frame being written, under the queue's lock) made
the handler's own ``put`` wait for a lock its own thread held. The explorer hung for ever:
it never stopped, nothing it scheduled ran again (not even the end it owes a closed
terminal), and once its terminal closed, Textual's input thread read end-of-file in a loop,
~70% of a core. Seen after ``kill -TSTP`` of a warm explorer's command (a test failed so, once,
under load) and found hours later, spinning, after the tmux session it ran in was killed.

:func:`job_control_on_loop` gives the explorer a driver whose two handlers are the event
loop's (``loop.add_signal_handler``, as the explorer's SIGTERM and SIGHUP are: the handler
only wakes the loop), so the driver's own suspend and resume run there, where no lock of its
writer is held. Textual's names for them (``_sigtstp_application``, ``_sigcont_application``)
are looked up on the class: a Textual that names them otherwise gets its own driver, as is.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.driver import Driver

HANDLERS = (("SIGTSTP", "_sigtstp_application"), ("SIGCONT", "_sigcont_application"))


def job_control_on_loop(driver_class: type[Driver]) -> type[Driver]:
    """``driver_class`` where it has no job-control handlers (the web and headless drivers);
    else a subclass that runs them on the event loop."""
    found: list[tuple[int, str]] = []
    for sig_name, name in HANDLERS:
        sig = getattr(signal, sig_name, None)
        if sig is None or not callable(getattr(driver_class, name, None)):
            return driver_class
        found.append((int(sig), name))

    class LoopJobControl(driver_class):  # type: ignore[valid-type, misc]
        """Textual's driver, its SIGTSTP and SIGCONT handled on the event loop."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)  # (it sets its handlers with signal.signal)
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # made outside the app's loop: its own handlers stay
                return
            for sig, name in found:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError,
                                         OSError):  # not the main thread: they stay too
                    loop.add_signal_handler(sig, getattr(self, name))

    LoopJobControl.__name__ = LoopJobControl.__qualname__ = \
        f"LoopJobControl{driver_class.__name__}"
    return LoopJobControl
