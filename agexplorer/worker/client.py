"""The caller's side of the worker: start it, send requests, survive its hangs and crashes."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from agexplorer.core.errors import AgxError

DEFAULT_TIMEOUT = 30.0
START_TIMEOUT = 180.0  # importing TensorFlow on a loaded machine; not the user's time
_SIGNAL_HINTS = {"SIGKILL": ", most often the out-of-memory killer",
                 "SIGSEGV": ", a crash inside native code", "SIGABRT": ", an abort"}


class Worker:
    """One TensorFlow worker process, restarted on demand.

    ``request`` blocks until the answer, the timeout or the worker's death;
    the last progress message says what the worker was doing ("tracing f").
    """

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, env: dict[str, str] | None = None) -> None:
        self.timeout = timeout
        self.env = env
        self.phase = "starting"
        self.import_s: float | None = None
        self.start_s: float | None = None
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._log: Any = None
        self._ready = False
        self._lock = threading.RLock()  # one request at a time on the pipe

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the process (it imports TensorFlow in the background)."""
        self.close()
        ours, theirs = socket.socketpair()
        self._log = tempfile.TemporaryFile(mode="w+b")
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        self._started_at = time.perf_counter()
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from agexplorer.worker.server import main; main()",
             str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=self._log, env=env, start_new_session=True)
        theirs.close()
        self._conn = Connection(ours.detach())
        self._ready = False
        self.phase = "starting"

    def _wait_ready(self) -> None:
        if self._proc is None:
            self.start()
        if self._ready:
            return
        assert self._conn is not None
        if not self._conn.poll(START_TIMEOUT):
            self._kill()
            raise AgxError("worker-start", "the TensorFlow worker did not start within "
                           f"{START_TIMEOUT:g} s; check that `python -c \"import tensorflow\"` "
                           "works.", exit_code=1)
        try:
            hello = self._conn.recv()
        except (EOFError, OSError):
            raise self._death("starting") from None
        self.import_s = hello.get("import_s")
        self.start_s = time.perf_counter() - self._started_at
        self._ready = True

    def close(self) -> None:
        """End the process, if any."""
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()
        if self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(OSError):
                self._proc.terminate()
            try:
                self._proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self._kill()
        self._proc, self._conn, self._ready = None, None, False

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait()

    @property
    def alive(self) -> bool:
        """Whether a worker process is running."""
        return self._proc is not None and self._proc.poll() is None

    # -- requests ----------------------------------------------------------------------
    def request(self, kind: str, args: dict[str, Any] | None = None, *,
                timeout: float | None = None, what: str = "", path: str | None = None,
                on_progress: Any = None) -> Any:
        """Send one request and return its value; raise AgxError for its failure.

        Thread-safe: concurrent callers wait their turn.
        """
        with self._lock:
            return self._request(kind, args, timeout, what, path, on_progress)

    def _request(self, kind: str, args: dict[str, Any] | None, timeout: float | None,
                 what: str, path: str | None, on_progress: Any) -> Any:
        self._wait_ready()
        assert self._conn is not None
        limit = self.timeout if timeout is None else timeout
        self._conn.send({"kind": kind, "args": args or {}})
        deadline = time.monotonic() + limit
        self.phase = what or kind
        while True:
            remaining = deadline - time.monotonic()
            try:
                ready = remaining > 0 and self._conn.poll(remaining)
            except (EOFError, OSError):
                raise self._death(self.phase, path) from None
            if not ready:
                raise self._timed_out(limit, path)
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                raise self._death(self.phase, path) from None
            if "progress" in message:
                self.phase = message["progress"]
                if on_progress is not None:
                    on_progress(self.phase)
                continue
            if message.get("ok"):
                return message["value"]
            raise message["error"]

    # -- failures ----------------------------------------------------------------------
    def _log_text(self) -> str:
        if self._log is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._log.flush()
            self._log.seek(0)
            return self._log.read().decode("utf-8", "replace")
        return ""

    def _user_line(self, text: str, path: str | None) -> int | None:
        if not path:
            return None
        lines = re.findall(rf'File "{re.escape(path)}", line (\d+)', text)
        # faulthandler prints the innermost frame first
        return int(lines[0]) if lines else None

    def _timed_out(self, limit: float, path: str | None) -> AgxError:
        phase = self.phase
        line = None
        # Ask for the stack: SIGUSR1 is answered in Python (lines mapped back through
        # AutoGraph), SIGUSR2 by faulthandler when the worker is stuck in native code.
        for sig in (signal.SIGUSR1, signal.SIGUSR2):
            if not self.alive or self._proc is None:
                break
            before = len(self._log_text())
            with contextlib.suppress(OSError):
                os.kill(self._proc.pid, sig)
            for _ in range(10):
                time.sleep(0.05)
                if len(self._log_text()) > before:
                    break
            dump = self._log_text()[before:]
            line = self._user_line(dump, path)
            if dump:
                break
        self._kill()
        self.start()  # a fresh worker starts importing TensorFlow right away
        where = f" at {path}:{line}" if line and path else ""
        return AgxError("timeout", f"timed out after {limit:g} s while {phase}{where}; the "
                        "TensorFlow worker was restarted (raise --timeout if the function is "
                        "just slow).", line=line, exit_code=1)

    def _death(self, phase: str, path: str | None = None) -> AgxError:
        code = None
        if self._proc is not None:
            try:
                code = self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._kill()
                code = self._proc.returncode
        text = self._log_text()
        line = self._user_line(text, path)
        self._proc, self._ready = None, False
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            how = f"exited with signal {-code} ({name}{_SIGNAL_HINTS.get(name, '')})"
        else:
            how = f"exited with status {code}"
        where = f" at {path}:{line}" if line and path else ""
        return AgxError("worker-died", f"the TensorFlow worker {how} while {phase}{where}; "
                        "it will be restarted for the next request.", line=line, exit_code=1)


_shared: Worker | None = None


def shared_worker(timeout: float = DEFAULT_TIMEOUT) -> Worker:
    """The process-wide worker, kept warm between requests (closed at exit)."""
    global _shared
    if _shared is None:
        _shared = Worker(timeout)
        atexit.register(_shared.close)
    _shared.timeout = timeout
    return _shared
