"""Checks for what traces a function again: tf.function made repeatedly (AGX008), Python numbers (AGX009)."""

from __future__ import annotations

from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import DEF_NODES, LOOP_NODES, ParsedFile, dotted_name
from agexplorer.model.doctor import CODES, Finding
from agexplorer.source.targets import FILE_CALL


def functions(exam: ExaminedFunction) -> None:
    """AGX008: a tf.function made inside the function. A factory that returns the one it
    makes (``train_step = make_train_step(model)``, the usual closure over a model) is
    flagged only where the module calls it in a loop: called once, it makes one."""
    returned = _returned_names(exam.mod, exam.func)
    for node in exam.nodes():
        if isinstance(node, gast.Call) and exam.mod.is_tf(dotted_name(node.func), "function"):
            inner = exam.mod.segment(node.args[0]) if node.args else "a function"
            if _returns(node, returned, exam.func):
                _factory(exam, node, inner)
                continue
            exam.add("AGX008", node, f"`{exam.mod.segment(node)}` makes a new tf.function "
                     f"each time `{exam.func.name}` runs, so `{inner}` is traced again on "
                     "every call", "make it once, at module level, and call that one.",
                     subject=inner)
        elif isinstance(node, DEF_NODES) and any(
                exam.mod.is_tf(dotted_name(d.func if isinstance(d, gast.Call) else d), "function")
                for d in node.decorator_list):
            if node.name in returned:
                _factory(exam, node, node.name)
                continue
            exam.add("AGX008", node, f"the @tf.function `{node.name}` is defined inside "
                     f"`{exam.func.name}`: a new tf.function, traced again, on every call",
                     f"define `{node.name}` once, at module level.", subject=node.name)


def _returned_names(mod: ParsedFile, func: Any) -> set[str]:
    """The names ``func``'s own ``return`` statements return (``return step``), and the
    functions they return wrapped (``return tf.function(step)``)."""
    names = set()
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*DEF_NODES, gast.ClassDef, gast.Lambda)):
            continue
        if isinstance(node, gast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, gast.Call) and value.args \
                    and mod.is_tf(dotted_name(value.func), "function"):
                value = value.args[0]
            if isinstance(value, gast.Name):
                names.add(value.id)
        stack.extend(gast.iter_child_nodes(node))
    return names


def _returns(call: Any, returned: set[str], func: Any) -> bool:
    """Whether the tf.function ``call`` makes is what ``func`` returns: the call is a
    ``return``'s value, or it is assigned to a name that is returned."""
    for node in gast.walk(func):
        if isinstance(node, gast.Return) and node.value is call:
            return True
        if isinstance(node, gast.Assign) and node.value is call:
            return any(isinstance(t, gast.Name) and t.id in returned for t in node.targets)
    return False


def _factory(exam: ExaminedFunction, node: Any, inner: str) -> None:
    """AGX008 for a factory of tf.functions, at the first call of it that the module makes
    in a loop (none: nothing to say)."""
    name = exam.func.name
    looped = _calls_in_loops(exam.mod, name)
    if not looped:
        return
    call, loop = looped[0]
    exam.add("AGX008", node, f"`{name}` returns a new tf.function (`{inner}`) each time it "
             f"runs, and `{exam.mod.segment(call)}` runs in the loop at line {loop.lineno}: "
             "each one is traced again",
             f"call `{name}` once, before the loop, and call the tf.function it returns "
             "inside.", subject=inner)


# What runs its code once per item: a for/while, a comprehension.
_LOOPING = (*LOOP_NODES, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _calls_in_loops(mod: ParsedFile, name: str) -> list[tuple[Any, Any]]:
    """(call, its innermost loop or comprehension) for each call of the module's function ``name`` that
    sits in a loop, anywhere in the module."""
    found = []

    def visit(node: Any, loop: Any) -> None:
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.Call) and isinstance(child.func, gast.Name) \
                    and child.func.id == name and loop is not None:
                found.append((child, loop))
            visit(child, child if isinstance(child, _LOOPING) else loop)

    visit(mod.tree, None)
    return found


def module_loops(mod: ParsedFile) -> list[Finding]:
    """AGX008 at module level: ``tf.function(...)`` called inside a top-level for/while."""
    found = []
    for stmt in mod.tree.body:
        stack = [stmt] if isinstance(stmt, LOOP_NODES) else \
            [s for s in getattr(stmt, "body", []) if isinstance(s, LOOP_NODES)] \
            if isinstance(stmt, gast.If) else []
        for loop in stack:
            for node in gast.walk(loop):
                if isinstance(node, gast.Call) and mod.is_tf(dotted_name(node.func), "function"):
                    wrapped = mod.segment(node.args[0]) if node.args else None
                    found.append(Finding(
                        code="AGX008", line=node.lineno, col=mod.col(node),
                        message=f"`{mod.segment(node)}` runs in the loop at line {loop.lineno}: "
                        "a new tf.function every iteration, each traced again",
                        why=CODES["AGX008"][1], fix="make the tf.function once, before the "
                        "loop, and call it inside.", subject=wrapped))
    return found


def scalars(exam: ExaminedFunction) -> None:
    """AGX009: a Python int/float/bool passed to a parameter the function uses (not for a
    function the run only reached from another one's trace: a number it is passed is a
    constant of that trace, which no new value of it retraces; nor for a plain function with
    the numbers of the file's own call of it, which runs it in Python, untraced)."""
    if not exam.traced_alone:
        return
    report = exam.report
    if report is not None and not report.decorated and (report.call_origin or "").startswith(
            FILE_CALL):
        return  # the program calls this plain function in Python: nothing traces it there
    for param, (kind, detail) in exam.args.items():
        if kind != "python" or param not in exam.params:
            continue
        type_name, value = detail
        uses = sorted((n for n in exam.nodes() if isinstance(n, gast.Name)
                       and n.id == param and isinstance(n.ctx, gast.Load)),
                      key=lambda n: (n.lineno, n.col_offset))
        if not uses:
            continue
        if type_name == "bool" and all(_only_tests(exam, u) for u in uses):
            continue
        origin = exam.origin
        first = uses[0]
        exam.add("AGX009", first, f"`{param}` is the Python {type_name} {value} (from "
                 f"{origin}): tracing bakes it into the graph as a constant, so every new "
                 f"value of `{param}` traces `{exam.func.name}` again",
                 f"pass a tensor, e.g. tf.constant({value}), or give the function an "
                 "input_signature.", "trace" if exam.traced else "static", param)


def _only_tests(exam: ExaminedFunction, use: Any) -> bool:
    parent = exam.parents.get(id(use))
    if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
        use, parent = parent, exam.parents.get(id(parent))
    return isinstance(parent, (gast.If, gast.While, gast.IfExp)) and parent.test is use
