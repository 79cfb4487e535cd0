"""The zygote's own process (see ``agexplorer.worker.zygote``): it imports TensorFlow once,
then forks a shim and a worker for each request; the worker runs ``server.main`` as a started
worker would."""

from __future__ import annotations

import array
import contextlib
import json
import os
import select
import signal
import socket
import struct
import sys
import tempfile
from typing import Any

from agexplorer.worker.zygote import key

_MAX_HEADER = 1 << 20


def main() -> None:
    """``python -c 'from agexplorer.worker.zygote_process import main; main()' FD PARENT``:
    import TensorFlow, then fork a worker for each connection to the listening socket ``FD``
    (bound by the starter, so clients that come during the import wait in its backlog) until
    the parent (the process that started it) ends."""
    from agexplorer.worker.confine import die_with_parent

    listener = socket.socket(fileno=int(sys.argv[1]))
    die_with_parent(int(sys.argv[2]))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)  # TensorFlow's chatter on import goes nowhere: workers have their logs
    os.dup2(null, 2)
    # What a worker imports before its Hello, imported once here; nothing here starts
    # TensorFlow's runtime (no op runs, no device is listed).
    import agexplorer.worker.server  # noqa: F401
    from agexplorer.engine.tfenv import import_tf

    import_tf()
    own = key(os.environ, sys.executable, sys.prefix)
    # Shims are reaped by the kernel: the zygote never waits for its children.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        try:
            conn, _ = listener.accept()
        except InterruptedError:
            continue
        try:
            _serve_one(conn, listener, own)
        except Exception:  # noqa: BLE001 - a bad request ends that connection, not the zygote
            pass
        finally:
            conn.close()


def _receive(conn: socket.socket, fds: list[int]) -> dict[str, Any]:
    """The request's header; the descriptors that came with it are added to ``fds`` (the
    caller closes them, also when the header is unreadable)."""
    received = array.array("i")
    data = b""
    conn.settimeout(10)
    while not data.endswith(b"\n"):
        chunk, ancillary, _flags, _addr = conn.recvmsg(65536, socket.CMSG_LEN(16 * received.itemsize))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                received.frombytes(payload[:len(payload) - len(payload) % received.itemsize])
        fds.extend(received)
        del received[:]
        if not chunk or len(data) > _MAX_HEADER:
            break
        data += chunk
    conn.settimeout(None)
    return json.loads(data)


def _same_user(conn: socket.socket) -> bool:
    """Whether the process at the other end runs as this one's user (the folder is private
    too: this is the second lock)."""
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    except (OSError, AttributeError):
        return False
    return uid == os.getuid()


def _serve_one(conn: socket.socket, listener: socket.socket, own: str) -> None:
    fds: list[int] = []
    try:
        if not _same_user(conn):
            return
        header = _receive(conn, fds)
        if key(header["env"], header["executable"], header.get("prefix", "")) != own \
                or len(fds) != 2:
            conn.sendall(json.dumps({"refused": "another interpreter or environment"}).encode()
                         + b"\n")
            return
        if os.fork() == 0:  # the shim
            try:
                listener.close()
                _shim(conn, header, fds)
            finally:
                os._exit(0)
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _shim(conn: socket.socket, header: dict[str, Any], fds: list[int]) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # this one waits for its worker
    shim = os.getpid()
    pid = os.fork()
    if pid == 0:
        _become_worker(conn, header, fds, shim)
    for fd in fds:
        os.close(fd)
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    pidfd = os.pidfd_open(pid)
    while True:
        ready, _, _ = select.select([pidfd, conn.fileno()], [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode()
                             + b"\n")
            return
        if not conn.recv(4096):  # the client is gone: the worker dies with this shim
            return


def _become_worker(conn: socket.socket, header: dict[str, Any], fds: list[int],
                   shim: int) -> None:
    code: Any = 1
    try:
        os.setsid()
        conn.close()
        sock_fd, log_fd = fds
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        for fd in (null, log_fd):
            if fd > 2:
                os.close(fd)
        os.chdir(header["cwd"])
        os.environ.clear()
        os.environ.update(header["env"])
        tempfile.tempdir = None  # the worker's own TMPDIR, read anew
        if "numpy" in sys.modules:  # a started worker's NumPy is seeded afresh
            sys.modules["numpy"].random.seed()
        sys.argv = ["-c", str(sock_fd), str(shim)]
        from agexplorer.worker.server import main as serve

        serve()
        code = 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001 - what a started worker would print, and its status
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            import atexit

            atexit._run_exitfuncs()
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code if isinstance(code, int) else (0 if code is None else 1))
