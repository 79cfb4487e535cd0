"""A staged ``if`` whose branches do not give the same values (AGX014), or that append to a
Python list made outside them (AGX018).

AutoGraph stages an ``if`` on a tensor as a tf.cond, which returns every value the ``if``
sets (and the function's result, where a branch returns) from both branches, with one
dtype. TensorFlow's words at the ``if``'s line say which is missing: "'y' must also be
initialized in the else branch", "the else branch must also have a return statement.",
"'y' has dtype int32 in the main branch, but dtype float32 in the else branch". A
``tf.cond(...)`` written by hand whose branches give different results is the same case:
TensorFlow's message, with what each branch gave, names it at the call.
"""

from __future__ import annotations

import re
from typing import Any

import gast

from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.loops import list_appends
from agexplorer.doctor.parse import LOOP_NODES, ParsedFile, ancestors, dotted_name

_UNSET = re.compile(r"'(?P<name>[^']+)' must also be initialized in the (?P<branch>\w+) branch")
_NO_RETURN = re.compile(r"the (?P<branch>\w+) branch must also have a return statement")
_DTYPES = re.compile(r"'(?P<name>[^']+)' has dtype (?P<main>\w+) in the main branch, but dtype "
                     r"(?P<other>\w+) in the else branch")


def _branch(word: str) -> str:
    """AutoGraph's "main" branch is the if's own (true) branch."""
    return "if (true)" if word in ("main", "if") else "else (false)"


# tf.cond's own words, with what each branch gave (model/errors.py raised_line)
_COND = re.compile(r"tf\.cond must have the same number, type, and overall structure of "
                   r"return values\.? \(the true branch gives (?P<true>.*), the false branch "
                   r"(?P<false>.*)\)")
_ONE_TENSOR = re.compile(r"(?P<dtype>[a-z]+\d*)\[[^\]]*\]")


def branches(exam: ExaminedFunction) -> None:
    """AGX014: the staged if on the line where tracing raised one of those errors, or the
    ``tf.cond(...)`` call there whose branches gave different results."""
    line = exam.failed_at()
    raised = exam.failure_text()
    node = next((n for n in exam.nodes() if isinstance(n, gast.If)
                 and n.lineno == line), None) if line is not None else None
    if node is None:
        _called_cond(exam, line, raised)
        return
    where = f"the if at line {node.lineno}, which AutoGraph staged as a tf.cond"
    unset, no_return, dtypes = (_UNSET.search(raised), _NO_RETURN.search(raised),
                                _DTYPES.search(raised))
    if unset:
        name, branch = unset["name"], _branch(unset["branch"])
        message = (f"`{name}` is set in one branch of {where}, and not in its {branch} "
                   f"branch: a tf.cond gives each value from both branches")
        fix = (f"give `{name}` a value in the {branch} branch too, or before the if, of the "
               "same dtype and shape: the value it should have when that branch runs.")
    elif no_return:
        branch = _branch(no_return["branch"])
        returned = next((exam.mod.segment(n) for n in gast.walk(node)
                         if isinstance(n, gast.Return) and n.value is not None), "return ...")
        message = (f"{where} returns (`{returned}`) in one branch only: a tf.cond gives the "
                   f"function's result from both, and its {branch} branch returns nothing")
        fix = ("return a value on the other path too (in an `else:`, or after the if), of "
               "the same dtype and shape as the one returned.")
    elif dtypes:
        name = dtypes["name"]
        message = (f"`{name}` is {dtypes['main']} in the if (true) branch of {where} and "
                   f"{dtypes['other']} in its else (false) branch: a tf.cond gives each value "
                   "with one dtype")
        fix = (f"give `{name}` one dtype in both branches: tf.cast it (to {dtypes['other']} "
               f"or {dtypes['main']}), or write its constants as the other branch's dtype.")
    else:
        return
    exam.add("AGX014", node, message + ": that is what made tracing fail", fix, "trace",
             cause=True)


