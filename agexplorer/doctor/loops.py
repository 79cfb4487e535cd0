"""Checks for loops: a list appended to in a loop (AGX003), a loop unrolled while tracing (AGX004)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import LOOP_NODES, appended_lists, dotted_name
from agexplorer.engine.hints import STARTED, stacks
from agexplorer.model.report import IN_PYTHON
from agexplorer.model.text import plural
from agexplorer.model.values import PYTHON_SCALARS, ValueKind

# A Python loop over these runs a count of times (not once per item of a container).
_COUNTED: frozenset[ValueKind] = frozenset({"range", "numpy"})


def python_lists(exam: ExaminedFunction) -> set[str]:
    """The names of the Python lists the function makes, and the module's literal lists."""
    local = set()
    for node in exam.nodes():
        if isinstance(node, gast.Assign) and isinstance(node.value, (gast.List, gast.ListComp)):
            local |= {t.id for t in node.targets if isinstance(t, gast.Name)}
        elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) \
                and dotted_name(node.value.func) == "list":
            local |= {t.id for t in node.targets if isinstance(t, gast.Name)}
    return local | {n for n in exam.mod.lists if n not in exam.params}


def _loop_mode(exam: ExaminedFunction, loop: Any) -> str:
    """``staged``, ``unrolled`` (a count: range, a while), ``container``, ``unreached``."""
    v = exam.verdict(loop)
    if v is not None and v.verdict == "staged":
        return "staged"
    if v is not None and v.verdict in IN_PYTHON:  # mixed: Python ran some copies
        if v.intended:
            return "container"  # one step per variable: unrolling is the point
        if isinstance(loop, gast.While) or v.value_kind in _COUNTED or _stacks(v):
            return "unrolled"
        return "container"
    if exam.traced:
        return "unreached"
    if isinstance(loop, gast.While):
        return "unknown"
    it = dotted_name(loop.iter.func) if isinstance(loop.iter, gast.Call) else None
    if it == "range" or exam.mod.is_tf(it, "range"):
        return "unknown"
    return "container"


def _stacks(v: Any) -> bool:
    """Whether the verdict's fix makes its loop over a container one graph loop: such a
    loop unrolls by mistake (see :func:`agexplorer.engine.hints.stacks`)."""
    return stacks(v.hint)


def list_appends(exam: ExaminedFunction) -> Iterator[Any]:
    """Every ``name.append(...)`` call in the function on one of its Python lists."""
    lists = python_lists(exam)
    for node in exam.nodes():
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr == "append" and isinstance(node.func.value, gast.Name) \
                and node.func.value.id in lists:
            yield node


def appends(exam: ExaminedFunction) -> None:
    """AGX003: .append on a Python list inside a loop."""
    for node in list_appends(exam):
        loop = exam.loop_of(node)
        if loop is None:
            continue
        name, mode = node.func.value.id, _loop_mode(exam, loop)
        v = exam.verdict(loop)
        where = f"the loop at line {loop.lineno}"
        if mode == "staged":
            message = (f"`{name}.append(...)` sits in {where}, which AutoGraph staged as "
                       f"{exam.staged_as(loop)}: the body was traced once, so `{name}` holds one "
                       "tensor from inside the loop's graph")
            cause = exam.out_of_scope_after(loop)
            if cause:
                message += (f"; using it after the loop (line {exam.report.error.line}) is "
                            "what made tracing fail")
            basis = "trace"
        elif mode == "unrolled":
            cause = False
            message = (f"`{name}.append(...)` works here only because {where} ran in Python "
                       f"(unrolled x{v.iterations}); staged as a tf.while_loop (tf.range, a "
                       "tensor condition) it would collect one placeholder and fail")
            basis = "trace"
        elif mode == "unknown":
            cause = False
            message = (f"`{name}.append(...)` in {where}: if the loop is staged the list "
                       f"gets one placeholder and fails; {exam.not_traced()}")
            basis = "static"
        else:
            continue
        exam.add("AGX003", node, message, f"collect into a tf.TensorArray: `{name} = "
                 f"tf.TensorArray(dtype, size=n)` and `{name} = {name}.write(i, value)` in "
                 f"the loop (size=0, dynamic_size=True and .write({name}.size(), value) when "
                 f"the count is unknown), then `{name}.stack()`.", basis, name, cause)


