"""A staged ``if`` whose branches do not give the same values (AGX014).

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
from agexplorer.doctor.parse import ParsedFile, dotted_name

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
