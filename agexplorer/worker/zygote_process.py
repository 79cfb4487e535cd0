"""The zygote's own process (see ``agexplorer.worker.zygote``): it imports TensorFlow once,
then forks a shim and a worker for each request; the worker runs ``server.main`` as a started
worker would."""

from __future__ import annotations

import array
import contextlib
import functools
import json
import os
import select
import signal
import socket
import struct
import sys
import tempfile
from collections.abc import Callable
from typing import Any, NoReturn

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

    def refusal(header: dict[str, Any], fds: list[int]) -> str:
        if key(header["env"], header["executable"], header.get("prefix", "")) != own \
                or len(fds) != 2:
            return "another interpreter or environment"
        return ""

    serve(listener, refusal, _become_worker, hang_up=False)


Refusal = Callable[[dict[str, Any], list[int]], str]
Become = Callable[[socket.socket, dict[str, Any], list[int]], None]


def serve(listener: socket.socket, refusal: Refusal, become: Become, hang_up: bool) -> None:
    """For ever, for each connection to ``listener`` (of this user only): read its header
    and descriptors, refuse it with the reason ``refusal`` gives (empty: taken), else fork a
    shim (``fork_shim``) whose child runs ``become``. A bad request ends its connection, not
    this process. Shims are reaped by the kernel: a zygote never waits for its children."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        try:
            conn, _ = listener.accept()
        except InterruptedError:
            continue
        fds: list[int] = []
        try:
            if not same_user(conn):
                continue
            header = receive_header(conn, fds)
            why = refusal(header, fds)
            if why:
                conn.sendall(json.dumps({"refused": why}).encode() + b"\n")
                continue
            fork_shim(conn, listener, fds, functools.partial(become, conn, header, fds), hang_up)
        except Exception:  # noqa: BLE001 - a bad request ends that connection, not the zygote
            pass
        finally:
            conn.close()
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)


def receive_header(conn: socket.socket, fds: list[int]) -> dict[str, Any]:
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


def same_user(conn: socket.socket) -> bool:
    """Whether the process at the other end runs as this one's user (the folder is private
    too: this is the second lock)."""
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    except (OSError, AttributeError):
        return False
    return uid == os.getuid()


def fork_shim(conn: socket.socket, listener: socket.socket, fds: list[int],
              become: Callable[[], None], hang_up: bool) -> None:
    """Fork the *shim* for the connection ``conn``: it forks the child, which runs
    ``become`` (it ends the process itself: ``run_to_end``), and stays its parent; it sends
    the child's pid on the connection, then its exit status (as ``Popen.returncode`` gives
    it) once it ends, and exits. A client that goes away closes the connection: with
    ``hang_up`` the child is sent SIGHUP and SIGCONT (as for a closed terminal) and the
    shim waits on;
    without, the shim exits and the child dies with it (its parent-death signal)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork() != 0:
        return
    try:
        listener.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # this one waits for its child
        pid = os.fork()
        if pid == 0:
            become()
        for fd in fds:
            os.close(fd)
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        pidfd = os.pidfd_open(pid)
        watched = [pidfd, conn.fileno()]
        while True:
            ready, _, _ = select.select(watched, [], [])
            if pidfd in ready:
                _, status = os.waitpid(pid, 0)
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)})
                                 .encode() + b"\n")
                return
            try:
                gone = not conn.recv(4096)
            except OSError:
                gone = True
            if gone and not hang_up:
                return
            if gone:
                # as the kernel does for a closed terminal: a child stopped (suspended) would
                # keep SIGHUP pending for ever, so it is continued too
                for sig in (signal.SIGHUP, signal.SIGCONT):
                    with contextlib.suppress(OSError):
                        signal.pidfd_send_signal(pidfd, sig)
                watched = [pidfd]
    finally:
        os._exit(0)


def run_to_end(body: Callable[[], object], join_threads: bool = False) -> NoReturn:
    """Run ``body`` in a forked child, then end the process as the interpreter would have
    ended it: (``join_threads``: after its threads that are not daemons) its exit functions,
    its buffers, and the status: ``body``'s int, SystemExit's code (a message printed, 1),
    or 1 with the traceback printed for any other exception."""
    import atexit
    import threading

    code: Any = 1
    try:
        result = body()
        code = result if isinstance(result, int) else 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001 - what the started process would print, and its status
        import traceback

        traceback.print_exc()
        code = 1
    if join_threads:
        with contextlib.suppress(BaseException):
            for thread in threading.enumerate():
                if thread is not threading.current_thread() and not thread.daemon:
                    thread.join(timeout=30)
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    if code is not None and not isinstance(code, int):
        with contextlib.suppress(BaseException):
            print(code, file=sys.stderr)
        code = 1
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code or 0)


def _become_worker(conn: socket.socket, header: dict[str, Any], fds: list[int]) -> None:
    run_to_end(functools.partial(_worker, conn, header, fds))


def _worker(conn: socket.socket, header: dict[str, Any], fds: list[int]) -> None:
    shim = os.getppid()
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
    from agexplorer.worker.server import main as serve_requests

    serve_requests()
