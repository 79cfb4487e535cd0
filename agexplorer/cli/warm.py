"""The warm explorer: a process of the background worker that has imported Textual and the
explorer once, and opens each ``agexplorer [PATH]`` in a copy of itself (``os.fork``), in the
terminal the command hands it (``agexplorer.cli.handoff`` is the command's side).

Started by the background worker (``agexplorer.daemon.warm``) for its own interpreter, with the
socket it listens on already bound; it ends with the background worker. It never imports
TensorFlow: the explorer it opens forks its TensorFlow worker from the background worker's
warm zygote, as an explorer started cold does when one runs.

For each connection (same user only; the folder is private too) it reads the command's
arguments, environment, folder and umask with its terminal's three descriptors (SCM_RIGHTS),
refuses a command whose interpreter, installation or Textual-relevant environment is not its
own (the command then opens the explorer itself), and forks a *shim*, which forks the
explorer and stays its parent, as the TensorFlow zygote does for workers:

- the explorer runs ``agexplorer.cli.main`` as the command would have, in a session of its
  own, with the command's terminal as its stdin, stdout and stderr, its environment, folder
  and umask, and no folder of the command's on ``sys.path``;
- the shim sends the explorer's pid, then its exit status once it ended;
- a command that goes away (killed) closes the connection: the shim sends the explorer
  SIGHUP (and SIGCONT: it may be suspended), which it takes as a closed terminal (its
  unsaved edits are kept); so does the shim's own end, and the terminal's hang-up (the
  explorer has no controlling terminal, so the kernel sends it no SIGHUP).
"""

from __future__ import annotations

import functools
import io
import os
import signal
import socket
import sys
from collections.abc import Mapping
from typing import Any

from agexplorer.worker.zygote_process import run_to_end, serve

# Read by Textual and Python when they are imported or start, so an explorer forked here
# would not see the command's own values: a command whose values differ opens cold.
_STARTUP_PREFIXES = ("TEXTUAL_", "LC_")
_STARTUP_NAMES = ("ESCDELAY", "LANG", "LANGUAGE")
_PRELOADED = ("agexplorer.cli", "agexplorer.cli.explorer", "agexplorer.tui.app",
              "agexplorer.tui.workspace", "textual.drivers.linux_driver")


def startup_environment(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """The variables read when Textual and Python start, sorted."""
    return sorted((k, v) for k, v in environ.items()
                  if k.startswith(_STARTUP_PREFIXES) or k in _STARTUP_NAMES)


def main() -> None:
    """``python -c 'from agexplorer.cli.warm import main; main()' FD PARENT``: import the
    explorer, then open one for each connection to the listening socket ``FD`` until the
    process ``PARENT`` (the background worker) ends."""
    from agexplorer.worker.confine import die_with_parent

    listener = socket.socket(fileno=int(sys.argv[1]))
    die_with_parent(int(sys.argv[2]))
    # As the installed `agexplorer` command runs: no folder of the user's on sys.path.
    sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # What the explorer imports before its first frame and after it (its panes and panels);
    # nothing here starts a thread or opens a terminal.
    import importlib

    from agexplorer.tui import wiring  # the app's parts, made just after its first frame

    for name in (*_PRELOADED, *wiring.MODULES):
        importlib.import_module(name)

    own = (os.path.abspath(sys.executable), os.path.abspath(sys.prefix),
           startup_environment(os.environ))

    def refusal(header: dict[str, Any], fds: list[int]) -> str:
        if len(fds) != 3:
            return "no terminal came with the request"
        if (os.path.abspath(header["executable"]), os.path.abspath(header["prefix"])) != own[:2]:
            return "another interpreter or installation"
        differ = set(own[2]) ^ set(startup_environment(header["env"]))
        return "other values of " + ", ".join(sorted({k for k, _ in differ})) if differ else ""

    # a command that was killed: its explorer is sent SIGHUP, as if its terminal had closed
    serve(listener, refusal, _become_explorer, hang_up=True)


def _become_explorer(conn: socket.socket, header: dict[str, Any], fds: list[int]) -> None:
    run_to_end(functools.partial(_explorer, conn, header, fds), join_threads=True)


def _explorer(conn: socket.socket, header: dict[str, Any], fds: list[int]) -> int:
    from agexplorer.worker.confine import hang_up_with_parent

    shim = os.getppid()
    os.setsid()  # no controlling terminal: the command's terminal is used, not taken
    conn.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(header["cwd"])
    os.umask(int(header["umask"]))
    os.environ.clear()
    os.environ.update(header["env"])
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    # The shim killed: nothing follows this explorer for its command any more (which resets
    # the terminal and ends), so it ends as for a closed terminal, its unsaved edits kept.
    hang_up_with_parent(shim)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _standard_streams(header.get("encoding") or "utf-8", header.get("errors") or "strict")
    import random
    import tempfile

    tempfile.tempdir = None  # the command's TMPDIR, read anew
    random.seed()
    sys.argv = ["agexplorer", *header["argv"]]
    from agexplorer.cli import main as cli_main
    from agexplorer.daemon import warm

    warm.opened_warm = True  # it never hands off again, and its Log says so
    return cli_main(list(header["argv"]))


def _standard_streams(encoding: str, errors: str) -> None:
    """stdin, stdout and stderr anew on the terminal's descriptors, as the command had them."""
    made = []
    for fd, mode in ((0, "rb"), (1, "wb"), (2, "wb")):
        raw = io.FileIO(fd, mode, closefd=False)
        buffered: Any = io.BufferedReader(raw) if mode == "rb" else io.BufferedWriter(raw)
        made.append(io.TextIOWrapper(buffered, encoding=encoding,
                                     errors="backslashreplace" if fd == 2 else errors,
                                     line_buffering=(fd != 0 and raw.isatty()) or fd == 2))
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]
