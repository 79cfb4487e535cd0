"""Watch AutoGraph's control-flow operators while a function traces.

AutoGraph rewrites every ``if``/``for``/``while`` into a call to
``ag__.if_stmt``/``for_stmt``/``while_stmt`` (a conditional expression into
``ag__.if_exp``); those operators decide *at run
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
import linecache
import re
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from agexplorer.engine import tf_internals
from agexplorer.engine.describe import classify, is_tensor, is_undefined
from agexplorer.engine.loopvars import LoopWatch
from agexplorer.engine.opchains import OpChains
from agexplorer.model.values import Described, NamedValue

_GENERATED = "__autograph_generated_file"
# How many executions of one statement get their values described: an unrolled
# loop can run a statement thousands of times and the first few tell the story.
_DESCRIBE_LIMIT = 4


class Frame(NamedTuple):
    """A frame of the user's code: its file, the line it was at, its code's name."""

    file: str
    line: int
    name: str


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
    file: str | None = None  # the user's file of ``line``
    stack: tuple[Frame, ...] = ()  # the user's frames from the traced function inward
    loop_vars: tuple[Any, ...] = ()  # a loop's model.loopvars.LoopVar, from engine.loopvars


class Recorder:
    """Collects :class:`Call` objects for the statements of the user's code, in every
    function the trace reaches, and which user functions ``converted_call`` entered."""

    def __init__(self, root_file: str, root_span: tuple[int, int], user_code: Any,
                 names_for: Callable[[str, int], tuple[str, ...]],
                 own_graph: bool = False,
                 outer: frozenset[tuple[str, int]] = frozenset()) -> None:
        # own_graph: a tf.function called during the trace is a trace of its own (record
        # writes one per trace), so its function is not one this trace entered.
        self.own_graph = own_graph
        self.root_file = root_file
        self.root_span = root_span
        self.user_code = user_code  # supports ``filename in user_code``
        self.names_for = names_for
        self.calls: list[Call] = []
        # (file, def line) -> (the function, the user frames when it was first entered)
        self.entries: dict[tuple[str, int], tuple[Any, tuple[Frame, ...]]] = {}
        # (file, def line) -> (the bound instance or None, the (args, kwargs) converted_call
        # first gave that function)
        self.first_calls: dict[tuple[str, int], tuple[Any, Any]] = {}
        self._stack: list[Call] = []
        self._described: dict[tuple[str | None, int | None], int] = {}
        # id(code object) -> (it, whether it is the user's): by id, as opchains.OpChains
        # does (a code object's hash reads its whole bytecode each time).
        self._codes: dict[int, tuple[Any, bool]] = {}
        # Which lines of the user's code made each op, noted as it is made (see opchains).
        self.op_chains = OpChains(root_file, user_code, outer)
        self.outer = outer  # the caller's frames (opchains.caller_frames)
        # While another trace is made inside this one (a tf.function called as this one
        # traces), what runs is that trace's, in its own graph: this recorder looks away.
        self.paused = 0
        # id(a tf.function of the user's code the trace called) -> (it, the copy traced
        # instead: see traced_afresh)
        self._fresh: dict[int, tuple[Any, Any]] = {}
        self._copies: set[int] = set()

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        """Within the block, nothing is recorded here (a nested trace's own recorder is)."""
        self.paused += 1
        self.op_chains.paused += 1
        try:
            yield
        finally:
            self.paused -= 1
            self.op_chains.paused -= 1

    # -- helpers ----------------------------------------------------------------
    def _is_user(self, filename: str) -> bool:
        return filename == self.root_file or filename in self.user_code

    def user_frames(self) -> tuple[Frame, ...]:
        """The user's frames of the current stack, from the traced function inward (all of
        them when the traced function is not on the stack)."""
        frames = [Frame(f.filename, f.lineno, f.name) for f in tf_internals.tf_stack_frames()
                  if self._is_user(f.filename) and (f.filename, f.lineno) not in self.outer]
        low, high = self.root_span
        for i, frame in enumerate(frames):
            if frame.file == self.root_file and low <= frame.line <= high:
                return tuple(frames[i:])
        return tuple(frames)

    def _start(self, kind: str, value: Any, describe_now: bool = True) -> Call:
        stack = self.user_frames()
        inner = stack[-1] if stack else None
        call = Call(kind=kind, line=inner.line if inner else None,
                    graph=tf_internals.default_graph(), file=inner.file if inner else None,
                    stack=stack)
        count = self._described.get((call.file, call.line), 0)
        if describe_now and count < _DESCRIBE_LIMIT:
            self._describe(call, value)
        self.calls.append(call)
        return call

    def _describe(self, call: Call, value: Any) -> None:
        key = (call.file, call.line)
        self._described[key] = self._described.get(key, 0) + 1
        call.value = classify(value)
        wanted = self.names_for(call.file, call.line) if call.file and call.line else ()
        if wanted:
            call.names = _lookup_names(list(wanted), sys._getframe(3))

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
        if not self.paused and self._stack and self._stack[-1].path is None:
            self._stack[-1].path = path

    # -- the wrapped operators --------------------------------------------------
    def wrap_for(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
            if self.paused:
                return original(iter_, extra_test, body, get_state, set_state, symbol_names,
                                opts)
            call = self._start("for", iter_)
            # Staged unless the Python path marked it (before its first body): a dataset's,
            # an iterator's or a distributed loop traces its body with no mark of its own.
            watch = LoopWatch(get_state, symbol_names, lambda: call.path != "python",
                              call.file, call.line)
            with self._active(call):
                try:
                    result = original(iter_, extra_test, self._counting(call, watch.wrap(body)),
                                      get_state, set_state, symbol_names, opts)
                except BaseException:
                    if call.path is None and call.body_runs:
                        call.path = "staged"
                    raise
                finally:  # a loop whose trace failed on its variables keeps them
                    call.loop_vars = watch.loop_vars
            # Every path but the Python one (which marks itself) builds a graph loop:
            # tensors, datasets, distributed iterables, registered iterables.
            if call.path is None:
                call.path = "staged"
            return result
        return for_stmt

    def wrap_while(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def while_stmt(test, body, get_state, set_state, symbol_names, opts):
            if self.paused:
                return original(test, body, get_state, set_state, symbol_names, opts)
            call = self._start("while", None, describe_now=False)
            first = [True]

            def watched_test():
                result = test()
                if first[0]:
                    first[0] = False
                    if self._described.get((call.file, call.line), 0) < _DESCRIBE_LIMIT:
                        self._describe(call, result)
                return result

            watch = LoopWatch(get_state, symbol_names, lambda: call.path == "staged",
                              call.file, call.line)
            with self._active(call):
                try:
                    result = original(watched_test, self._counting(call, watch.wrap(body)),
                                      get_state, set_state, symbol_names, opts)
                except BaseException:
                    # A graph loop marks itself staged as it starts: a body that ran with no
                    # mark ran in Python (then its condition became a tensor, say).
                    if call.path is None and call.body_runs:
                        call.path = "python"
                    raise
                finally:  # a loop whose trace failed on its variables keeps them
                    call.loop_vars = watch.loop_vars
            if call.path is None:  # dispatched to Python (possibly with zero iterations)
                call.path = "python"
            return result
        return while_stmt

    def wrap_if(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
            if self.paused:
                return original(cond, body, orelse, get_state, set_state, symbol_names, nouts)
            if _generated_guard(sys._getframe(1), self):
                # AutoGraph's own `if not do_return:` (or break_/continue_) around the code
                # after an early return: no statement of the user's. Its marks go nowhere.
                with self._active(Call(kind="guard", line=None, graph=None, path="guard")):
                    return original(cond, body, orelse, get_state, set_state, symbol_names,
                                    nouts)
            call = self._start("if", cond)
            with self._active(call):
                return original(cond, self._branch(call, body, "true"),
                                self._branch(call, orelse, "false"), get_state, set_state,
                                symbol_names, nouts)
        return if_stmt


    def wrap_if_exp(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """``a if c else b``, converted: ``if_exp(c, lambda: a, lambda: b, text)``."""
        def if_exp(cond, if_true, if_false, expr_repr):
            if self.paused:
                return original(cond, if_true, if_false, expr_repr)
            call = self._start("ifexp", cond)
            with self._active(call):
                return original(cond, self._branch(call, if_true, "true"),
                                self._branch(call, if_false, "false"), expr_repr)
        return if_exp

    def wrap_converted_call(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """``converted_call``, noting each function of the user's code it enters (once,
        with the frames that led there): the call tree's functions without control flow."""
        def converted_call(f: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                if not self.paused:
                    self._entered(f, args)
            except Exception:  # noqa: BLE001 - noting is never worth the user's call
                pass
            return original(f, *args, **kwargs)
        return converted_call

    def traced_afresh(self, f: Any) -> Any:
        """The tf.function to call in place of ``f``, a tf.function called while this trace
        is made: for one of the user's code, a fresh copy (one per tf.function and trace:
        later calls of it reuse the copy's traces, as they would the original's). The
        original may hold a trace made before this one (the file's own call, as it loaded):
        called with the same arguments it would run none of its Python, and its statements
        would go unseen. (Not for ``agexplorer record``, which records the program as it
        runs: ``own_graph``; see :func:`recording`.)"""
        if self.paused or id(f) in self._copies:
            return f
        held = self._fresh.get(id(f))
        if held is not None:
            return held[1]
        python_function = getattr(f, "python_function", None)
        if python_function is None:
            return f
        code = getattr(getattr(python_function, "__func__", python_function), "__code__", None)
        if code is None or not self._is_user(code.co_filename):
            return f
        fresh = tf_internals.fresh_tf_function(f)
        if fresh is None:
            return f
        self._fresh[id(f)] = (f, fresh)  # both kept: their ids stay their own
        self._copies.add(id(fresh))
        return fresh

    def _entered(self, f: Any, call: tuple[Any, ...] = ()) -> None:
        if self.own_graph and getattr(f, "python_function", None) is not None:
            return
        fn = getattr(f, "python_function", None) or getattr(f, "__func__", None) or f
        code = getattr(fn, "__code__", None)
        if code is None:
            return
        known = self._codes.get(id(code))
        if known is None:
            known = self._codes[id(code)] = (code, self._is_user(code.co_filename))
        if not known[1]:
            return
        key = (code.co_filename, code.co_firstlineno)
        if key not in self.entries:
            self.entries[key] = (fn, self.user_frames())
            if call:  # converted_call(f, args, kwargs, ...): the call's own arguments
                self.first_calls[key] = (getattr(f, "__self__", None), call[:2])


# The control variables AutoGraph adds for return, break and continue inside control flow
# (its namer adds a suffix where the user's code already has the name).
_GUARD = re.compile(r"ag__\.if_stmt\(\s*ag__\.not_\(\s*((?:do_return|break_|continue_)\w*)\s*\)")


def _generated_guard(frame: Any, recorder: Recorder) -> bool:
    """Whether the if_stmt called from ``frame`` (generated code) is a guard AutoGraph wrote:
    ``if not do_return:``, unless the user wrote that very test on that line."""
    if _GENERATED not in frame.f_code.co_filename:
        return False
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    match = _GUARD.search(text)
    if match is None:
        return False
    stack = recorder.user_frames()
    if not stack:
        return True
    # The user's statement mapped to this line reads the variable: then it is the user's.
    return match.group(1) not in recorder.names_for(stack[-1].file, stack[-1].line)


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
    """Values worth describing: not modules, classes or functions (``tf``, ``range``), nor a
    name not assigned yet (AutoGraph's ``Undefined``, before a loop's body creates it)."""
    if is_undefined(value):
        return False
    return is_tensor(value) or not (isinstance(value, (type, types.ModuleType))
                                    or callable(value))


@contextlib.contextmanager
def recording(recorder: Recorder) -> Iterator[Recorder]:
    """Patch AutoGraph's operators for the duration of the ``with`` block."""
    tf_internals.require_support()
    wrappers = {"for_stmt": recorder.wrap_for, "while_stmt": recorder.wrap_while,
                "if_stmt": recorder.wrap_if, "if_exp": recorder.wrap_if_exp,
                "converted_call": recorder.wrap_converted_call}
    with tf_internals.patched_autograph(wrappers, recorder.mark), \
            _noting_ops(recorder.op_chains), \
            (contextlib.nullcontext() if recorder.own_graph
             else tf_internals.tf_function_calls(recorder.traced_afresh)):
        yield recorder


@contextlib.contextmanager
def _noting_ops(chains: OpChains) -> Iterator[None]:
    """The op-creation hook, where this TensorFlow still has it (else the inventory reads
    each op's stack trace: slower, same answers)."""
    try:
        hook = tf_internals.op_creation_hook(chains.on_op)
        hook.__enter__()
    except (AttributeError, ImportError):
        yield
        return
    try:
        yield
    finally:
        hook.__exit__(None, None, None)