def _runs_differ(exam: ExaminedFunction, loop: Any) -> bool:
    """Whether the trace took an if inside ``loop`` both ways (its runs made different ops)."""
    return any(isinstance(node, gast.If) and (v := exam.verdict(node)) is not None
               and v.verdict == "python" and v.branch is None
               for stmt in loop.body for node in gast.walk(stmt))


# TensorFlow's words when a loop Python runs meets a tensor condition for a break or return
# (a for over a Python value; a while whose condition was a Python bool).
_TENSOR_STOPS = ("depend on a TF condition are not supported in Python for loops",
                 "started as non-Tensor, then changed to Tensor")


def _tensor_stop_at(exam: ExaminedFunction, loop: Any) -> bool:
    """Whether the trace failed at ``loop``'s header because a break or return inside it
    depends on a tensor (TensorFlow's own words, at its line)."""
    return any(exam.failed_at(words) == loop.lineno for words in _TENSOR_STOPS)


def stops_inside(loop: Any) -> bool:
    """Whether ``loop``'s body holds a ``return``, or a ``break`` of its own (not of a loop
    inside it): what a tensor condition could stop it with."""
    def walk(nodes: list[Any], own: bool) -> bool:
        for node in nodes:
            if isinstance(node, gast.Return) or (own and isinstance(node, gast.Break)):
                return True
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                                 gast.ClassDef)):
                continue
            inner = own and not isinstance(node, LOOP_NODES)
            if walk([c for c in gast.iter_child_nodes(node) if isinstance(c, gast.stmt)], inner):
                return True
        return False

    return walk(loop.body, True)


def python_starts(func: Any, loop: Any) -> list[Any]:
    """The assignments ``name = <number or bool>`` before ``loop``, in the body of the def
    ``func``, of the names its condition reads: what keeps the condition a Python bool."""
    read = {n.id for n in gast.walk(loop.test) if isinstance(n, gast.Name)}
    found = {}
    for stmt in func.body:
        if stmt is loop:
            break
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in read \
                and isinstance(stmt.value, gast.Constant) \
                and type(stmt.value.value) in (int, float, bool):
            found[stmt.targets[0].id] = stmt
    return list(found.values())


def _tensor_start_fix(exam: ExaminedFunction, loop: Any) -> str:
    """How to make a while loop's condition a tensor from its first step."""
    tf = exam.mod.tf_name or "tf"
    then = ("so that AutoGraph stages the loop from its first step and its `break` becomes "
            "part of the loop's condition." if stops_inside(loop) else
            "so that AutoGraph stages the loop from its first step (its body makes the "
            "condition a tensor).")
    if isinstance(loop.test, gast.Constant) and loop.test.value is True:
        return f"write `while {tf}.constant(True):`, {then}"
    starts = python_starts(exam.func, loop)
    if starts:
        made = ", ".join(f"`{s.targets[0].id} = {tf}.constant({exam.mod.segment(s.value)})`"
                         for s in starts)
        return f"start the condition's Python values as tensors ({made}), {then}"
    return f"make the condition a tensor from its first step (compute it with tf ops), {then}"


def static_sizes(loop: Any) -> list[Any]:
    """The static sizes (``x.shape[0]``) a ``while``'s condition compares: Python ints while
    tracing, which ``tf.shape(x)[0]`` reads when the graph runs."""
    from agexplorer.doctor.shapes import static_size

    test = loop.test.values[0] if isinstance(loop.test, gast.BoolOp) else loop.test
    if not isinstance(test, gast.Compare) or len(test.ops) != 1:
        return []
    return [side for side in (test.left, *test.comparators) if static_size(side)]


