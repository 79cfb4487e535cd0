"""Every trace of a running program, as one log record: function, arguments, why it traced, verdicts.

One :class:`TraceRecorder` is installed for the whole run (``tf_internals.patched_tracing``).
Each new trace gets its own engine :class:`Recorder` (AutoGraph's operators are patched
for that trace only, so a program that is not tracing runs untouched); a trace nested in
another (a tf.function called while an outer one traces) patches on top of the outer's,
so both see its statements, as the outer graph holds them too.
"""

from __future__ import annotations

import contextlib
import inspect
import linecache
import os
import re
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from agexplorer.engine.calltree import (
    FileIndex,
    Reach,
    Root,
    build_call_tree,
    root_verdicts,
    with_line_counts,
)
from agexplorer.engine.counters import Counters, Counts
from agexplorer.engine.fallback import fallback_verdicts
from agexplorer.engine.inventory import build_inventory
from agexplorer.engine.recorder import Recorder, recording
from agexplorer.engine.unconverted_raise import tensorflow_words, unconverted_advice
from agexplorer.engine.usercode import UserCode
from agexplorer.engine.verdicts import build_verdicts
from agexplorer.model.retrace import Argument
from agexplorer.model.text import plural
from agexplorer.record.failure import first_line
from agexplorer.record.reached import CallTexts, Entry, Reached
from agexplorer.retrace.args import (
    Change,
    call_arguments,
    changes,
    differences,
    relaxed_for,
)
from agexplorer.runlog.causes import variables_fix

# Keras 3: model.build(shape) on a subclassed model without its own build() creates no
# weights (Keras only warns), so the advice is what does create them.
_VARIABLES = ("the first trace created variables ({what}), so tf.function traced again with "
              "variable creation forbidden; to save this trace, create them before the first "
              "call: {fix}")
# Who made them (_noting_variables), in words.
_MADE_BY = {("model",): "{n} of the model's, its layers' weights built on the first call",
            ("optimizer",): "{n} of the optimizer's, its slots built on the first call",
            ("model", "optimizer"): "{n}: the model's layers' weights and the optimizer's "
                                    "slots, built on the first call",
            (): "a layer's weights or an optimizer's slots built on the first call"}
_UNSEEN = ("same arguments as trace {where}: something else tf.function keys on changed (a "
           "captured value, the device, or the graph it was called from)")


@dataclass
class _Inside:
    """What the traces made inside an open trace did: the statements (file, line) they
    reached (a `for x in ds:` body, which tf.data traces as a function of its own: not
    "unreached" in the outer) and the names of the functions they made (a ReduceDataset's
    body, walked as control flow: counted in its own record, not again in the outer's)."""

    reached: set[tuple[str, int]] = field(default_factory=set)
    names: set[str] = field(default_factory=set)


@dataclass
class _Earlier:
    """The traces one tf.function made so far: their arguments and scopes."""

    code: Any = None  # the traced function's code: an id reused by another tf.function
    function: Callable[[], Any] | None = None  # a weak reference to the function it traces
    arguments: list[list[Argument]] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)  # their numbers in the log (the run's)
    own: list[int] = field(default_factory=list)  # their numbers among the function's traces

    def traces(self, function: Any) -> bool:
        """Whether ``function`` is the one this tf.function traced (where that can be told)."""
        return self.function is None or self.function() is _unwrap(function)

    def remember(self, numbers: tuple[int, int], arguments: list[Argument], scope: str) -> None:
        """One more trace: its (log, own) numbers, arguments and variable-creation scope."""
        self.numbers.append(numbers[0])
        self.own.append(numbers[1])
        self.arguments.append(arguments)
        self.scopes.append(scope)


# Where an optimizer's code lives: Keras 3's and tf-keras's optimizers/ folders, and
# TensorFlow's v1 optimizers and their slot creator.
_OPTIMIZER_CODE = re.compile(r"[\\/]optimizers[\\/]|[\\/]training[\\/](?:slot_creator|"
                             r"optimizer)\.py$")
_FRAMES_LOOKED_AT = 80  # a variable's creation is this deep in its maker's call at most


