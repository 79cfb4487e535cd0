"""Worker process mechanics: spawning from a long-lived thread, ending (with everything the
worker started: see ``agexplorer.worker.descendants``), stale folders, signals."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from agexplorer.worker.descendants import (
    end_descendants,
    end_group,
    kill_all,
    marked,
    pid_alive,
    start_time,
)
from agexplorer.worker.zygote import ForkedProcess, fork_worker

# Each worker's private temp folder: agx-worker-<client pid>-XXXXXXXX, so that a later client
# can tell a folder whose client is gone (killed, it could not clean up) from a live one.
FOLDER_PREFIX = "agx-worker-"
_SIGNAL_HINTS = {"SIGKILL": ", most often the out-of-memory killer",
                 "SIGSEGV": ", a crash inside native code", "SIGABRT": ", an abort"}


def how_ended(code: int | None) -> str:
    """How a process ended, in words: 'exited with signal 9 (SIGKILL, ...)'; None: it did not."""
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        return f"exited with signal {-code} ({name}{_SIGNAL_HINTS.get(name, '')})"
    if code is None:
        return "stopped answering"
    return f"exited with status {code}"


class _Spawner:
    """Starts worker processes from one thread that lives as long as this process.

    The worker asks Linux for SIGKILL when its parent dies (PR_SET_PDEATHSIG), and Linux
    sends it when the *thread* that forked the worker ends, not the process. The TUI makes
    its requests from short-lived Textual thread workers: a worker forked there would be
    killed as soon as that request's thread finished. So every Popen runs on the main thread
    or, when start() is called from another thread, on one daemon thread made for it.
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Future, tuple, dict]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen:
        if threading.current_thread() is threading.main_thread():
            return subprocess.Popen(*args, **kwargs)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="agx-spawner",
                                                daemon=True)
                self._thread.start()
        done: Future = Future()
        self._jobs.put((done, args, kwargs))
        return done.result()

    def _serve(self) -> None:
        while True:
            done, args, kwargs = self._jobs.get()
            try:
                done.set_result(subprocess.Popen(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                done.set_exception(exc)


_spawner = _Spawner()
_swept = False
# When each process popen started began (its pid may name another process once it is reaped).
_started: weakref.WeakKeyDictionary[subprocess.Popen | ForkedProcess, int] = weakref.WeakKeyDictionary()


def popen(*args: Any, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen`` from a thread that outlives the caller's (see ``_Spawner``)."""
    proc = _spawner.popen(*args, **kwargs)
    start = start_time(proc.pid)  # fixed at the fork: read before anything can reap it
    if start is not None:
        _started[proc] = start
    return proc


def forked(env: dict[str, str], sock_fd: int, log_fd: int, args: list[str],
           zygote: str | None = None) -> ForkedProcess | None:
    """A worker forked by the warm zygote at ``zygote`` (else the one ``AGX_ZYGOTE`` names;
    see ``worker.zygote``), its start time kept as ``popen`` keeps it; None where there is
    none that can make it."""
    proc = fork_worker(env, sock_fd, log_fd, args, zygote)
    if proc is not None:
        start = start_time(proc.pid)
        if start is not None:
            _started[proc] = start
    return proc


def end_process(proc: subprocess.Popen | ForkedProcess, graceful: bool, marker: str | None = None,
                grace: float = 3.0) -> None:
    """End ``proc`` and everything it started: its descendants (read from /proc while it
    still holds them), then itself (SIGTERM first when ``graceful``, SIGKILL after ``grace``
    seconds), then its process group (always: also when it had exited by itself), then any
    process left whose environment holds ``marker`` ("NAME=value" of ``proc``'s own). See
    :mod:`agexplorer.worker.descendants` for why this finds them all on Linux."""
    found: dict[int, int] = {}
    if proc.poll() is None:
        found = end_descendants(proc.pid)
        if graceful:
            with contextlib.suppress(OSError):
                proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            # with a timeout, wait never blocks on a lock another wait holds (a signal
            # handler may call this while the main thread waits)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
    # It runs in its own session: its id names its group, whose members may outlive it (once
    # it is reaped, the id may name another's group: see descendants.end_group).
    end_group(proc.pid, _started.get(proc))
    kill_all(found)  # any that moved to init between the listing and the worker's end
    if marker:
        kill_all(marked(marker))


def ask_for_stack(pid: int, read_log: Callable[[], str]) -> str:
    """Ask the worker ``pid`` for its stack; what it wrote to its log (``read_log()``, the
    whole log so far) within half a second of the first signal that got an answer: SIGUSR1
    is answered in Python (lines mapped back through AutoGraph), SIGUSR2 by faulthandler
    when the worker is stuck in native code."""
    for sig in (signal.SIGUSR1, signal.SIGUSR2):
        before = len(read_log())
        try:
            os.kill(pid, sig)
        except OSError:  # it is gone
            return ""
        for _ in range(10):
            time.sleep(0.05)
            if len(read_log()) > before:
                break
        dump = read_log()[before:]
        if dump:
            return dump
    return ""


def sweep_stale_folders(folder: str | None = None) -> list[str]:
    """Remove the worker folders (``agx-worker-<pid>-*``) in ``folder`` (default: the temp
    dir) that belong to this user and whose client process is gone, and end the processes
    their workers left running; returns their paths."""
    folder = folder or tempfile.gettempdir()
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = re.fullmatch(rf"{re.escape(FOLDER_PREFIX)}(\d+)-\w+", entry.name)
        if match is None or pid_alive(int(match.group(1))):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or \
                    entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        # what its worker started and left running (its client was killed: nobody ended it)
        kill_all(marked(f"AGX_WORKER_TMPDIR={entry.path}"))
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.path)
    return removed


def sweep_once() -> None:
    """Sweep the stale folders on this process's first worker start only (folders of clients
    that were killed and could not clean up)."""
    global _swept
    if not _swept:
        _swept = True
        sweep_stale_folders()


def make_folder() -> str:
    """A new private temp folder (mode 0700) for one worker, named after this process."""
    return tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")


def end_on_signals(end: Callable[[], None]) -> None:
    """On SIGTERM or SIGHUP (the terminal closed), call ``end``, then die of the signal as we
    would have without a handler, so the exit status still says which one."""
    # Handlers can only be set on the main thread; one someone else installed is kept.
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum: int, frame: Any) -> None:
        end()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, handler)