def loops(exam: ExaminedFunction) -> None:
    """AGX004: a for/while the trace ran in Python and unrolled."""
    for node in exam.nodes():
        if not isinstance(node, LOOP_NODES):
            continue
        v = exam.verdict(node)
        literal = isinstance(node, gast.For) and isinstance(node.iter, (gast.List, gast.Tuple))
        header = (f"for {exam.mod.segment(node.target)} in {exam.mod.segment(node.iter)}:"
                  if isinstance(node, gast.For) else f"while {exam.mod.segment(node.test)}:")
        if v is not None and v.verdict == "python":
            if not v.iterations or v.intended:
                continue  # an unroll on purpose (one step per variable) is no pitfall
            if isinstance(node, gast.For) and v.hint is None:
                continue  # over layers or names (["relu", "tanh"]): no rewrite applies
            # A container's items that stack (numbers, same-shaped tensors; the verdict's
            # fix says so, and the doctor's rewrite tries it) make one loop; other items
            # (layers, functions) unroll on purpose.
            counted = isinstance(node, gast.While) or literal or \
                v.value_kind in _COUNTED or _stacks(v)
            if not counted:
                continue  # a Python container (layers, functions): unrolling is the point
            per = v.ops_created // v.iterations
            even = per * v.iterations == v.ops_created and not _runs_differ(
                exam, node)  # an if inside went both ways: no per-run count
            cause = _tensor_stop_at(exam, node)
            ops = ("then tracing failed on it: a `break` or `return` on a tensor condition "
                   "cannot stop a loop Python runs" if cause and stops_inside(node) else
                   "then tracing failed on it: its body made the condition a tensor, which a "
                   "loop Python runs cannot turn into a graph loop midway" if cause else
                   "before tracing failed (its ops were not counted)" if not exam.traced else
                   "adding no ops: its result is folded into the graph as a constant"
                   if not v.ops_created else
                   f"its {plural(per, 'op')} copied {v.iterations} times "
                   f"({v.ops_created} ops)" if even else f"making {v.ops_created} ops in all")
            times = f"unrolled {plural(v.iterations, 'time')}"
            python = [n.name for n in v.names if n.kind in PYTHON_SCALARS]
            if isinstance(node, gast.While):
                said = ", ".join(f"{n.name} is {n.text}" for n in v.names)
                message = (f"`{header}` ran in Python while tracing (its condition was a "
                           f"Python bool{': ' + said if said else ''}): {times}, {ops}")
                # The verdict's fix where the doctor's rewrite tries it: a parameter's
                # number, a counter started as a tensor (`i = tf.constant(0)`), a static
                # size read as tf.shape's.
                started = STARTED.search(v.hint or "")
                tried = static_sizes(node) or (started is not None and any(
                    s.targets[0].id == started["name"] for s in python_starts(exam.func, node)))
                fix = _tensor_start_fix(exam, node) if cause else \
                    v.hint if (python and python[-1] in exam.params) or tried \
                    else ("make the condition a tensor (compare tensors, e.g. a counter made "
                          "with tf.constant) so AutoGraph builds one tf.while_loop.")
            else:
                message = (f"`{header}` ran in Python while tracing, over {v.value}: "
                           f"{times}, {ops}")
                fix = v.hint
                it = node.iter
                if isinstance(it, gast.Call) and dotted_name(it.func) == "range" \
                        and not exam.keras3:
                    tf = exam.mod.tf_name or "tf"
                    bounds = ", ".join(exam.mod.segment(a) for a in it.args)
                    lists = [name for name, _ in appended_lists(node) if name in python_lists(exam)]
                    arrays = "".join(f" and collect `{name}` in a {tf}.TensorArray (AGX003)"
                                     for name in lists)
                    fix = (f"iterate over {tf}.range({bounds}){arrays} so AutoGraph builds "
                           "one tf.while_loop whatever the count.")
            exam.add("AGX004", node, message, fix, "trace", cause=cause)
        elif isinstance(node, gast.While) and (v is None or v.verdict == "unreached") \
                and _tensor_stop_at(exam, node):
            exam.add("AGX004", node, f"`{header}` started in Python (its condition was a "
                     "Python bool), and a `break` or `return` inside it depends on a tensor, "
                     "which cannot stop a loop Python runs: that is what made tracing fail",
                     _tensor_start_fix(exam, node), "trace", cause=True)
        elif (v is None or v.verdict == "unreached") and not exam.traced \
                and isinstance(node, gast.For):
            call = node.iter if isinstance(node.iter, gast.Call) else None
            fixed = call is not None and dotted_name(call.func) == "range" and call.args and \
                all(isinstance(a, gast.Constant) and isinstance(a.value, int) for a in call.args)
            if fixed or literal:
                exam.add("AGX004", node, f"`{header}` loops over a Python value, so it "
                         f"would unroll while tracing; not confirmed: {exam.not_traced()}",
                         "iterate over tf.range(...) (or a tensor) so AutoGraph builds one "
                         "tf.while_loop.")
