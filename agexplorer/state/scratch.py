"""Scratch copies of the bundled samples and folders of files: what the explorer opens, never
the installation itself.

Each bare `agexplorer` copies the samples into ``<state>/scratch/session-<pid>-XXXXXXXX``
(see session.py for ``<state>``), whose marker file records each copy's SHA-256. Pruning,
done as the next scratch session starts: a session folder of this user whose explorer is
gone (its pid no longer runs; a folder named without a pid, from an earlier version, once
untouched for a day) is removed only when it holds no user work: every copy still has the
bytes it was made with, no other file was added (Python's caches aside), and no recovery
copy of unsaved edits names one of its files. A copy the user saved edits into is kept, and
so is everything beside it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file, write_source
from agexplorer.source.folders import python_files_under
from agexplorer.state.session import owned_folder, pid_alive, state_dir

MARKER = ".agexplorer-scratch"  # in a scratch folder: a save there says it wrote a copy
OLD_UNTOUCHED = 24 * 3600  # seconds: a pid-less (earlier version's) folder counts as ended
NOTE = ("scratch copy of the bundled samples: ctrl+s saves the copy; "
        "`agexplorer samples --copy DIR` makes your own")
# Folders a class's project holds but nobody means to explore.
MAX_FILES = 500  # a folder beyond this is most likely not the one meant
# Installed: the samples travel inside the package (agexplorer/samples, above this folder).
PACKAGED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples")


def bundled_samples() -> str:
    """The bundled samples: inside the package when installed, else the checkout's samples/."""
    if os.path.isdir(PACKAGED):
        return PACKAGED
    return os.path.join(os.path.dirname(os.path.dirname(PACKAGED)), "samples")


def python_files(folder: str) -> list[str]:
    """Every ``.py`` file under ``folder`` (hidden folders, virtual environments and caches
    left out), sorted; none, or too many, is one sentence."""
    found = python_files_under(folder, limit=MAX_FILES)
    if len(found) > MAX_FILES:
        raise AgxError("bad-target", f"{folder} holds more than {MAX_FILES} Python files",
                       advice="open the folder of the code you mean to explore.", exit_code=2)
    if not found:
        raise AgxError("missing-file", f"{folder}: no Python files in this folder", advice="open a "
                       "folder of .py files, or one file.", exit_code=2)
    return found


def scratch_root() -> str:
    """Where scratch sessions go: ``$XDG_STATE_HOME/agexplorer/scratch`` (the recovery
    copies' neighbour), else ``~/.local/state``; a served session's own folder."""
    return state_dir("scratch")


def scratch_copies(samples: str) -> list[str]:
    """Copy the ``.py`` files of ``samples`` into a new per-session folder and return the
    copies' paths: the explorer edits (and saves) those, never the package's own files.
    Ended sessions that hold no user work go first (see the module's docstring)."""
    root = scratch_root()
    try:
        os.makedirs(root, exist_ok=True)
        prune_sessions(root)
        folder = tempfile.mkdtemp(prefix=f"session-{os.getpid()}-", dir=root)
    except OSError:  # an unwritable state folder: the system's temp folder will do
        folder = tempfile.mkdtemp(prefix="agexplorer-scratch-")
    names = sorted(n for n in os.listdir(samples) if n.endswith(".py"))
    for name in names:
        shutil.copyfile(os.path.join(samples, name), os.path.join(folder, name))
    made = "".join(f"{_digest(os.path.join(folder, n))} {n}\n" for n in names)
    with open(os.path.join(folder, MARKER), "w", encoding="utf-8") as marker:
        marker.write(f"scratch copies of {samples}\n{made}")
    return [os.path.join(folder, n) for n in names if n != "__init__.py"]


def prune_sessions(root: str) -> list[str]:
    """Remove the scratch session folders under ``root`` whose explorer is gone and that
    hold no user work; returns their paths."""
    removed: list[str] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            if _ended(entry) and owned_folder(entry) and not holds_work(entry.path):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
    return removed


