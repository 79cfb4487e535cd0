"""The command's side of the warm explorer (``agexplorer.cli.warm``): while a background worker
runs for this interpreter, ``agexplorer [PATH]`` hands its terminal to the background worker's
warm explorer process, which opens the explorer there with Textual and the explorer imported
already (and its TensorFlow worker forked from the warm zygote), then waits for it to end and
ends with its exit status, as emacsclient does for a running Emacs.

What the command still does while the explorer runs: it passes on the signals it gets
(a resized window, a closed terminal, SIGTERM, SIGINT, SIGTSTP and SIGCONT: the explorer
suspended gives the terminal back, then the command stops) to the explorer, which has no
controlling terminal of its own; and if the explorer dies without restoring the terminal
(killed), it restores it and says so in one sentence. Killed itself, its connection closes
and the explorer is sent SIGHUP, as for a closed terminal (unsaved edits are kept).

Anywhere this cannot apply the command opens the explorer itself, as before: the background
worker off (``--no-daemon``, ``AGX_NO_DAEMON``) or not running, no terminal, a terminal the
command does not hold in the foreground, a served explorer (``--served``), or a warm explorer
that refuses (another interpreter, or other values of the variables Textual reads on import).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
from typing import Any

FIRST_ANSWER = 5.0  # seconds the warm explorer has to take the terminal (it forks twice)
# What an explorer that died without restoring the terminal may have left switched on: the
# alternate screen, a hidden cursor, mouse reports, bracketed paste, focus reports and the
# kitty keyboard protocol.
_RESET = ("\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l"
          "\x1b[?1004l\x1b[<u")
_FORWARDED = (signal.SIGWINCH, signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGQUIT,
              signal.SIGCONT)
SUSPEND_WAIT = 2.0  # seconds a suspended explorer has to give the terminal back and stop


def hand_off(argv: list[str]) -> int | None:
    """Open the explorer for ``argv`` in the background worker's warm explorer, in this
    terminal, and return its exit status; None where that cannot apply (the caller opens the
    explorer itself, as without a background worker)."""
    if "--no-daemon" in argv or "--served" in argv or not _own_terminal():
        return None
    # Set by the warm explorer (agexplorer/cli/warm.py), which imported it; not imported
    # here otherwise: the daemon's modules are not a cold first frame's.
    warm = sys.modules.get("agexplorer.daemon.warm")
    if warm is not None and warm.opened_warm:
        return None
    conn = _connect()
    if conn is None:
        return None
    with conn:
        pid = _start(conn, argv)
        if pid is None:
            return None
        return _follow(conn, pid)


def _own_terminal() -> bool:
    """stdin and stdout are a terminal this command holds in the foreground (a command started
    in the background with ``&`` opens cold, and is stopped by its terminal as before)."""
    try:
        if not (os.isatty(0) and os.isatty(1)):
            return False
    except OSError:
        return False
    try:
        return os.tcgetpgrp(0) == os.getpgrp()
    except OSError:  # not this process's controlling terminal: no job control to respect
        return True


def _connect() -> socket.socket | None:
    from agexplorer.daemon.place import connect_unix, disabled, place_for, runtime_path

    if disabled():
        return None
    try:  # cheap first: is any warm explorer listening in the folder at all?
        if not any(name.endswith(".explorer.sock") for name in os.listdir(runtime_path())):
            return None
        path = place_for(None).explorer  # checks that the folder is private and ours
        return connect_unix(path)
    except Exception:  # noqa: BLE001 - no warm explorer to reach: the command opens its own
        return None


def _start(conn: socket.socket, argv: list[str]) -> int | None:
    """Send the request with the terminal; the explorer's pid, or None when refused."""
    try:
        cwd = os.getcwd()
    except OSError:  # a folder that was deleted: the explorer opened here says so
        return None
    umask = os.umask(0o022)
    os.umask(umask)
    header = {"argv": argv, "env": dict(os.environ), "cwd": cwd, "umask": umask,
              "executable": sys.executable, "prefix": sys.prefix,
              "encoding": getattr(sys.stdout, "encoding", None),
              "errors": getattr(sys.stdout, "errors", None)}
    import json  # (here: a cold start, with no background worker, reads no JSON)

    try:
        conn.settimeout(FIRST_ANSWER)
        socket.send_fds(conn, [json.dumps(header).encode() + b"\n"], [0, 1, 2])
        answer = _line(conn)
    except (OSError, ValueError):
        return None
    if not isinstance(answer, dict) or not isinstance(answer.get("pid"), int):
        if isinstance(answer, dict) and isinstance(answer.get("refused"), str):
            from agexplorer.daemon import warm

            warm.refused_why = answer["refused"]  # for the explorer's Log
        return None  # refused, or nothing readable: opened cold
    return answer["pid"]


def _line(conn: socket.socket, buffer: bytearray | None = None) -> Any:
    """One JSON line from the connection (None at its end)."""
    data = bytearray() if buffer is None else buffer
    while b"\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None
        data += chunk
    line, _, rest = bytes(data).partition(b"\n")
    data[:] = rest
    import json

    return json.loads(line)


def _follow(conn: socket.socket, pid: int) -> int:
    """Wait for the explorer to end, passing on this command's signals; its exit status."""
    import termios

    saved = None
    with contextlib.suppress(OSError, termios.error):
        saved = termios.tcgetattr(0)
    try:
        pidfd = os.pidfd_open(pid)  # its shim has not reaped it yet: the pid is still its
    except OSError:
        pidfd = None

    def forward(sig: int, _frame: Any) -> None:
        if pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, sig)

    def suspend(sig: int, frame: Any) -> None:
        """SIGTSTP (``kill -TSTP``; Ctrl-Z is a key to the explorer): it gives the terminal
        back and stops, as Textual does on SIGTSTP; then this command stops, and the shell
        has its terminal. ``fg`` continues this command, which continues the explorer."""
        forward(sig, frame)
        _stopped(pid, SUSPEND_WAIT)
        os.kill(os.getpid(), signal.SIGSTOP)

    before = {sig: signal.signal(sig, forward) for sig in _FORWARDED}
    before[signal.SIGTSTP] = signal.signal(signal.SIGTSTP, suspend)
    conn.settimeout(None)
    buffer = bytearray()
    try:
        while True:
            answer = _line(conn, buffer)
            if answer is None or "exit" in answer:
                break
    except (OSError, ValueError):
        answer = None
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if pidfd is not None:
            os.close(pidfd)
    code = answer.get("exit") if isinstance(answer, dict) else None
    if isinstance(code, int) and code >= 0:
        return code
    _restore(saved)
    if isinstance(code, int):
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        print(f"agexplorer: the explorer was ended by {name}; the terminal was reset.",
              file=sys.stderr)
        return 128 - code
    print("agexplorer: the background worker's explorer could not be followed to its end; the "
          "terminal was reset (run with --no-daemon to open one of this command's own).",
          file=sys.stderr)
    return 1


def _stopped(pid: int, seconds: float) -> bool:
    """Wait until the process ``pid`` is stopped (or gone), for at most ``seconds``."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rpartition(")")[2].split()[0] in "TtZX":
                    return True
        except OSError:
            return True
        time.sleep(0.01)
    return False


def _restore(saved: list[Any] | None) -> None:
    """The terminal as it was before the explorer took it."""
    import termios

    with contextlib.suppress(OSError, termios.error):
        if saved is not None:
            termios.tcsetattr(0, termios.TCSANOW, saved)
    with contextlib.suppress(OSError):
        os.write(1, _RESET.encode())
