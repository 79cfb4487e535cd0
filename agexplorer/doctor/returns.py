"""A ``return`` inside a loop AutoGraph staged (AGX011), and the ``break`` that replaces it.

AutoGraph turns a ``return`` into "set the result, stop": inside a staged loop that result
would be a loop variable with no value before the loop, so it refuses the loop ("a return
statement cannot be placed inside this TensorFlow loop"). A ``break`` it can stage: it
becomes part of the loop's condition. The fix keeps the value in a variable of the
function, leaves the loop with ``break`` and returns the variable after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import LOOP_NODES, ParsedFile, ancestors, free_name, parent_map

# TensorFlow's words when AutoGraph refuses a return inside a staged loop.
REFUSED = "return statement cannot be placed inside this TensorFlow loop"
_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)


@dataclass(frozen=True)
class ReturnInLoop:
    """A ``return`` inside a loop of a function, and what the fix needs to know of it."""

    node: Any  # the gast.Return
    loop: Any  # the loop it leaves (the outermost one around it, in the function)
    after: Any  # the statement after that loop in the same block (None: none)
    result: str  # a name free in the function for the value ("result")
    # Whether the value returned after the loop can be computed before it: it reads no
    # name the loop assigns (its target included).
    after_independent: bool
    nested: bool = False  # inside an inner loop too: a break leaves only that one


def loops_around(node: Any, parents: dict[int, Any], func: Any) -> list[Any]:
    """The loops around ``node`` inside ``func``, innermost first (none across a nested def)."""
    found = []
    for a in ancestors(node, parents, func):
        if isinstance(a, _DEFS):
            return []  # the return of a nested function
        if isinstance(a, LOOP_NODES):
            found.append(a)
    return found


def _assigned(loop: Any) -> set[str]:
    return {n.id for n in gast.walk(loop) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))}


def _read(node: Any) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _next_in_block(stmt: Any, parents: dict[int, Any]) -> Any:
    parent = parents.get(id(stmt))
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list):
            for i, s in enumerate(block):
                if s is stmt:
                    return block[i + 1] if i + 1 < len(block) else None
    return None


def describe(func: Any, node: Any, around: list[Any], parents: dict[int, Any]
             ) -> ReturnInLoop:
    """The return ``node`` and the loops ``around`` it (innermost first)."""
    loop = around[-1]
    after = _next_in_block(loop, parents)
    independent = isinstance(after, gast.Return) and after.value is not None \
        and not (_read(after.value) & _assigned(loop))
    return ReturnInLoop(node, loop, after, free_name(func, "result"), independent,
                        nested=len(around) > 1)


def fix_text(mod: ParsedFile, found: ReturnInLoop) -> str:
    """What to write instead, in the function's own names."""
    text = _fix_text(mod, found)
    if found.nested:
        text += (" A `break` leaves only the innermost loop: set `found = True` before it "
                 "(`found = False` before the loops) and add `if found: break` after each "
                 "inner loop.")
    return text


def _fix_text(mod: ParsedFile, found: ReturnInLoop) -> str:
    name, node, after = found.result, found.node, found.after
    lead = "keep the value in a variable and leave the loop with `break`, which AutoGraph " \
           "stages into the loop's condition: "
    if node.value is None:
        return (lead + "write `break` in place of `return`"
                + (", and put what follows the loop under `if not found:` (with "
                   "`found = False` before the loop and `found = True` before the `break`)."
                   if after is not None and not isinstance(after, gast.Return) else "."))
    expr = mod.segment(node.value)
    if found.after_independent:
        return (lead + f"`{name} = {mod.segment(after.value)}` before the loop, "
                f"`{name} = {expr}` then `break` in place of `return {expr}`, and "
                f"`return {name}` after the loop.")
    if isinstance(after, gast.Return) and after.value is not None:
        return (lead + f"before the loop `found = False` and `{name}` set to a value of "
                f"`{expr}`'s dtype and shape; in place of `return {expr}`: `{name} = {expr}`, "
                f"`found = True` and `break`; after the loop `if not found: {name} = "
                f"{mod.segment(after.value)}`, then `return {name}`.")
    return (lead + f"`{name}` set before the loop to a value of `{expr}`'s dtype and shape, "
            f"`{name} = {expr}` then `break` in place of `return {expr}`, and `return {name}` "
            "after the loop.")


def returns(exam: ExaminedFunction) -> None:
    """AGX011: a return inside a loop the trace staged (or that TensorFlow refused)."""
    refused_at = exam.failed_at(REFUSED)
    for node in exam.nodes():
        if not isinstance(node, gast.Return):
            continue
        around = loops_around(node, exam.parents, exam.func)
        staged = [loop for loop in around if (v := exam.verdict(loop)) is not None
                  and v.verdict == "staged"]
        failed = [loop for loop in around if refused_at is not None
                  and loop.lineno <= refused_at <= (loop.end_lineno or loop.lineno)]
        if not staged and not failed:
            continue
        loop = (failed or staged)[-1]  # the outermost: the return leaves it too
        found = describe(exam.func, node, around, exam.parents)
        message = (f"`{exam.mod.segment(node)}` sits in the loop at line {loop.lineno}, which "
                   f"AutoGraph staged as {exam.staged_as(loop)}: a staged loop cannot return "
                   "from the function" + ("; that is what made tracing fail" if failed else ""))
        exam.add("AGX011", node, message, fix_text(exam.mod, found), "trace",
                 cause=bool(failed))


def find(mod: ParsedFile, func: Any, line: int, col: int) -> ReturnInLoop | None:
    """The flagged return (at ``line``/``col``) of ``func``, for the rewrite."""
    parents = parent_map(func)
    node = next((n for n in gast.walk(func) if isinstance(n, gast.Return)
                 and n.lineno == line and mod.col(n) == col), None)
    around = loops_around(node, parents, func) if node is not None else []
    return describe(func, node, around, parents) if around else None
