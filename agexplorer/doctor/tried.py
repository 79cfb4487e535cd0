"""Each finding's rewrite tried while the doctor runs: one trace of the rewritten copy, no run.

A rewrite that fails to trace is not offered (its finding loses its rewrite and gets a fix
that does not rely on it); the others say what the trace showed. Trials stop when the
doctor's time for them is spent; the ones left say so.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any

from agexplorer.doctor.rewrites import rewrite
from agexplorer.model.doctor import Finding, Tried
from agexplorer.model.errors import AgxError
from agexplorer.model.report import LOOPS

# Seconds in all for the trials of one function: each is a fresh load and trace of the file.
TRY_BUDGET_S = 4.0
# The rewrites that turn a Python loop into a graph loop: their trial checks the loop staged.
_LOOP_REWRITES = frozenset({"AGX004"})
# What to do instead, where the fix text is the rewrite that failed.
_INSTEAD: dict[str, str] = {
    "AGX001": "print outside the tf.function, or tf.print only tensors.",
    "AGX003": "collect the values in a tf.TensorArray by hand, with the values' own dtype "
              "and size, and .stack() it after the loop.",
    "AGX004": "the body does not work with a tensor counter: make what it does with the "
              "counter work on tensors (index a stacked tensor, not a Python list; tf.cast "
              "it to the dtype it meets), or keep the loop unrolled if its count is small "
              "and fixed.",
    "AGX009": "the function needs a Python value here (a shape, a count): keep it a Python "
              "number and expect one trace per value, or give it fewer distinct values.",
}


# TensorFlow's words for a staged loop's value that changes from one step to the next.
_CHANGES = re.compile(r"'(?P<name>[^']+)' has (?P<what>shape|dtype) (?P<before>\S+(?: \S+)*?) "
                      r"before the loop, but (?:shape|dtype) (?P<after>.+?) after one iteration")


def _instead(code: str, error: str) -> str:
    """What to do where the rewrite of ``code`` failed with ``error``: TensorFlow's own
    reason where it names one the user can act on, else the finding's general advice."""
    if code == "AGX004":
        changed = _CHANGES.search(error)
        if changed:
            name, what, after = changed["name"], changed["what"], changed["after"]
            return (f"a staged loop keeps each value's {what} from step to step, and "
                    f"`{name}` changes {what} ({changed['before']} before the loop, {after} "
                    f"after one step): start `{name}` as a tensor of {what} {after} before "
                    "the loop, or keep the loop unrolled if its count is small and fixed.")
        if "InaccessibleTensorError" in error:
            return ("the body fills a Python list, which a staged loop cannot: collect the "
                    "values in a tf.TensorArray as well (AGX003), or keep the loop unrolled "
                    "if its count is small and fixed.")
    return _INSTEAD.get(code, "")


def try_rewrites(target: str, text: str, findings: list[Finding], report: Any,
                 call: str | None, budget: float = TRY_BUDGET_S) -> list[Finding]:
    """``findings`` with each offered rewrite tried in ``budget`` seconds in all (``report``:
    the function's own trace; ``call``: the arguments the user gave, None for its own)."""
    traced = report is not None and report.inventory is not None and report.error is None
    # One trial costs about what the function's own load and trace did.
    cost = sum(report.timings.get(k, 0.0) for k in ("load_s", "convert_s", "trace_s")) \
        if report is not None else 0.0
    start = time.perf_counter()
    done = []
    for finding in findings:
        if finding.rewrite is None:
            done.append(finding)
            continue
        if not traced and not finding.cause:  # its cause's rewrite may make it trace
            tried = Tried("not-tried", why_not="not-traced")
        elif time.perf_counter() - start + cost > budget:
            tried = Tried("not-tried", why_not="budget", budget_s=budget)
        else:
            tried = _trial(target, text, finding, report.call, call)
        done.append(_with_trial(finding, tried))
    return done


def _trial(target: str, text: str, finding: Finding, traced_call: str | None,
           call: str | None) -> Tried:
    """One trace of the rewrite (``traced_call``: the arguments the function was traced
    with, which AGX009 rewrites; ``call``: the user's own, None for the file's)."""
    from agexplorer.engine.buffer import shadowed
    from agexplorer.engine.pipeline import build_report

    made = rewrite(text, finding, traced_call)
    if made is None:  # the rewrite was described from the same text and call
        return Tried("not-tried", why_not="not-traced")
    after_call = made.new_call if made.new_call is not None else call
    with shadowed(target, made.new_text if made.new_text is not None else text) as (new, _):
        try:
            after = build_report(new, after_call)
        except AgxError as exc:
            return _failed(exc)
    if after.error is not None:
        return _failed(after.error)
    if finding.code not in _LOOP_REWRITES:
        return Tried("traced")
    loop = next((v for v in after.statements if v.line == finding.line
                 and v.kind in LOOPS), None)
    if loop is not None and loop.verdict == "staged":
        return Tried("staged", graph_op=loop.graph_op)
    return Tried("unstaged")


def _failed(error: AgxError) -> Tried:
    """What tracing raised, without the temporary copy's path: ``TypeError: ...``."""
    return Tried("fails", error=(error.raised or error.what).rstrip("."), error_line=error.line)


def _with_trial(finding: Finding, tried: Tried) -> Finding:
    """The finding with its trial said in its fix; a rewrite that fails is not offered."""
    sentence = tried.text()
    said = sentence[0].upper() + sentence[1:] + "."
    if tried.outcome == "fails":
        instead = _instead(finding.code, tried.error or "")
        return replace(finding, tried=tried, rewrite=None, fix=f"{instead} {said}".strip())
    return replace(finding, tried=tried, fix=f"{finding.fix} {said}" if finding.fix else said)
