"""Where a background worker listens, and which one a command may use.

The folder is ``$XDG_RUNTIME_DIR/agexplorer`` (the user's own runtime folder, mode 0700 by
the system), else ``<state home>/run``; either is made with mode 0700 and refused when it is
not a real folder of this user that only this user can enter. In it each background worker
has ``<key>.sock``, ``<key>.lock`` (held while it runs) and ``<key>.log``. The key tells apart
what must never share a worker: the interpreter the worker runs under (``--python``), this
agexplorer build (its version and its files' times, so an edited checkout never talks to an
old worker), and the environment variables that change what TensorFlow, Keras or the user's
imports do.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
from dataclasses import dataclass

from agexplorer.model.errors import AgxError
from agexplorer.worker.environment import relevant_environment

IDLE_DEFAULT = 600.0  # seconds without a request before a background worker stops itself
SOCKET_PATH_MAX = 100  # bytes: past about this, a Unix socket's path is refused


@dataclass(frozen=True)
class Place:
    """One background worker's files."""

    folder: str
    key: str

    @property
    def socket(self) -> str:
        return os.path.join(self.folder, self.key + ".sock")

    @property
    def lock(self) -> str:
        return os.path.join(self.folder, self.key + ".lock")

    @property
    def log(self) -> str:
        return os.path.join(self.folder, self.key + ".log")

    @property
    def explorer(self) -> str:
        """The warm explorer's socket (agexplorer.cli.warm), for this interpreter's own."""
        return os.path.join(self.folder, self.key + ".explorer.sock")


def listen_unix(path: str) -> tuple[socket.socket, int]:
    """A socket listening at ``path`` (mode 0600; one left by a dead process is replaced: the
    caller holds the lock), and its inode. Bound by its name in the folder, which must be
    this process's current one: a socket's full path may not exceed about 100 bytes, and a
    state folder's can."""
    name = os.path.basename(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(name)
    finally:
        os.umask(old)
    listener.listen(16)
    return listener, os.stat(name).st_ino


def connect_unix(path: str) -> socket.socket:
    """A connection to the Unix socket ``path`` (OSError when none listens), reached through
    its open folder when the path is too long for a socket's address."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    folder = None
    try:
        if len(os.fsencode(path)) > SOCKET_PATH_MAX:
            folder = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
            path = f"/proc/self/fd/{folder}/{os.path.basename(path)}"
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    finally:
        if folder is not None:
            os.close(folder)
    return sock


def runtime_path(environ: dict[str, str] | None = None) -> str:
    """Where the private folder the sockets live in is (neither made nor checked)."""
    from agexplorer.state.session import state_home

    env = os.environ if environ is None else environ
    base = env.get("XDG_RUNTIME_DIR")
    return os.path.join(base, "agexplorer") if base else os.path.join(state_home(), "run")


def runtime_folder(environ: dict[str, str] | None = None) -> str:
    """The private folder the sockets live in (made, mode 0700), checked: AgxError when it is
    a link, another user's, or open to others."""
    folder = runtime_path(environ)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError as exc:
        raise AgxError("daemon-folder", f"the background worker's folder {folder} could not be "
                       f"made ({exc.strerror or exc})", advice="pass --no-daemon, or fix the "
                       "folder's permissions.", exit_code=1) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise AgxError("daemon-folder", f"the background worker's folder {folder} is not a "
                       "private folder of yours (a link, another user's, or open to others), "
                       "so no background worker is used there", advice="remove it, or pass "
                       "--no-daemon.", exit_code=1)
    return folder


def build_stamp() -> str:
    """This agexplorer build: its version and the newest time of its Python files."""
    import agexplorer

    root = os.path.dirname(os.path.abspath(agexplorer.__file__))
    newest = 0
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                try:
                    newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
                except OSError:
                    continue
    return f"{agexplorer.__version__}:{root}:{newest}"


def place_for(executable: str | None, environ: dict[str, str] | None = None) -> Place:
    """The background worker for the interpreter ``executable`` (None: this one)."""
    import hashlib  # here: OpenSSL's load (~6 ms) is not on the explorer's way to its frame

    digest = hashlib.sha256(repr((executable or sys.executable, sys.executable, build_stamp(),
                                  relevant_environment(environ))).encode()).hexdigest()
    return Place(runtime_folder(environ), "worker-" + digest[:20])


def idle_seconds(flag: float | None = None, environ: dict[str, str] | None = None) -> float:
    """How long a background worker waits for a request before it stops: ``--daemon-idle``,
    else ``AGX_DAEMON_IDLE``, else 10 minutes; AgxError for a value that is not a positive
    number of seconds."""
    env = os.environ if environ is None else environ
    if flag is not None:
        value, named = str(flag), "--daemon-idle"
    else:
        value, named = env.get("AGX_DAEMON_IDLE", ""), "AGX_DAEMON_IDLE"
        if not value:
            return IDLE_DEFAULT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise AgxError("bad-arguments", f"{named} {value}: not a number of seconds above 0",
                       advice="pass e.g. 600 (ten minutes).", exit_code=2)
    return seconds


def disabled(environ: dict[str, str] | None = None) -> bool:
    """``AGX_NO_DAEMON=1``: commands start their own worker, as without a background one."""
    env = os.environ if environ is None else environ
    return env.get("AGX_NO_DAEMON", "").strip().lower() not in ("", "0", "no", "false")
