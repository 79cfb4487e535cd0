"""Checks for Python that runs only while tracing: print (AGX001), globals, lists, attributes and
Python iterators (AGX002), random (AGX007)."""

from __future__ import annotations

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import dotted_name
from agexplorer.model.text import shortened


def prints(exam: ExaminedFunction) -> None:
    """AGX001: a Python print inside the function."""
    printed = (exam.report.output or "").splitlines() if exam.report else []
    for node in exam.nodes():
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id == "print":
            text = exam.mod.segment(node)
            words = [a.value for a in node.args
                     if isinstance(a, gast.Constant) and isinstance(a.value, str) and a.value]
            seen = next((p for p in printed if words and words[0] in p), None)
            if exam.traced and seen:
                shown = shortened(seen, 70)
                message = (f"`{text}` printed {shown!r} once, while tracing; calls of "
                           "the graph print nothing")
                basis = "trace"
            else:
                message = f"`{text}` prints only while tracing, never when the graph runs"
                basis = "static"
            exam.add("AGX001", node, message, "use tf.print(...), a graph op that prints on "
                     "every call (use print only to see when tracing happens).", basis)


def assigned_globals(exam: ExaminedFunction) -> None:
    """AGX002: a global or nonlocal name assigned inside the function."""
    declared: dict[str, str] = {}
    for node in exam.nodes():
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            kind = "global" if isinstance(node, gast.Global) else "nonlocal"
            declared.update({n: kind for n in node.names})
    done: set[str] = set()
    for node in exam.nodes():
        targets = node.targets if isinstance(node, (gast.Assign, gast.Delete)) else \
            [node.target] if isinstance(node, (gast.AugAssign, gast.AnnAssign)) else []
        for target in targets:
            if isinstance(target, gast.Name) and target.id in declared \
                    and target.id not in done:
                done.add(target.id)
                name, kind = target.id, declared[target.id]
                exam.add("AGX002", node, f"`{exam.mod.segment(node)}` changes the Python "
                         f"{kind} `{name}` once per trace, not on every call: call the "
                         f"graph twice and `{name}` has moved once",
                         "keep the state in a tf.Variable made once outside the function "
                         "and update it with .assign(...) / .assign_add(...).",
                         "trace" if exam.traced else "static", name)


# The list methods that change the list in place.
_CHANGES_LIST = ("append", "extend", "insert", "remove", "pop", "clear")


def _bound_names(exam: ExaminedFunction) -> set[str]:
    """The names the function's body binds (assignments, loop targets, ``with ... as``)."""
    bound: set[str] = set()
    for node in exam.nodes():
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.For)) \
            else [item.optional_vars for item in node.items] \
            if isinstance(node, gast.With) else []
        bound |= {n.id for t in targets if t is not None for n in gast.walk(t)
                  if isinstance(n, gast.Name)}
    return bound


def changed_lists(exam: ExaminedFunction) -> None:
    """AGX002: a list of the module (``history = []`` at its top level) changed in place
    inside the function (``history.append(loss)``): once per trace, not per call."""
    local = set(exam.params) | _bound_names(exam)
    done: set[str] = set()
    for node in exam.nodes():
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                and node.func.attr in _CHANGES_LIST and isinstance(node.func.value, gast.Name)):
            continue
        name = node.func.value.id
        if name in local or name not in exam.mod.lists or name in done:
            continue
        done.add(name)
        text = exam.mod.segment(node)
        exam.add("AGX002", node, f"`{text}` changes the module's Python list `{name}` while "
                 "tracing: once per trace, not on every call (a tensor it adds is the "
                 "trace's symbolic one, of no use outside the graph), and calls of the graph "
                 "leave it alone", f"return the value and change `{name}` where you call "
                 f"the function (`{name}.append({exam.func.name}(...))`: a value each call), "
                 "or keep it in a tf.Variable made once outside (.assign(...)).",
                 "trace" if exam.traced else "static", name)


def advanced_iterators(exam: ExaminedFunction) -> None:
    """AGX002: ``next(it)`` on a Python iterator the function is given or reads from the
    module, shown by the trace: the line made no iterator op (a tf.data iterator's next()
    is one, IteratorGetNext, which the graph runs on every call)."""
    report = exam.report
    if not exam.traced or report is None or report.inventory is None:
        return
    calls = [node for node in exam.nodes()
             if isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
             and node.func.id == "next" and node.args and isinstance(node.args[0], gast.Name)]
    if not calls:  # most functions: no walk over the trace's ops
        return
    local = _bound_names(exam)
    file = getattr(report, "file", None)  # a reached helper's too (doctor/reached.py)
    lines = {node.lineno for node in calls}
    made: dict[int | None, set[str]] = {}
    for op in report.inventory.ops:
        if op.line in lines and op.file in (file, None):
            made.setdefault(op.line, set()).add(op.type)
    for node in calls:
        name = node.args[0].id
        if name in local or any(t.startswith("Iterator") for t in made.get(node.lineno, ())):
            continue
        exam.add("AGX002", node, f"`{exam.mod.segment(node)}` takes the next item of the "
                 f"Python iterator `{name}` while tracing: once per trace, so every call of "
                 "the graph gets the item taken then, and the iterator moves once per trace, "
                 "not once per call",
                 f"take the item outside and pass it in as a tensor: call "
                 f"`{exam.func.name}(tf.constant(next({name})))` and use the argument where "
                 f"`next({name})` was; or make `{name}` a tf.data iterator "
                 f"(`iter(tf.data.Dataset.from_tensor_slices(...))`), whose next() is an op "
                 "the graph runs on every call.", "trace", name)


def changed_attributes(exam: ExaminedFunction) -> None:
    """AGX002: an attribute of the instance changed in place inside a method
    (``self.calls += 1``): a Python value moves once per trace, a tf.Variable refuses it."""
    me, done = exam.instance, set()
    error = exam.report.error if exam.report else None
    for node in exam.nodes():
        target = node.target if isinstance(node, gast.AugAssign) else None
        if not (isinstance(target, gast.Attribute) and isinstance(target.value, gast.Name)
                and target.value.id == me) or target.attr in done:
            continue
        done.add(target.attr)
        name, text = f"{me}.{target.attr}", exam.mod.segment(node)
        refused = error is not None and error.line == node.lineno \
            and "variable += value" in error.message
        exam.add("AGX002", node, f"`{text}` " + (
            "on a tf.Variable is refused while tracing: that is what made tracing fail"
            if refused else f"changes the Python attribute `{name}` while tracing: once per "
            "trace, not on every call (call the graph twice and it has moved once)"),
            f"keep it in a tf.Variable made once in __init__ (`{name} = tf.Variable(0)`) "
            f"and change it with `{name}.assign_add(...)` (or .assign) inside.",
            "trace" if exam.traced or refused else "static", name, cause=refused)


def randoms(exam: ExaminedFunction) -> None:
    """AGX007: Python or NumPy random numbers drawn inside the function."""
    for node in exam.nodes():
        if not isinstance(node, gast.Call):
            continue
        func = dotted_name(node.func) or ""
        head, _, rest = func.partition(".")
        numpy = head in exam.mod.np and rest.startswith("random.")
        if (head in exam.mod.random and rest) or numpy:
            origin = "NumPy" if numpy or head != "random" else "Python"
            exam.add("AGX007", node, f"`{exam.mod.segment(node)}` draws a {origin} random "
                     "number once, while tracing: every call of the graph reuses it",
                     "use tf.random.uniform / tf.random.normal (new values on every call), "
                     "or a tf.random.Generator made once outside the function.",
                     "trace" if exam.traced else "static")