@contextlib.contextmanager
def _noting_variables(made: dict[str, int]) -> Iterator[None]:
    """Within the block, count each variable created by who made it: "optimizer" where an
    optimizer's code is on the stack (its slots, its iteration count), else "model"."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()

    def creator(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        frame: FrameType | None = sys._getframe(1)
        kind = "model"
        for _ in range(_FRAMES_LOOKED_AT):
            if frame is None:
                break
            if _OPTIMIZER_CODE.search(frame.f_code.co_filename):
                kind = "optimizer"
                break
            frame = frame.f_back
        made[kind] = made.get(kind, 0) + 1
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        yield


class TraceRecorder:
    """Turns each trace into a JSON-ready record and hands it to ``write`` as soon as it ends."""

    def __init__(self, write: Callable[[dict], None], user_code: UserCode) -> None:
        self.write = write
        self.user_code = user_code
        self.index = FileIndex()
        self.count = 0
        # (file, function, line) -> traces so far: a trace's number among its function's,
        # as the summary groups them (two tf.functions of one Python function count as one)
        self._per_function: dict[tuple[Any, ...], int] = {}
        # id(the tf.function's trace cache) -> its traces so far (the cache has __slots__
        # and no weak references; keeping it alive would keep every graph alive)
        self._earlier: dict[int, _Earlier] = {}
        self._analysis_s = 0.0  # time spent on records, taken out of enclosing traces' time
        self._open: list[int] = []  # the traces in progress, outermost first
        self._recorders: list[Recorder] = []  # and their recorders
        self._inner_s: list[float] = []  # and the seconds of the traces made inside each
        self._inside: list[_Inside] = []  # and what the traces made inside each did
        self._calls = CallTexts()
        # trace number -> the variables it created, by who made them ("model", "optimizer")
        self._made: dict[int, dict[str, int]] = {}
        # Counters compiled into the user's functions: how often each if/for/while of code
        # AutoGraph never converted ran while a trace was made (see engine/counters.py).
        from agexplorer.engine import tf_internals

        self.counters = Counters(user_code, graph=tf_internals.default_graph)
        # The recording process: a copy the program forks traces unrecorded (its records,
        # numbered as the parent's are, would interleave with them in the one log).
        self._pid = os.getpid()

    def on_trace(self, trace: Callable[[], Any], python_function: Any, args: tuple, kwargs: dict,
                 scope: str, cache: Any, relaxing: bool = False) -> Any:
        """Run ``trace()`` under a fresh engine recorder, then write its record
        (``relaxing``: the tf.function has reduce_retracing=True)."""
        if os.getpid() != self._pid:
            return trace()
        self.count += 1
        number = self.count
        self.counters.install()  # the user's functions defined since the last trace
        place = _place(python_function, self.user_code, self.index)
        place.code = self.counters.original(place.code)
        root, unit = place.root, place.unit
        anchor_unit = None
        if not place.user:  # a library's tf.function (Keras's train step, tf.data's map)
            root, anchor_unit = self._anchor() or (root, None)
        anchored = place.user or root is not place.root
        called = None if anchor_unit is None else {
            "file": root.file, "function": anchor_unit, "line": root.def_line,
            "call": root.qualname if root.qualname != anchor_unit else None,
            "text": linecache.getline(root.file, root.def_line).strip()}
        # As the summary counts them: a library's function per line of the user's that
        # asked for it (each ds.map makes a tf.function of tf.data's one wrapped_fn).
        key = (place.file, place.function, place.line) + (
            (called["file"], called["line"], called["call"]) if called else ())
        own = self._per_function[key] = self._per_function.get(key, 0) + 1
        arguments = call_arguments(_parameters(python_function), args, kwargs)
        recorder = Recorder(root.file if anchored else "",
                            (root.first_line, root.end_line) if anchored else (0, -1),
                            self.user_code, self.index.names_for, own_graph=True)
        seen = Reached(recorder, self.index)
        parent = self._open[-1] if self._open else None
        outer = self._recorders[-1] if self._recorders else None
        self._open.append(number)
        self._recorders.append(recorder)
        self._inner_s.append(0.0)
        self._inside.append(_Inside())
        before = self._analysis_s
        t0 = time.perf_counter()
        made: dict[str, int] = {}  # the variables it creates, by who made them
        try:
            with recording(recorder), (outer.pause() if outer else contextlib.nullcontext()), \
                    self.counters.counting(seen.entered) as counts, \
                    (_noting_variables(made) if scope == "VARIABLE_CREATION"
                     else contextlib.nullcontext()):
                concrete = trace()
        except BaseException as exc:
            elapsed = self._own_time(t0, before)
            self._open.pop()
            self._recorders.pop()
            failed, fix = _one_line(exc), unconverted_advice(exc, self.index, self.user_code)
            if fix is not None:  # TensorFlow's own advice ("decorate it") does not apply
                failed = tensorflow_words(failed)
            self._safely(lambda: self.write({**self._record(
                (number, own), place, arguments, scope, (cache, python_function), elapsed,
                parent, error=failed), **({"called_from": called} if called else {}),
                **({"fix": fix} if fix is not None else {}),
                "reached": _reached_before_failing(seen, self.index)}))
            raise
        if made:
            self._made[number] = made
        inside = self._inside[-1]  # complete now: the traces inside this one are done
        elapsed = self._own_time(t0, before)
        self._open.pop()
        self._recorders.pop()
        t1 = time.perf_counter()

        def analyse() -> None:
            traced = _traced_arguments(concrete, python_function) if relaxing else None
            record = self._record((number, own), place, arguments, scope,
                                  (cache, python_function), elapsed, parent, traced=traced)
            record.update(_verdicts(concrete, recorder, root, anchored, unit, self.user_code,
                                    self.index, seen, counts, self.counters.slots,
                                    frozenset(inside.names)))
            record["statements"] = _outside(record.get("statements") or [], inside.reached)
            if self._inside:  # this trace is inside another: what it reached and made
                outer = self._inside[-1]
                outer.reached.update((v["file"], v["line"]) for v in record["statements"]
                                     if v.get("verdict") != "unreached")
                name = getattr(concrete, "name", None)
                if name:
                    outer.names.add(name.decode() if isinstance(name, bytes) else str(name))
            if called is not None:
                record["called_from"] = called
            self.write(record)

        self._safely(analyse)
        self._analysis_s += time.perf_counter() - t1
        return concrete

    def _own_time(self, t0: float, analysis_before: float) -> float:
        """The trace's own seconds since ``t0``: without the records made meanwhile, nor the
        traces made inside it (each has its own), which count in the enclosing trace's."""
        spent = time.perf_counter() - t0 - (self._analysis_s - analysis_before)
        done = self._inside.pop()
        if self._inside:  # the enclosing trace's inner traces did this too
            self._inside[-1].reached |= done.reached
            self._inside[-1].names |= done.names
        inner = self._inner_s.pop()
        if self._inner_s:
            self._inner_s[-1] += spent
        return spent - inner

    def _anchor(self) -> tuple[Root, str] | None:
        """Where the user's code asked for a library's trace: its innermost frame on the
        stack (``model.fit(...)``, ``dataset.map(fn)``), as a root of one line named by the
        call on it (``model.fit``; the enclosing function where no call is recognised). The
        trace's ops and paths start there, as a user tf.function's start at its own lines;
        None when no user frame is on the stack. Also: the function holding that line."""
        from agexplorer.engine import tf_internals

        frames = list(tf_internals.tf_stack_frames())
        mine = [i for i, f in enumerate(frames) if f.filename in self.user_code]
        if not mine:
            return None
        at = frames[mine[-1]]
        file, line = at.filename, at.lineno
        unit = self.index.unit_at(file, line)
        holder = unit.qualname if unit is not None else "<module>"
        callees = [f.name for f in frames[mine[-1] + 1:]]
        name = self._calls.text(file, line, callees) or holder
        return Root(file, name, line, line, line), holder

    @property
    def analysis_s(self) -> float:
        """Seconds spent making records (verdicts, op inventories), outside the traces."""
        return self._analysis_s

    def _safely(self, work: Callable[[], None]) -> None:
        """Recording is never worth the user's program: a failure here is logged, not raised."""
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - the program goes on; the log says why
            self.write({"type": "note", "text": f"a trace could not be recorded "
                        f"({type(exc).__name__}: {exc})"})

    def _record(self, numbers: tuple[int, int], place: _Place, arguments: list[Argument],
                scope: str, cache: Any, trace_s: float, parent: int | None,
                error: str | None = None, traced: list[Argument] | None = None) -> dict:
        """``numbers``: the trace's number in the log, and among its function's traces;
        ``traced``: the arguments the trace was made for, where reduce_retracing relaxed
        them (None dimensions)."""
        number, own = numbers
        kind, reason, compared, causes = self._why(numbers, arguments, scope, cache, place.code,
                                                   traced)
        return {"type": "trace", "trace": number, "number": own, "file": place.file,
                "function": place.function, "line": place.line, "user": place.user,
                "kind": kind, "reason": reason, "compared_with": compared, "causes": causes,
                "inside": parent,
                "arguments": [{"name": a.name, **a.to_dict()} for a in arguments],
                "trace_s": round(trace_s, 6), "error": error}

    def _why(self, numbers: tuple[int, int], arguments: list[Argument], scope: str, cache: Any,
             code: Any, traced: list[Argument] | None = None
             ) -> tuple[str, str | None, int | None, list[dict]]:
        """("first" | "retrace", why it traced again, which earlier trace it is compared with
        (its number in the log, as ``trace`` is), what changed: ``causes``, one
        ``{"name", "change"}`` per argument, or one with no name when no argument changed).
        The reason names traces by their number among the function's own traces."""
        earlier = self._history(cache, code)
        if earlier is None or not earlier.arguments:
            if earlier is not None:
                earlier.remember(numbers, arguments, scope)
            return "first", None, None, []
        try:
            best: tuple[int, int, list[Argument], list[tuple[str, Change]]] | None = None
            for i, own, before in zip(earlier.numbers, earlier.own, earlier.arguments,
                                      strict=True):
                found = changes(arguments, before)
                if best is None or len(found) <= len(best[3]):  # the latest of the closest
                    best = (i, own, before, found)
            assert best is not None
            where, own, before, found = best
            if found:
                relaxed = _relaxed(found, traced)
                reason = "; ".join(phrase.replace(f"call {own}", f"trace {own}") for _, phrase
                                   in differences(arguments, before, own, relaxed))
                causes: list[dict[str, Any]] = [{"name": name, "change": change,
                           **({"relaxed": relaxed[name]} if name in relaxed else {})}
                          for name, change in found]
            elif scope == "NO_VARIABLE_CREATION" and "VARIABLE_CREATION" in earlier.scopes:
                first = earlier.numbers[earlier.scopes.index("VARIABLE_CREATION")]
                made = self._made.get(first, {})
                made_by = sorted(made)
                what = _MADE_BY[tuple(made_by)].format(n=plural(sum(made.values()), "variable"))
                reason = _VARIABLES.format(what=what, fix=variables_fix(made_by or None, when=False))
                causes = [{"name": None, "change": "variables",
                           **({"made_by": made_by} if made_by else {})}]
            else:
                reason = _UNSEEN.format(where=own)
                causes = [{"name": None, "change": "unseen"}]
            return "retrace", reason, where, causes
        finally:
            earlier.remember(numbers, arguments, scope)

    def _history(self, owner: tuple[Any, Any], code: Any) -> _Earlier | None:
        """The earlier traces of the tf.function whose (trace cache, Python function) is
        ``owner``. A cache's id is reused once it is gone (tf.data makes a tf.function per
        ``map``, Keras one per ``make_train_function``), so the Python function it traces
        must still be the one seen: a new one is a new tf.function, not a retrace."""
        cache, function = owner
        if cache is None:  # tf.data's functions on releases without a cache: traced once
            return None
        known = self._earlier.get(id(cache))
        if known is None or known.code is not code or not known.traces(function):
            known = self._earlier[id(cache)] = _Earlier(code, _weak(_unwrap(function)))
        return known


