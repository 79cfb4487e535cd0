"""Where the explorer keeps its files, and the private session of an explorer `serve` started.

The terminal explorer keeps its recovery copies and scratch copies under
``$XDG_STATE_HOME/agexplorer`` (default ``~/.local/state/agexplorer``). An explorer that
`agexplorer serve` starts for a browser tab runs with ``--served`` and keeps them in a
folder of its own instead, ``agexplorer-session-<pid>-XXXXXXXX`` in the temp folder (mode
0700): made when the session starts, removed when it ends (a folder whose explorer was killed
is removed by the next served explorer to start). The files it opens are copies made in that
folder, and a save (ctrl+s) or an SVG of the screen (F9) reaches the student's browser as a
download; nothing one session keeps, saves or restores is seen by another.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from typing import Literal

from agexplorer.source.files import SourceFile, coding_of, encode_source

SESSION_PREFIX = "agexplorer-session-"  # in the temp folder: one per served explorer
MAX_SIBLINGS = 200  # a file's neighbours copied beside it (for its imports), at most
MIME = "text/x-python"

_served: ServedSession | None = None  # this process's served session, while it runs


StateKind = Literal["recovery", "scratch", "svg"]  # the explorer's kinds of kept files


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (the workers' check, from the light module that holds
    it: the explorer asks it before its first frame, for the scratch sessions it prunes)."""
    from agexplorer.worker.descendants import pid_alive as alive

    return alive(pid)


def state_dir(kind: StateKind) -> str:
    """The one folder of ``kind`` under ``state_home()``: recovery copies, scratch copies,
    SVGs that the current folder could not take."""
    return os.path.join(state_home(), kind)


def state_home() -> str:
    """The folder the explorer keeps its files in: the served session's own while one runs,
    else ``$XDG_STATE_HOME/agexplorer`` (read from the environment at each call)."""
    if _served is not None:
        return _served.folder
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "state")
    return os.path.join(base, "agexplorer")


def served() -> ServedSession | None:
    """The served session this explorer runs in, or None in a terminal."""
    return _served


def owned_folder(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a real folder (not a link) of this user."""
    try:
        return entry.is_dir(follow_symlinks=False) and \
            entry.stat(follow_symlinks=False).st_uid == os.getuid()
    except OSError:
        return False


class ServedSession:
    """The private folder of one served explorer: ``recovery/`` and ``scratch/`` (as under
    the state folder), ``files/`` (the copies it opens) and ``downloads/`` (where a delivery
    lands when no browser is there to take it, e.g. in tests)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    @property
    def downloads(self) -> str:
        """Where Textual writes a delivered file when the app is not in a browser."""
        return os.path.join(self.folder, "downloads")

    def holds(self, path: str) -> bool:
        """Whether ``path`` lies inside this session's folder (a save may write it)."""
        real, mine = os.path.realpath(path), os.path.realpath(self.folder)
        return os.path.commonpath([real, mine]) == mine

    def copies(self, paths: list[str], folder: str | None = None) -> list[str]:
        """Copy what the explorer opens into ``files/`` and return the copies of ``paths``.

        ``folder``: the folder opened (its Python files are ``paths``, their layout kept);
        without it, ``paths`` is one file, copied with the ``.py`` files beside it so that
        its imports of them still work.
        """
        root = os.path.abspath(folder or os.path.dirname(os.path.abspath(paths[0])))
        sources = [os.path.abspath(p) for p in paths]
        if folder is None:
            with contextlib.suppress(OSError):
                names = sorted(n for n in os.listdir(root) if n.endswith(".py"))
                if len(names) <= MAX_SIBLINGS:
                    sources = [os.path.join(root, n) for n in names] + sources
        dest = os.path.join(self.folder, "files", os.path.basename(root) or "files")
        for source in dict.fromkeys(sources):
            if not os.path.isfile(source):  # a FIFO or a device beside the file: not copied
                continue
            target = os.path.join(dest, os.path.relpath(source, root))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        return [os.path.join(dest, os.path.relpath(p, root)) for p in sources[-len(paths):]]

    def deliver(self, send: Callable[..., object], path: str) -> None:
        """Send the file at ``path`` to the browser as a download (its bytes as written)
        through ``send`` (the app's ``deliver_binary``)."""
        send(path, save_directory=self.downloads, save_filename=os.path.basename(path),
             mime_type=MIME)

    def deliver_buffer(self, send: Callable[..., object], path: str, text: str,
                       like: SourceFile | None) -> None:
        """Send ``text`` to the browser as ``path`` would hold it once saved (its coding
        line's encoding, ``like``'s BOM), writing nothing; raises AgxError when it cannot
        be encoded."""
        encoding = coding_of(text) or "utf-8"
        data = encode_source(text, encoding, bool(like and like.bom))
        send(io.BytesIO(data), save_directory=self.downloads,
             save_filename=os.path.basename(path), mime_type=MIME)

    def end(self) -> None:
        """The session is over: its folder goes, with every copy in it."""
        global _served
        if _served is self:
            _served = None
        shutil.rmtree(self.folder, ignore_errors=True)


def start_served() -> ServedSession:
    """Make this process's private session folder (mode 0700) and keep every file of the
    explorer there; the folders of served explorers that were killed go first."""
    global _served
    sweep_sessions()
    _served = ServedSession(tempfile.mkdtemp(prefix=f"{SESSION_PREFIX}{os.getpid()}-"))
    os.mkdir(_served.downloads)
    return _served


def sweep_sessions(folder: str | None = None) -> list[str]:
    """Remove the session folders in ``folder`` (default: the temp folder) of this user
    whose explorer is gone; returns their paths. Nothing in them is anyone's to keep: the
    saves went to the browser, and no other session may be given the rest."""
    folder = folder or tempfile.gettempdir()
    removed: list[str] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            match = re.fullmatch(rf"{re.escape(SESSION_PREFIX)}(\d+)-\w+", entry.name)
            if match is None or pid_alive(int(match.group(1))) or not owned_folder(entry):
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed
