"""Code with no file on disk: IPython's cells, whose text only ``linecache`` holds.

A function defined in an IPython or Jupyter cell has a code name for a file
(``<ipython-input-3-5f1c...>`` in a terminal IPython, ``/tmp/ipykernel_812/2771.py`` in a
kernel) that nothing ever writes to disk: IPython keeps the cell's text in ``linecache``,
with no modification time so that ``linecache.checkcache`` never drops it. That entry is
the source AutoGraph converts from (it reads ``linecache`` too), so the engine reads the
same one: the explored function, the helpers of other cells the trace reached, the
recorder's verdicts in a recorded cell.
"""

from __future__ import annotations

import linecache
import os
import sys


def cell_text(name: str) -> str | None:
    """The text IPython cached for the code name ``name`` (None: not a cell, or a file that
    exists, which is read from disk as any other)."""
    entry = linecache.cache.get(name)
    # (size, mtime, lines, fullname): a file's entry has its mtime; IPython's cells None.
    if not isinstance(entry, tuple) or len(entry) != 4 or entry[1] is not None:
        return None
    if os.path.exists(name):
        return None
    return "".join(entry[2])


def is_cell(name: str) -> bool:
    """Whether ``name`` is the code name of an IPython cell (see :func:`cell_text`)."""
    return cell_text(name) is not None


def cell_label(name: str) -> str | None:
    """``In[3]`` for the code name of the IPython cell run third in this session, as IPython's
    own tracebacks say it (None: not a cell, or no IPython session here to ask)."""
    ipython = sys.modules.get("IPython")
    if ipython is None or not is_cell(name):
        return None
    shell = ipython.get_ipython()
    # IPython's map from a cell's code name to its execution count (its tracebacks use it).
    numbers = getattr(getattr(shell, "compile", None), "_filename_map", None)
    number = numbers.get(name) if isinstance(numbers, dict) else None
    return f"In[{number}]" if isinstance(number, int) and number > 0 else None


def shown_name(path: str) -> str:
    """A file's name as the reports show it: its base name, or a cell's ``In[3]``."""
    return cell_label(path) or os.path.basename(path)


def source_text(path: str) -> str:
    """A source file's text as Python reads it, or a cell's from IPython's cache; unreadable
    is one sentence (source/files.py)."""
    text = cell_text(path)
    if text is not None:
        return text
    from agexplorer.source.targets import read_source

    return read_source(path)
