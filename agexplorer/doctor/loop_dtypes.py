"""A staged loop's variable started as a Python number of the wrong dtype (AGX010).

``total = 0`` then ``for x in xs: total = total + x`` over float32 tensors runs eagerly
(Python's 0 meets a float32 tensor and becomes one), but in a tf.function AutoGraph stages
the loop and makes each loop variable a tensor before it starts: ``total`` an int32 tensor,
which keeps its dtype on every iteration. The body's ``total + x`` then adds float32 to
int32 and tracing raises TypeError ("Input 'y' of 'AddV2' Op has type float32 that does not
match type int32 of argument 'x'"), at the body's line, before AutoGraph's own check of the
loop variables (AGX010's other case, loop_shapes.py) could say so.
"""

from __future__ import annotations

import re
from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import LOOP_NODES

# TensorFlow's words for an op given two dtypes (graph mode: the op's own check).
MISMATCH = re.compile(r"Input '\w+' of '\w+' Op has type (\w+) that does not match type "
                      r"(\w+) of argument '\w+'")
# What a Python number becomes when AutoGraph makes it a loop variable.
PYTHON_DTYPES = {int: "int32", float: "float32"}
# The finding's own words for the dtype the body gives (the rewrite reads it back).
GIVES = re.compile(r"the body gives it (\w+) values")


def loop_dtypes(exam: ExaminedFunction) -> None:
    """AGX010: the trace raised a dtype mismatch at a line inside a staged loop's body, and
    a name that line reads is assigned in that body and started before the loop, in the
    function's body, as a Python number of one of the two dtypes."""
    line = exam.failed_at("that does not match type")
    said = MISMATCH.search(exam.failure_text()) if line is not None else None
    if said is None or line is None:
        return
    loop = _staged_loop_around(exam, line)
    if loop is None:
        return
    read = {n.id for n in gast.walk(_statement_at(loop, line)) if isinstance(n, gast.Name)}
    for name, start in starts(exam.func, loop).items():
        value = number(start.value)
        if value is None:
            continue
        first = PYTHON_DTYPES[type(value)]
        if name not in read or name not in _assigned(loop) or first not in said.groups():
            continue
        other = said[2] if said[1] == first else said[1]
        if other == first:
            continue
        new = started_as(exam.mod.tf_name or "tf", value, other)
        if new is None:  # no number of that dtype says the same (a float for an int body)
            continue
        kind = "for" if isinstance(loop, gast.For) else "while"
        exam.add("AGX010", loop,
                 f"`{name}` starts as the Python {type(value).__name__} "
                 f"{exam.mod.segment(start.value)} (line {start.lineno}), which AutoGraph makes "
                 f"{'an' if first[0] == 'i' else 'a'} {first} tensor as the staged {kind} "
                 "loop starts; the body gives it "
                 f"{other} values (line {line}), and a staged loop's variable keeps one dtype, "
                 "so tracing fails (eagerly, Python's number would have taken the tensor's "
                 "dtype)",
                 f"start `{name}` with the dtype the loop gives it: `{name} = {new}`.",
                 "trace", subject=name, cause=True)
        return


def starts(func: Any, loop: Any) -> dict[str, Any]:
    """The last ``name = <number>`` (a Python int or float, signed) before ``loop`` among the
    statements of the def ``func``'s body, by name."""
    found: dict[str, Any] = {}
    for stmt in func.body:
        if stmt is loop:
            break
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name):
            if number(stmt.value) is not None:
                found[stmt.targets[0].id] = stmt
            else:
                found.pop(stmt.targets[0].id, None)  # set to something else since
    return found


def started_as(tf: str, number: int | float, dtype: str) -> str | None:
    """The start of ``dtype`` that is the same number, as eager Python would have converted
    it: a Python int for an integer dtype, a float for a floating one (an int too); a
    literal where a Python number becomes that dtype (int32, float32), else
    ``tf.constant(number, tf.<dtype>)``. None for a float and an integer dtype (eagerly
    that fails as well; the body's value may be what is meant to change)."""
    if dtype.startswith(("float", "bfloat", "half")):
        value = repr(float(number))
    elif dtype.startswith(("int", "uint")) and isinstance(number, int):
        value = str(number)
    else:
        return None
    return value if dtype in ("float32", "int32") else f"{tf}.constant({value}, {tf}.{dtype})"


def number(node: Any) -> int | float | None:
    """The Python int or float a literal (maybe negated) gives; None otherwise (a bool too)."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) in PYTHON_DTYPES:
        return sign * node.value
    return None


def _staged_loop_around(exam: ExaminedFunction, line: int) -> Any:
    """The innermost for/while whose body holds ``line`` and which the trace staged."""
    around = [n for n in exam.nodes() if isinstance(n, LOOP_NODES)
              and n.body and n.body[0].lineno <= line <= (n.end_lineno or n.lineno)]
    loop = max(around, key=lambda n: n.lineno, default=None)
    verdict = exam.verdict(loop) if loop is not None else None
    return loop if verdict is not None and verdict.verdict in ("staged", "mixed") else None


def _statement_at(loop: Any, line: int) -> Any:
    """The innermost statement of ``loop``'s body that holds ``line``."""
    found = loop
    for node in gast.walk(loop):
        if isinstance(node, gast.stmt) and node is not loop \
                and node.lineno <= line <= (node.end_lineno or node.lineno):
            found = node if found is loop or node.lineno >= found.lineno else found
    return found


def _assigned(loop: Any) -> set[str]:
    """The names the loop's body assigns (``=``, ``+=``...)."""
    names = set()
    for node in gast.walk(loop):
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            names |= {n.id for t in targets for n in gast.walk(t) if isinstance(n, gast.Name)}
    return names