def cond_call(mod: ParsedFile, node: Any) -> bool:
    """Whether ``node`` is a call of tf.cond (``tf.cond(pred, true_fn, false_fn)``)."""
    return isinstance(node, gast.Call) and mod.is_tf(dotted_name(node.func), "cond") \
        and len(node.args) + len(node.keywords) >= 3


def cast_branch(node: Any, gave_true: str, gave_false: str) -> tuple[Any, str] | None:
    """(the false branch's lambda body, the true branch's dtype) where each branch of the
    tf.cond ``node`` gave one tensor (``float32[]``, ``int32[]``: what each gave, in
    TensorFlow's words as raised_line keeps them) and their dtypes differ, and the false
    branch is a lambda: what the rewrite casts."""
    true, false = _ONE_TENSOR.fullmatch(gave_true), _ONE_TENSOR.fullmatch(gave_false)
    branch = node.args[2] if len(node.args) >= 3 else next(
        (k.value for k in node.keywords if k.arg == "false_fn"), None)
    if true is None or false is None or true["dtype"] == false["dtype"] \
            or not isinstance(branch, gast.Lambda):
        return None
    return branch.body, true["dtype"]


def _called_cond(exam: ExaminedFunction, line: int | None, raised: str) -> None:
    said = _COND.search(raised)
    if line is None or said is None:
        return
    node = next((n for n in exam.nodes() if cond_call(exam.mod, n)
                 and n.lineno <= line <= (n.end_lineno or n.lineno)), None)
    if node is None:
        return
    tf = exam.mod.tf_name or "tf"
    cast = cast_branch(node, said["true"], said["false"])
    if cast is not None:
        body, dtype = cast
        fix = (f"give both branches one dtype: cast the false branch to the true branch's, "
               f"`lambda: {tf}.cast({exam.mod.segment(body)}, {tf}.{dtype})` (or the true "
               "branch to the false one's, or write the constant in the other's dtype).")
    else:
        fix = ("return the same from both branches: as many tensors, in the same structure, "
               "each of one dtype (tf.cast one branch's to the other's).")
    exam.add("AGX014", node, f"the branches of `{exam.mod.segment(node)}` give different "
             f"results (the true branch {said['true']}, the false branch {said['false']}): a "
             "tf.cond returns one result, the same structure and dtypes whichever branch runs"
             ": that is what made tracing fail", fix, "trace", cause=True)


def branch_appends(exam: ExaminedFunction) -> None:
    """AGX018: ``.append`` on a Python list made outside an if that the trace staged, in one
    of its branches (the innermost if or loop around the call is that if: a staged loop's
    is AGX003's)."""
    for node in list_appends(exam):
        around = next((a for a in ancestors(node, exam.parents, exam.func)
                       if isinstance(a, (gast.If, *LOOP_NODES))), None)
        if not isinstance(around, gast.If):
            continue
        verdict = exam.verdicts.get(("if", around.lineno))
        name = node.func.value.id
        if verdict is None or verdict.verdict != "staged" or _made_in(name, around):
            continue
        cause = exam.out_of_scope_after(around)
        message = (f"`{name}.append(...)` sits in a branch of the if at line {around.lineno}, "
                   f"which AutoGraph staged as a tf.cond: `{name}` gets a tensor of that "
                   "branch's graph, which no code after the if can use")
        if cause:
            message += (f"; using it after the if (line {exam.report.error.line}) is what made "
                        "tracing fail")
        value = exam.mod.segment(node.args[0]) if len(node.args) == 1 else "..."
        exam.add("AGX018", node, message,
                 f"set a name in each branch instead (`value = {value}` here, the other "
                 "branch's value in the other) and append it once, after the if: "
                 f"`{name}.append(value)`; the tf.cond then returns the value.", "trace", name,
                 cause)


def _made_in(name: str, branch_if: Any) -> bool:
    """Whether ``name`` is (re)made inside the if: a list of the branch's own."""
    return any(isinstance(n, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name
                                                  for t in n.targets)
               for n in gast.walk(branch_if))
