"""A staged ``if`` whose branches do not give the same values (AGX014).

AutoGraph stages an ``if`` on a tensor as a tf.cond, which returns every value the ``if``
sets (and the function's result, where a branch returns) from both branches, with one
dtype. TensorFlow's words at the ``if``'s line say which is missing: "'y' must also be
initialized in the else branch", "the else branch must also have a return statement.",
"'y' has dtype int32 in the main branch, but dtype float32 in the else branch".
"""

from __future__ import annotations

import re

import gast

from agexplorer.doctor.examined import ExaminedFunction

_UNSET = re.compile(r"'(?P<name>[^']+)' must also be initialized in the (?P<branch>\w+) branch")
_NO_RETURN = re.compile(r"the (?P<branch>\w+) branch must also have a return statement")
_DTYPES = re.compile(r"'(?P<name>[^']+)' has dtype (?P<main>\w+) in the main branch, but dtype "
                     r"(?P<other>\w+) in the else branch")


def _branch(word: str) -> str:
    """AutoGraph's "main" branch is the if's own (true) branch."""
    return "if (true)" if word in ("main", "if") else "else (false)"


def branches(exam: ExaminedFunction) -> None:
    """AGX014: the staged if on the line where tracing raised one of those errors."""
    line = exam.failed_at()
    raised = exam.failure_text()
    node = next((n for n in exam.nodes() if isinstance(n, gast.If)
                 and n.lineno == line), None) if line is not None else None
    if node is None:
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
