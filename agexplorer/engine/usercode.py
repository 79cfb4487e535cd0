"""Which files are the user's code: where verdicts are given and ops are charged.

User code is every real Python file outside the Python installation and its
site-packages (the standard library, TensorFlow, Keras and every installed package are
library code), widened by ``--user-code PATH`` for a package the user installed in
development or vendored into a site folder, and every cell of the IPython session this
runs in (``<ipython-input-3-...>``: source/cells.py). TensorFlow, Keras and agexplorer itself are
never user code, wherever they live: a verdict on ``keras/src/layers/...`` answers a
question nobody asked.
"""

from __future__ import annotations

import functools
import os
import site
import sys
import sysconfig
from collections.abc import Iterable

from agexplorer.source.cells import is_cell

# AutoGraph's generated modules: frames in them are mapped back to the user's file by
# TensorFlow's source maps; one left unmapped is no one's source.
_GENERATED = "__autograph_generated_file"
_NEVER_USER = ("tensorflow", "tf_keras", "keras", "tensorboard", "absl", "numpy")


def _library_roots() -> list[str]:
    """The folders of the Python installation: prefixes, the stdlib, every site folder."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(path)
    try:
        roots.update(site.getsitepackages())
    except AttributeError:  # an old virtualenv's site module
        pass
    user_site = getattr(site, "getusersitepackages", lambda: None)()
    if isinstance(user_site, str):
        roots.add(user_site)
    roots.update(p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p))
    return sorted({_real(r) for r in roots if r}, key=len, reverse=True)


def _package_dirs() -> list[str]:
    """Where TensorFlow, Keras and agexplorer live (already imported, or importable)."""
    import importlib.util

    dirs = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # agexplorer
    for name in _NEVER_USER:
        module = sys.modules.get(name)
        paths = list(getattr(module, "__path__", []) or [])
        if not paths:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            paths = list(spec.submodule_search_locations or []) if spec else []
        dirs.extend(paths)
    return sorted({_real(d) for d in dirs}, key=len, reverse=True)


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class UserCode:
    """Decides, once per file name, whether a frame's file is the user's code."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.extra = [_real(p) for p in extra]
        self._libraries = _library_roots()
        # The installation's folders as written (sys.prefix, site-packages): most files a
        # trace's stack passes through are under one, told apart without resolving links.
        self._plain_roots = [r for r in self._libraries if r.startswith(sys.prefix)
                             or r.startswith(sys.base_prefix)] if not self.extra else []
        self._never = _package_dirs()
        self._cache: dict[str, bool] = {}

    def __contains__(self, filename: object) -> bool:
        if not isinstance(filename, str):
            return False
        known = self._cache.get(filename)
        if known is None:
            known = self._cache[filename] = self._decide(filename)
        return known

    def _decide(self, filename: str) -> bool:
        if filename and is_cell(filename):
            return True  # an IPython cell (``<ipython-input-3-...>``): the user's own code
        if not filename or filename.startswith("<") or _GENERATED in filename:
            return False  # <string>, <stdin>, <frozen ...>, an unmapped generated module
        if not filename.endswith((".py", ".pyw")):
            return False
        if any(_under(filename, root) for root in self._plain_roots):
            return False  # library code, as written (no --user-code folder can claim it)
        path = _real(filename)
        if any(_under(path, d) for d in self._never):
            return False
        if any(_under(path, d) for d in self.extra):
            return True
        return not any(_under(path, root) for root in self._libraries)

    @staticmethod
    @functools.lru_cache(maxsize=8)
    def shared(extra: tuple[str, ...] = ()) -> UserCode:
        """One UserCode per ``extra`` for a worker's life: each file is decided once across
        requests (a fresh one resolved the installation's folders and every frame's file
        again for each report)."""
        return UserCode(extra)

    def explain(self) -> str:
        """What counts as user code here, in one sentence (for the report's notes)."""
        extra = f", plus {', '.join(self.extra)}" if self.extra else ""
        return ("user code: files outside the Python installation and its site-packages"
                f"{extra}; TensorFlow and Keras never")
