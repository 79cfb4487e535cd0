"""Which interpreter the worker is asked to run under, from the flag and the environment
alone: read on every start of the explorer, so apart from the probe and its records
(interpreter.py), which load only where another interpreter is chosen."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def choose(flag: str | None, environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """(path, where it came from) of the interpreter asked for: ``--python`` first, then
    ``AGX_PYTHON``, then an active virtual environment other than the one agexplorer runs
    in; None: this interpreter (``sys.executable``)."""
    env = os.environ if environ is None else environ
    if flag:
        return flag, "--python"
    if env.get("AGX_PYTHON"):
        return env["AGX_PYTHON"], "AGX_PYTHON"
    venv = env.get("VIRTUAL_ENV")
    # agexplorer installed in the active venv (CI runs the suite so) changes nothing.
    if venv and os.path.realpath(venv) != os.path.realpath(sys.prefix):
        bin_dir = "Scripts" if os.name == "nt" else "bin"
        return os.path.join(venv, bin_dir, "python"), "VIRTUAL_ENV"
    return None
