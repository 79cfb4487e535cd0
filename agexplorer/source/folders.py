"""The Python files under a folder, as the explorer and ``check`` walk it (no TensorFlow)."""

from __future__ import annotations

import os

# Not the user's code, or a copy of it: caches, installed packages, build output, environments.
SKIPPED = {"__pycache__", "site-packages", "dist-packages", "node_modules", "build", "dist",
           "venv", "env"}


def python_files_under(folder: str, limit: int | None = None) -> list[str]:
    """Every ``.py`` file under ``folder``, sorted, hidden folders and those in ``SKIPPED``
    left out, as are virtual environments (a ``pyvenv.cfg`` inside). With ``limit``, the
    walk stops once it has found more than that many (the caller refuses the folder)."""
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED
                         and not os.path.isfile(os.path.join(root, d, "pyvenv.cfg")))
        found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
        if limit is not None and len(found) > limit:
            break
    return found
