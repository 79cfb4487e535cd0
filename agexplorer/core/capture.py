"""Capture what user code and TensorFlow print (Python's streams and the C-level ones).

TensorFlow's C++ runtime logs straight to file descriptor 2, and the user's
function may ``print`` while it traces; neither may corrupt ``--json`` output
or bury the report. What was captured is kept, so nothing is lost.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

# TensorFlow start-up chatter that says nothing about the user's function.
_NOISE = re.compile(
    r"(All log messages before absl::InitializeLog|oneDNN custom operations are on"
    r"|Could not find cuda drivers|failed call to cuInit|cpu_feature_guard"
    r"|To enable the following instructions|rebuild TensorFlow with the appropriate"
    r"|Unable to register cu(DNN|FFT|BLAS) factory|computation placer already registered"
    r"|TF-TRT Warning|This TensorFlow binary is optimized)")


@dataclass
class Captured:
    """Text written while capturing: ``stdout`` (prints) and ``log`` (stderr, noise removed)."""

    stdout: str = ""
    log: str = ""


def without_noise(text: str) -> str:
    """Drop TensorFlow's start-up lines."""
    return "\n".join(line for line in text.splitlines() if line.strip()
                     and not _NOISE.search(line))


@contextlib.contextmanager
def capture_output() -> Iterator[Captured]:
    """Redirect fds 1 and 2 and ``sys.stdout``/``sys.stderr`` into a :class:`Captured`."""
    result = Captured()
    py_out, py_err = io.StringIO(), io.StringIO()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    saved: dict[int, int] = {}
    files: dict[int, tempfile._TemporaryFileWrapper] = {}
    try:
        for fd in (1, 2):
            try:
                saved[fd] = os.dup(fd)
            except OSError:  # no such descriptor (a daemon without streams)
                continue
            files[fd] = tempfile.TemporaryFile(mode="w+b")
            os.dup2(files[fd].fileno(), fd)
        with contextlib.redirect_stdout(py_out), contextlib.redirect_stderr(py_err):
            yield result
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        c_text = {}
        for fd, fh in files.items():
            fh.seek(0)
            c_text[fd] = fh.read().decode("utf-8", "replace")
            fh.close()
        result.stdout = py_out.getvalue() + c_text.get(1, "")
        result.log = without_noise(py_err.getvalue() + "\n" + c_text.get(2, ""))