def _ended(entry: os.DirEntry[str]) -> bool:
    match = re.fullmatch(r"session-(?:(\d+)-)?\w+", entry.name)
    if match is None:
        return False
    if match.group(1) is not None:
        return not pid_alive(int(match.group(1)))
    try:  # an earlier version's folder: no pid to ask, so a day untouched
        return time.time() - entry.stat(follow_symlinks=False).st_mtime > OLD_UNTOUCHED
    except OSError:
        return False


def holds_work(folder: str) -> bool:
    """Whether a scratch session folder holds anything of the user's: a copy that differs
    from what was copied, a file added to it, or a recovery copy of one of its files."""
    from agexplorer.state.recovery import load_copy  # not the explorer's first frame's

    made = _made(folder)
    if made is None:
        return True  # no marker: not a folder this module made, so not ours to judge
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.join(here, name)
            rel = os.path.relpath(path, folder)
            if rel == MARKER:
                continue
            if os.path.islink(path) or not os.path.isfile(path):
                return True  # never opened (a FIFO would block): the user's, kept
            if rel not in made or made[rel] != _digest(path) or load_copy(path) is not None:
                return True
    return False


def _made(folder: str) -> dict[str, str] | None:
    """Each copy's name -> its SHA-256 when made, from the marker (None: no marker). An
    earlier version's marker names only the samples' folder: their digests now stand in."""
    try:
        with open(os.path.join(folder, MARKER), encoding="utf-8") as marker:
            lines = marker.read().splitlines()
    except (OSError, ValueError):
        return None
    pairs = (line.split(" ", 1) for line in lines[1:] if " " in line)
    made = {name: digest for digest, name in pairs}
    if made or not lines:
        return made
    samples = lines[0].removeprefix("scratch copies of ")
    with contextlib.suppress(OSError):
        return {n: _digest(os.path.join(samples, n)) for n in os.listdir(samples)
                if n.endswith(".py")}
    return {}


def _digest(path: str) -> str:
    import hashlib  # here, as in recovery: not for the explorer's first frame

    sha = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 16), b""):
                sha.update(block)
    except OSError:
        return ""  # unreadable: differs from any digest, so it counts as the user's
    return sha.hexdigest()


def is_scratch(path: str) -> bool:
    """Whether ``path`` is a scratch copy (its folder carries the marker)."""
    return os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(path)), MARKER))


def saved_note(path: str) -> str:
    """The status after a save: a scratch copy says so, and how to keep one of your own."""
    if is_scratch(path):
        return (f"saved the scratch copy {path} (the bundled samples are unchanged); "
                "`agexplorer samples --copy DIR` makes your own copy")
    return f"saved {path}"


def copy_lesson(samples: str, dest: str) -> list[str]:
    """Write the lesson's samples into ``dest`` (made when missing); a file already there
    is never overwritten: nothing is written and one sentence names it."""
    names = sorted(n for n in os.listdir(samples) if n.endswith(".py") and n != "__init__.py")
    if os.path.exists(dest) and not os.path.isdir(dest):
        raise AgxError("bad-arguments", f"--copy {dest}: that is a file", advice="give a folder "
                       "(it is made when missing).", exit_code=2)
    taken = [n for n in names if os.path.lexists(os.path.join(dest, n))]
    if taken:
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        raise AgxError("file-exists", f"{os.path.join(dest, taken[0])} already exists{more}",
                       advice="agexplorer does not overwrite files, so nothing was written: give a "
                       "new or empty folder.", exit_code=2)
    written: list[str] = []
    try:
        os.makedirs(dest, exist_ok=True)
        for name in names:
            # Each file atomically (a full disk leaves no half-written sample), and all or
            # none: a copy that stopped half-way is removed, so that trying again works.
            original = read_source_file(os.path.join(samples, name))
            written.append(write_source(os.path.join(dest, name), original.text, like=original))
    except (OSError, AgxError) as exc:
        for path in written:
            with contextlib.suppress(OSError):
                os.remove(path)
        why = exc.message if isinstance(exc, AgxError) else f"{exc.strerror or exc}."
        raise AgxError("write-failed", f"could not write the samples into {dest}, so none "
                       f"were left there: {why}", exit_code=2) from None
    return [os.path.join(dest, n) for n in names]
