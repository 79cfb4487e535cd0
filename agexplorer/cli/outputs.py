"""Where a command may write: never over one of its inputs, nor over a file of another kind.

Every output option (``-o``, ``--svg``, ``check --golden`` with ``--update``, ``record -o``)
is checked here before any work, in one sentence (exit 2); the write itself is
source/files.py's atomic one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from agexplorer.model.errors import AgxError
from agexplorer.runlog.log import starts_as_log
from agexplorer.source.files import kind_of

_PYTHON = (".py", ".pyw", ".pyi")


def check_output(option: str, output: str, inputs: Iterable[str]) -> os.stat_result | None:
    """Refuse ``output`` when it is one of ``inputs`` (the same path, or the same file through
    a symlink or a hard link) or exists and is not a regular file; its stat, None when new."""
    full = os.path.abspath(os.path.expanduser(output))
    real = os.path.realpath(full)
    try:
        info: os.stat_result | None = os.stat(real)  # a stat, not an open: a FIFO never blocks
    except OSError:
        info = None
    for given in inputs:
        source = os.path.abspath(os.path.expanduser(given))
        if real == os.path.realpath(source) or (info is not None and _same_inode(info, source)):
            via = "" if full == source else " (the same file, through a link)"
            raise AgxError("output-is-input", f"{option} {output} would overwrite the input "
                           f"{given}{via}", advice="name another file for the output.")
    what = kind_of(info.st_mode) if info is not None else None
    if what is not None:
        raise AgxError("output-not-a-file", f"{option} {output} is a {what}, not a regular "
                       "file", advice="name a regular file (or a new one) for the output.")
    return info


def _same_inode(info: os.stat_result, path: str) -> bool:
    try:
        other = os.stat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == (other.st_dev, other.st_ino)


def page_output(option: str, output: str, inputs: Iterable[str], made: str) -> str:
    """``output`` as an absolute path, once it is known to overwrite neither an input nor a
    Python file or a recorded log (what agexplorer reads, never what it writes): ``made``
    names what it writes ("a page", "an SVG", "a golden file")."""
    full = os.path.abspath(os.path.expanduser(output))
    if check_output(option, output, inputs) is not None:
        real = os.path.realpath(full)
        kind = ("a Python file" if full.endswith(_PYTHON) or real.endswith(_PYTHON)
                else "an agexplorer record log" if starts_as_log(real) else None)
        if kind is not None:
            raise AgxError("output-other-kind", f"{option} {output} is {kind}, not {made}",
                           advice="agexplorer never overwrites another kind of file, so name a new "
                           "file for the output.")
    return full


def log_output(option: str, output: str, inputs: Iterable[str]) -> str:
    """``record``'s log as an absolute path (resolved now: the program may change folder),
    once it is a new file, an empty one or an older log, and none of ``inputs``."""
    full = os.path.abspath(os.path.expanduser(output))
    info = check_output(option, output, inputs)
    if info is not None and info.st_size > 0 and not starts_as_log(full):
        raise AgxError("output-other-kind", f"{option} {output} exists and is not an "
                       "agexplorer record log", advice="record never overwrites another file, so name "
                       "a new file or an older log.")
    return full
