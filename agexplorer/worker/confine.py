"""The worker's own side of leaving nothing behind: it dies with its client, keeps the orphans
of what user code starts, and a copy of it made by ``os.fork()`` dies with it (the client's
side, and why this finds everything: ``agexplorer.worker.descendants``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import threading
import time
from typing import Any


def _leave() -> None:
    """The client is gone: remove our temp folder (only one the client named) and exit now."""
    folder = os.environ.get("AGX_WORKER_TMPDIR", "")
    if os.path.basename(folder).startswith("agx-worker-"):
        shutil.rmtree(folder, ignore_errors=True)
    os._exit(1)


def _watch_parent(parent: int) -> None:
    # Runs between the user's bytecodes (the GIL switches every few ms), so a Python loop
    # that spins does not stop it; native code that holds the GIL is left to the kernel's
    # parent-death signal on Linux.
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            _leave()


_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_forker = 0  # the pid that is calling os.fork(), as its child sees it
_libc: Any = None


def _prctl(option: int, value: int) -> None:
    """Linux's prctl; nothing elsewhere, or where it is refused. The C library is loaded
    once, before any fork: loading it in a forked child could wait on a lock for ever."""
    global _libc
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        if _libc is None:
            import ctypes

            _libc = ctypes.CDLL(None, use_errno=True)
        _libc.prctl(option, value, 0, 0, 0)


def die_with_parent(parent: int) -> None:
    """Never outlive the client: the kernel's parent-death signal where there is one (Linux),
    and a watchdog thread everywhere."""
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:  # the client died before the signal was asked for
        _leave()
    threading.Thread(target=_watch_parent, args=(parent,), name="agx-watchdog",
                     daemon=True).start()


def hang_up_with_parent(parent: int) -> None:
    """SIGHUP when the process ``parent`` ends (the kernel's parent-death signal, Linux; at
    once where it ended already), as when a terminal closes."""
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGHUP))
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGHUP)


def contain(sock_fd: int) -> None:
    """Keep what user code starts where the client finds and ends it (see
    ``agexplorer.worker.descendants``): orphans of our children re-parent to this worker, not
    to init; a copy of the worker made by ``os.fork()`` dies with the process that forked it
    and has /dev/null in place of the socket, so it never answers the client."""
    global _forker
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)

    def before() -> None:
        global _forker
        _forker = os.getpid()

    def in_child() -> None:
        _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if os.getppid() != _forker:  # it died before the signal was asked for
            os._exit(1)
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, sock_fd)
            os.close(null)

    # subprocess's own fork (without preexec_fn) runs no hooks: those children are found
    # in /proc instead, and execute their program with the socket closed
    _forker = os.getpid()
    os.register_at_fork(before=before, after_in_child=in_child)
