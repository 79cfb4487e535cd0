"""Worker process mechanics: spawning from a long-lived thread, ending, stale folders, signals."""

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
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

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


def popen(*args: Any, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen`` from a thread that outlives the caller's (see ``_Spawner``)."""
    return _spawner.popen(*args, **kwargs)


def end_process(proc: subprocess.Popen, graceful: bool) -> None:
    """End ``proc`` if it still runs: SIGTERM first when ``graceful``, then SIGKILL to its
    process group (it runs in its own session, so this ends whatever it started)."""
    if proc.poll() is not None:
        return
    if graceful:
        with contextlib.suppress(OSError):
            proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=3)
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        # with a timeout, wait never blocks on a lock another wait holds (a signal
        # handler may call this while the main thread waits)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


def _pid_alive(pid: int) -> bool:
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, it is someone else's
        return True
    return True


def sweep_stale_folders(folder: str | None = None) -> list[str]:
    """Remove the worker folders (``agx-worker-<pid>-*``) in ``folder`` (default: the temp
    dir) that belong to this user and whose client process is gone; returns their paths."""
    folder = folder or tempfile.gettempdir()
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = re.fullmatch(rf"{re.escape(FOLDER_PREFIX)}(\d+)-\w+", entry.name)
        if match is None or _pid_alive(int(match.group(1))):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or \
                    entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
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
