"""Scratch copies of the bundled samples and folders of files: what the explorer opens, never
the installation itself."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file, write_source
from agexplorer.source.folders import python_files_under

MARKER = ".agexplorer-scratch"  # in a scratch folder: a save there says it wrote a copy
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
        raise AgxError("bad-target", f"{folder} holds more than {MAX_FILES} Python files; "
                       "open the folder of the code you mean to explore.", exit_code=2)
    if not found:
        raise AgxError("missing-file", f"{folder}: no Python files in this folder; open a "
                       "folder of .py files, or one file.", exit_code=2)
    return found


def scratch_root() -> str:
    """Where scratch sessions go: ``$XDG_STATE_HOME/agexplorer/scratch`` (the recovery
    copies' neighbour), else ``~/.local/state``."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                            "state")
    return os.path.join(base, "agexplorer", "scratch")


def scratch_copies(samples: str) -> list[str]:
    """Copy the ``.py`` files of ``samples`` into a new per-session folder and return the
    copies' paths: the explorer edits (and saves) those, never the package's own files."""
    root = scratch_root()
    try:
        os.makedirs(root, exist_ok=True)
        folder = tempfile.mkdtemp(prefix="session-", dir=root)
    except OSError:  # an unwritable state folder: the system's temp folder will do
        folder = tempfile.mkdtemp(prefix="agexplorer-scratch-")
    names = sorted(n for n in os.listdir(samples) if n.endswith(".py"))
    for name in names:
        shutil.copyfile(os.path.join(samples, name), os.path.join(folder, name))
    with open(os.path.join(folder, MARKER), "w", encoding="utf-8") as marker:
        marker.write(f"scratch copies of {samples}\n")
    return [os.path.join(folder, n) for n in names if n != "__init__.py"]


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
        raise AgxError("bad-argument", f"--copy {dest}: that is a file; give a folder "
                       "(it is made when missing).", exit_code=2)
    taken = [n for n in names if os.path.lexists(os.path.join(dest, n))]
    if taken:
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        raise AgxError("file-exists", f"{os.path.join(dest, taken[0])} already exists{more}; "
                       "agexplorer does not overwrite files, so nothing was written: give a "
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
