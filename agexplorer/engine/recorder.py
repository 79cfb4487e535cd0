"""Watch AutoGraph's control-flow operators while a function traces.

AutoGraph rewrites every ``if``/``for``/``while`` into a call to
``ag__.if_stmt``/``for_stmt``/``while_stmt``; those operators decide *at run
time*, from the type of the condition or iterable, whether to stage a graph
op or to run plain Python. This module wraps them for the duration of one
trace and writes down, per call, the user's line, the graph being built, the
value dispatched on, which path was taken and how often each body ran.

It relies on private TensorFlow names (the ``ag__`` module that the transpiler
injects, the path functions in ``operators.control_flow``, the source-mapped
stack); they live in :mod:`agexplorer.engine.tf_internals`, whose check says
clearly when a TensorFlow release moved them.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agexplorer.engine import tf_internals
from agexplorer.engine.describe import classify, is_tensor
from agexplorer.model.values import Described, NamedValue

_GENERATED = "__autograph_generated_file"
# How many executions of one statement get their values described: an unrolled
# loop can run a statement thousands of times and the first few tell the story.
_DESCRIBE_LIMIT = 4


@dataclass
class Call:
    """One execution of an AutoGraph control-flow operator during the trace."""

    kind: str
    line: int | None
    graph: Any  # the FuncGraph being built when the statement ran
    path: str | None = None  # "python" | "staged" | None (raised before dispatch)
    body_runs: int = 0
    branch: str | None = None  # python if: "true" | "false"
    value: Described | None = None  # the iterable / condition
    names: list[NamedValue] = field(default_factory=list)


class Recorder:
    """Collects :class:`Call` objects for statements of one user file."""

    def __init__(self, path: str, names_by_line: dict[int, tuple[str, ...]]) -> None:
        self.path = path
        self.names_by_line = names_by_line
        self.calls: list[Call] = []
        self._stack: list[Call] = []
        self._described: dict[int | None, int] = {}

    # -- helpers ----------------------------------------------------------------
    def _user_line(self) -> int | None:
        for frame in reversed(tf_internals.tf_stack_frames()):
            if frame.filename == self.path:
                return frame.lineno
        return None

    def _start(self, kind: str, value: Any, describe_now: bool = True) -> Call:
        call = Call(kind=kind, line=self._user_line(), graph=tf_internals.default_graph())
        count = self._described.get(call.line, 0)
        if describe_now and count < _DESCRIBE_LIMIT:
            self._describe(call, value)
        self.calls.append(call)
        return call

    def _describe(self, call: Call, value: Any) -> None:
        self._described[call.line] = self._described.get(call.line, 0) + 1
        call.value = classify(value)
        wanted = [n for n in self.names_by_line.get(call.line or -1, ())]
        if wanted:
            call.names = _lookup_names(wanted, sys._getframe(3))

    def _counting(self, call: Call, fn: Callable[..., Any]) -> Callable[..., Any]:
        def body(*args: Any) -> Any:
            call.body_runs += 1
            return fn(*args)
        return body

    def _branch(self, call: Call, fn: Callable[[], Any], which: str) -> Callable[[], Any]:
        def branch() -> Any:
            if call.path == "python":
                call.branch = which
            return fn()
        return branch

    @contextlib.contextmanager
    def _active(self, call: Call) -> Iterator[None]:
        self._stack.append(call)
        try:
            yield
        finally:
            self._stack.pop()

    def mark(self, path: str) -> None:
        """Called from the patched path functions: the innermost statement took ``path``."""
        if self._stack and self._stack[-1].path is None:
            self._stack[-1].path = path

    # -- the wrapped operators --------------------------------------------------
    def wrap_for(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
            call = self._start("for", iter_)
            with self._active(call):
                try:
                    result = original(iter_, extra_test, self._counting(call, body),
                                      get_state, set_state, symbol_names, opts)
                except BaseException:
                    if call.path is None and call.body_runs:
                        call.path = "staged"
                    raise
            # Every path but the Python one (which marks itself) builds a graph loop:
            # tensors, datasets, distributed iterables, registered iterables.
            if call.path is None:
                call.path = "staged"
            return result
        return for_stmt

    def wrap_while(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def while_stmt(test, body, get_state, set_state, symbol_names, opts):
            call = self._start("while", None, describe_now=False)
            first = [True]

            def watched_test():
                result = test()
                if first[0]:
                    first[0] = False
                    if self._described.get(call.line, 0) < _DESCRIBE_LIMIT:
                        self._describe(call, result)
                return result

            with self._active(call):
                result = original(watched_test, self._counting(call, body), get_state,
                                  set_state, symbol_names, opts)
            if call.path is None:  # dispatched to Python (possibly with zero iterations)
                call.path = "python"
            return result
        return while_stmt

    def wrap_if(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
            call = self._start("if", cond)
            with self._active(call):
                return original(cond, self._branch(call, body, "true"),
                                self._branch(call, orelse, "false"), get_state, set_state,
                                symbol_names, nouts)
        return if_stmt


def _lookup_names(names: list[str], frame: Any) -> list[NamedValue]:
    """Describe the values ``names`` had in the generated code's frames (innermost first)."""
    found: dict[str, Described] = {}
    globals_ns: dict[str, Any] | None = None
    depth = 0
    while frame is not None and depth < 80 and len(found) < len(names):
        if _GENERATED in frame.f_code.co_filename:
            globals_ns = frame.f_globals
            local_ns = frame.f_locals
            for name in names:
                if name not in found and name in local_ns and _is_data(local_ns[name]):
                    found[name] = classify(local_ns[name])
        frame = frame.f_back
        depth += 1
    if globals_ns is not None:
        for name in names:
            if name not in found and name in globals_ns and _is_data(globals_ns[name]):
                found[name] = classify(globals_ns[name])
    return [NamedValue(n, found[n]) for n in names if n in found]


def _is_data(value: Any) -> bool:
    """Values worth describing: not modules, classes or functions (``tf``, ``range``)."""
    return is_tensor(value) or not (isinstance(value, (type, types.ModuleType))
                                    or callable(value))


@contextlib.contextmanager
def recording(recorder: Recorder) -> Iterator[Recorder]:
    """Patch AutoGraph's operators for the duration of the ``with`` block."""
    tf_internals.require_support()
    wrappers = {"for_stmt": recorder.wrap_for, "while_stmt": recorder.wrap_while,
                "if_stmt": recorder.wrap_if}
    with tf_internals.patched_autograph(wrappers, recorder.mark):
        yield recorder
