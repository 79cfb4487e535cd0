"""A time box for one mode: the work runs in a thread, and the caller stops waiting for it.

A running TensorFlow call (an XLA compile, a loop in user code) cannot be interrupted from
Python, so a mode past its box is abandoned, not stopped: the thread finishes in the
background, and the caller reports what the mode had measured by then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

_NAME = "agx-mode"


def abandoned() -> bool:
    """Whether a mode abandoned past its box is still running in this process."""
    return any(t.name == _NAME and t.is_alive() for t in threading.enumerate())


def run_boxed(work: Callable[[], Any], seconds: float | None) -> bool:
    """Run ``work()``; True when it finished within ``seconds`` (None: no box, it runs here).

    An exception ``work`` raises (SystemExit included) is raised here, as if called directly.
    """
    if seconds is None:
        work()
        return True
    failure: list[BaseException] = []

    def body() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            failure.append(exc)

    # A daemon thread: an abandoned compile must not keep the worker from exiting.
    thread = threading.Thread(target=body, name=_NAME, daemon=True)
    thread.start()
    thread.join(max(seconds, 0.0))
    if thread.is_alive():
        return False
    if failure:
        raise failure[0]
    return True
