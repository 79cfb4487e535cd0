"""Analyse an unsaved buffer: the text goes to a shadow file, answers name the real path."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from agexplorer.source.files import coding_of, encode_source
from agexplorer.source.targets import parse_spec


class Shadow:
    """Where a buffer was written, and how to put the real path back into results."""

    def __init__(self, real: str, shadow: str) -> None:
        self.real = real
        self.shadow = shadow

    def fix_text(self, text: str | None) -> str | None:
        """Replace the shadow path with the real one in a message."""
        return text.replace(self.shadow, self.real) if text and self.shadow != self.real else text

    def fix_error(self, error: Any) -> Any:
        """Rewrite an AgxError's message and details in place; returns it."""
        error.what, error.advice, error.raised = (self.fix_text(error.what),
                                                  self.fix_text(error.advice),
                                                  self.fix_text(error.raised))
        error.details = [self.fix_text(d) for d in error.details]
        return error

    def fix(self, result: Any) -> Any:
        """A Report or RunLab rewritten in place so it names the user's file (a frozen
        RetraceReport: a rewritten copy)."""
        if result is None:
            return None
        with_paths = getattr(result, "with_paths", None)
        if with_paths is not None:  # frozen records that know their messages (RetraceReport)
            return with_paths(self.real, self.fix_text)
        rename = getattr(result, "rename_file", None)
        if rename is not None:  # a Report: its call tree, verdicts and ops name files too
            rename(self.shadow, self.real)
        if hasattr(result, "file"):
            result.file = self.real
        if getattr(result, "error", None) is not None:
            self.fix_error(result.error)
        for run in getattr(result, "runs", {}).values():
            run.error = self.fix_text(run.error)
        for part in getattr(result, "parts", ()):  # composite results (the doctor's FixTrial)
            self.fix(part)
        return result


@contextlib.contextmanager
def shadowed(target: str, source: str | None) -> Iterator[tuple[str, Shadow]]:
    """Yield a target that reads ``source`` instead of the file on disk (when given)."""
    spec = parse_spec(target)
    if source is None:
        yield target, Shadow(spec.path, spec.path)
        return
    shadow = _copy(spec.path, source, "agx-buffer-")
    real_folder = os.path.dirname(spec.path)
    added = real_folder not in sys.path
    if added:  # sibling imports of the real file keep working
        sys.path.insert(0, real_folder)
    try:
        yield f"{shadow}::{spec.qualname}" if spec.qualname else shadow, Shadow(spec.path, shadow)
    finally:
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(real_folder)
        _remove(os.path.dirname(shadow))


# The folders of shadow copies whose removal waits (see ``removals_after``); None: removed
# as soon as their analysis is over.
_waiting: list[str] | None = None


def _remove(folder: str) -> None:
    if _waiting is not None:
        _waiting.append(folder)
    else:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def removals_after() -> Iterator[None]:
    """The shadow copies made while open are removed as it closes, not as each analysis
    ends: the worker sends its answer first (removing a folder costs ~0.5 ms, on the path of
    every edit's answer)."""
    global _waiting
    outer, _waiting = _waiting, []
    try:
        yield
    finally:
        folders, _waiting = _waiting, outer
        for folder in folders:
            _remove(folder)


class _CopyFinder:
    """A meta path finder that loads the module whose file is ``real`` from ``copy``."""

    def __init__(self, real: str, copy: str) -> None:
        self.real, self.copy = real, copy

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        import importlib.util

        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is None:
                continue
            if spec.origin and os.path.realpath(spec.origin) == self.real:
                return importlib.util.spec_from_file_location(
                    fullname, self.copy,
                    submodule_search_locations=spec.submodule_search_locations)
            return spec
        return None


@contextlib.contextmanager
def module_shadowed(path: str, source: str) -> Iterator[str]:
    """While open, importing the module whose file is ``path`` (a helper module the target
    imports) runs ``source`` from a copy instead (AutoGraph reads that copy's lines); yields
    the copy's path, which the functions of that module then name. The module must not be
    imported already (the engine forgets the user's modules before each load)."""
    copy = _copy(path, source, "agx-helper-")
    finder = _CopyFinder(os.path.realpath(path), copy)
    sys.meta_path.insert(0, finder)
    try:
        yield copy
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        _remove(os.path.dirname(copy))


def _copy(path: str, source: str, prefix: str) -> str:
    """``source`` written as a file named as ``path`` in a new temporary folder (``prefix``):
    its path. AutoGraph re-reads the file with Python's rules (linecache, tokenize): the
    bytes are in the source's declared encoding, newlines as they are, so that its lines
    are the source's."""
    folder = tempfile.mkdtemp(prefix=prefix)
    copy = os.path.join(folder, os.path.basename(path))
    with open(copy, "wb") as fh:
        fh.write(encode_source(source, coding_of(source) or "utf-8"))
    return copy
