"""A warm zygote: one process that has imported TensorFlow and forks workers from it.

Importing TensorFlow takes about 5 s of CPU; a worker forked from a process that already did
is ready in about 0.1 s. TensorFlow's runtime (its thread pools, its eager context) starts
on first use, not on import, so a fork made after the import and before any use is sound.

The zygote listens on a Unix socket in a private folder (mode 0700) named by ``AGX_ZYGOTE``,
bound by the process that starts it (``Zygote``), so a client that comes during the import
waits for it instead of being refused.
A client (``Worker.start``) sends its environment, folder and interpreter with the worker's
socket and log as descriptors (SCM_RIGHTS). The zygote refuses a request whose interpreter or
relevant environment (``worker.environment``) is not its own (the client then starts a worker
the usual way), else forks a *shim*, which forks the worker and stays its parent:

- the worker runs ``server.main`` as a started one would: a session of its own, the client's
  environment, folder and descriptors, dying with its parent (the shim);
- the shim sends the worker's pid on the connection, then its exit status (as
  ``Popen.returncode`` gives it) once it ends, and exits;
- a client that goes away closes the connection: the shim exits, and the worker is ended by
  the kernel's parent-death signal, as it would be on its client's death;
- the client signals the worker through a pidfd opened while the shim still holds it, so a
  reused pid is never hit (``ForkedProcess``).

The test suite starts one zygote per run (its test processes and the commands they run
inherit ``AGX_ZYGOTE``); the tests that find a worker by the environment it was started
with, or are about how one starts, turn it off and see the start users get.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from agexplorer.worker.environment import relevant_environment

ENV_VAR = "AGX_ZYGOTE"
# Set by each worker on start: the per-worker folder, never part of the zygote's key.
_PER_WORKER = ("TMPDIR", "TEMP", "TMP", "AGX_WORKER_TMPDIR")
FIRST_ANSWER = 120.0  # seconds: TensorFlow's import on a loaded machine, once per zygote


def key(environ: dict[str, str] | os._Environ[str], executable: str, prefix: str) -> str:
    """What a worker forked from a zygote shares with it: the interpreter as named (not its
    real path: two virtual environments link one interpreter, each with its own packages),
    its installation (``sys.prefix``) and the relevant variables."""
    return json.dumps([os.path.abspath(executable), os.path.abspath(prefix),
                       relevant_environment(environ, ignore=_PER_WORKER)])


# -- the client's side -------------------------------------------------------------------------
class ForkedProcess:
    """A worker forked by a zygote, with the part of ``subprocess.Popen`` the client uses:
    ``pid``, ``returncode``, ``poll``, ``wait``, ``send_signal``, ``terminate``, ``kill``."""

    def __init__(self, pid: int, conn: socket.socket, args: list[str],
                 buffered: bytes = b"") -> None:
        self.pid = pid
        self.args = args
        self.returncode: int | None = None
        self._conn = conn
        self._buffer = buffered  # what the shim sent after the pid (its exit, if it came)
        self._pidfd: int | None = None
        with contextlib.suppress(OSError):  # the shim holds it: the pid is still the worker's
            self._pidfd = os.pidfd_open(pid)

    def _read(self, timeout: float | None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._take_exit():
            return
        while self.returncode is None:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                ready, _, _ = select.select([self._conn], [], [], left)
            except (OSError, ValueError):
                # Closed meanwhile by another thread that read the exit (a test's poll beside
                # the client's wait): its status stands; the socket has nothing more to say.
                if self.returncode is None:
                    self._ended(-signal.SIGKILL)
                return
            if not ready:
                return
            try:
                chunk = self._conn.recv(4096)
            except OSError:
                chunk = b""
            if not chunk:  # the shim is gone without a word: its worker died with it
                self._ended(-signal.SIGKILL)
                return
            self._buffer += chunk
            if self._take_exit():
                return

    def _take_exit(self) -> bool:
        """Whether the buffered lines hold the shim's exit status (then ended with it)."""
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if isinstance(message, dict) and "exit" in message:
                    self._ended(int(message["exit"]))
                    return True
        return False

    def _ended(self, code: int) -> None:
        if self.returncode is None:  # (the first status read stands)
            self.returncode = code
        with contextlib.suppress(OSError):
            self._conn.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None

    def poll(self) -> int | None:
        self._read(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._read(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, OSError):
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, sig)
            else:
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            if self._pidfd is not None:
                os.close(self._pidfd)
            self._conn.close()


def fork_worker(env: dict[str, str], sock_fd: int, log_fd: int, args: list[str],
                path: str | None = None) -> ForkedProcess | None:
    """A worker forked by the zygote at ``path`` (else the one ``AGX_ZYGOTE`` names), in this
    process's folder with ``env`` and these descriptors; None where there is none, or it
    refused or failed (the caller starts one the usual way)."""
    path = path or os.environ.get(ENV_VAR)
    if not path or not hasattr(os, "pidfd_open"):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(10)
        conn.connect(path)
        header = json.dumps({"env": env, "cwd": os.getcwd(), "executable": sys.executable,
                             "prefix": sys.prefix})
        conn.sendmsg([header.encode() + b"\n"],
                     [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [sock_fd, log_fd]))])
        conn.settimeout(FIRST_ANSWER)  # a zygote still importing TensorFlow answers after it
        received = b""
        while b"\n" not in received:
            chunk = conn.recv(4096)
            if not chunk:
                raise OSError("the zygote closed the connection")
            received += chunk
        # the pid's line; a worker that ended at once may have its exit status behind it
        line, rest = received.split(b"\n", 1)
        answer = json.loads(line)
        if "pid" not in answer:
            conn.close()
            return None
        conn.settimeout(None)
        return ForkedProcess(int(answer["pid"]), conn, args, rest)
    except (OSError, ValueError):
        conn.close()
        return None


class Zygote:
    """A zygote started by this process, which it dies with; ``path`` names it to clients
    (``AGX_ZYGOTE``). Its socket listens at once: a client that comes while it imports
    TensorFlow waits for it (``fork_worker``'s first answer)."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="agx-zygote-")  # mode 0700: ours alone
        self.path = os.path.join(self.folder, "zygote.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
            listener.listen(64)
            self.proc = subprocess.Popen(
                [sys.executable, "-c", "from agexplorer.worker.zygote_process import main; main()",
                 str(listener.fileno()), str(os.getpid())],
                pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True)
        finally:
            listener.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