@dataclass
class _Place:
    """Where the traced Python function is, and the unit the engine judges for it."""

    file: str
    function: str
    line: int
    user: bool
    root: Root
    unit: Any = None
    code: Any = None


def _traced_arguments(concrete: Any, python_function: Any) -> list[Argument] | None:
    """The arguments ``concrete`` was traced for (its input signature: a None where
    reduce_retracing relaxed a dimension), bound as the call's are."""
    try:
        args, kwargs = concrete.structured_input_signature
    except (AttributeError, TypeError, ValueError):
        return None
    return call_arguments(_parameters(python_function), tuple(args), dict(kwargs))


def _parameters(python_function: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(python_function)
    except (TypeError, ValueError):
        return None


def _relaxed(found: list[tuple[str, Change]], traced: list[Argument] | None
             ) -> dict[str, str]:
    """The changed shapes the trace was made relaxed for: name -> what it was traced for
    (``float32[None, 4]``)."""
    made_for = relaxed_for(traced or [])
    return {name: made_for[name] for name, change in found
            if change == "shape" and name in made_for}


def _weak(function: Any) -> Callable[[], Any] | None:
    try:
        return weakref.ref(function)
    except TypeError:  # not weakly referable: the code object alone tells them apart
        return None


def _one_line(exc: BaseException) -> str:
    text = first_line(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _unwrap(python_function: Any) -> Any:
    fn = inspect.unwrap(python_function) if python_function is not None else None
    return getattr(fn, "__func__", fn)


def _place(python_function: Any, user_code: UserCode, index: FileIndex) -> _Place:
    fn = _unwrap(python_function)
    code = getattr(fn, "__code__", None)
    if code is None:
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        return _Place("", name, 0, False, Root("", name, 0, 0, -1))
    file = os.path.abspath(code.co_filename) if not code.co_filename.startswith("<") \
        else code.co_filename
    function, line = getattr(code, "co_qualname", code.co_name), code.co_firstlineno
    unit = index.unit_at(file, line) if file in user_code else None
    if unit is None:
        return _Place(file, function, line, False, Root(file, function, line, 0, -1), None, code)
    return _Place(file, function, unit.def_line, True,
                  Root(file, unit.qualname, unit.def_line, unit.first_line, unit.end_line), unit,
                  code)


def _verdicts(concrete: Any, recorder: Recorder, root: Root, anchored: bool, unit: Any,
              user_code: UserCode, index: FileIndex, seen: Reached, counts: Counts,
              slots: list[tuple[str, int, str]], apart: frozenset[str] = frozenset()) -> dict:
    """The trace's op count and every statement's verdict across the functions it reached;
    ``anchored``: ``root`` is in the user's code (the traced function, or the line that
    asked a library to trace). Ops are those of the trace's own graph and its control
    flow's bodies: a tf.function it called made its own (its own record counts them)."""
    span = (root.first_line, root.end_line) if anchored else (0, -1)
    inventory = build_inventory(concrete, root.file if anchored else "", span, user_code,
                                recorder.op_chains, functions=False, outputs=False,
                                apart=apart)
    calls = recorder.calls
    own = []
    if unit is not None and (unit.file, unit.def_line) in seen.ran and not any(
            root.holds(c.file or "", c.line or 0) for c in calls):
        # The traced function itself ran as written (tf.function(autograph=False), or
        # marked do_not_convert): its own counters tell its statements.
        own = root_verdicts(root, fallback_verdicts(
            unit.statements, counts.tally(slots, unit.file, inventory.graph_names), unit.qualname,
            "its tf.function was made with autograph=False, or it is marked do_not_convert",
            inventory.by_line(unit.file), True, refused=False,
            iterated=counts.iterated(slots, unit.file)))
    elif unit is not None:
        own = root_verdicts(root, build_verdicts(unit.statements, calls, inventory, True,
                                                 file=root.file, chains=inventory.chains))
    entries = {key: Reach(frames, fn) for key, (fn, frames) in recorder.entries.items()}
    reached = build_call_tree(root, calls, entries, inventory, True, index, inventory.chains,
                              ran=seen.ran)
    reached = with_line_counts(reached, index, inventory,
                               lambda file: counts.tally(slots, file, inventory.graph_names),
                               lambda file: counts.iterated(slots, file))
    first = seen.first_calls()
    statements = [v.to_dict() for v in own] + [v.to_dict() for f in reached for v in f.statements]
    return {"op_count": len(inventory.ops), "statements": statements,
            "reached": [_reached(f, first.get((f.file, _def_line(f, index))))
                        for f in reached]}


def _outside(statements: list[dict], inside: set[tuple[str, int]]) -> list[dict]:
    """A trace's statements less those it never reached that a trace made inside it did
    (a `for x in ds:` loop's body, which tf.data traced as a function of its own: its
    statements are that trace's, not "never reached" in this one)."""
    return [v for v in statements
            if not (v.get("verdict") == "unreached" and (v.get("file"), v.get("line")) in inside)]


def _def_line(function: Any, index: FileIndex) -> int:
    unit = index.unit_at(function.file, function.first_line)
    return unit.def_line if unit is not None else function.first_line


def _reached_before_failing(seen: Reached, index: FileIndex) -> list[dict]:
    """The functions of the user's code a trace entered before it raised, each with its
    first call (no ops, no verdicts: the trace made no graph), so that ``doctor LOG`` can
    examine the one that failed (a ``ds.map`` function's lookup that raised)."""
    found = []
    for (file, def_line), entry in seen.first_calls().items():
        unit = index.unit_at(file, def_line)
        if unit is not None:
            found.append({"file": unit.file, "function": unit.qualname,
                          "line": unit.first_line, "op_count": None, "call_path": [],
                          **entry.to_dict()})
    return found


def _reached(f: Any, entry: Entry | None) -> dict:
    """A reached function as the record keeps it: where, its ops, how it ran, its first call."""
    found = {"file": f.file, "function": f.function, "line": f.first_line,
             "op_count": f.op_count, "converted": f.converted, "note": f.note,
             "call_path": [site.to_dict() for site in f.call_path]}
    if entry is not None:
        found.update(entry.to_dict())
    return found
