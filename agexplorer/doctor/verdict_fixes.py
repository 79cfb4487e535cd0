"""A report's fixes for its unrolled loops, tried as the doctor tries its rewrites.

A verdict's fix is written from the loop's header (``for i in range(3)`` -> iterate over
``tf.range(3)``); whether the body works with a tensor counter is not in the header. One
body that adds the counter to a float tensor (``x + i``) makes the fix fail to trace. Here
the doctor's rewrite of each such loop is traced once (``try_rewrites``), and the verdict
says what came of it (model.doctor.with_tried_fixes): the fix with "Tried: the rewrite
stages the loop as a While op.", or, where the rewrite fails, what to do instead and the
error (the fix is not offered). The loops of the functions the trace reached (helpers) are
tried as well (the explored function traced with the helper rewritten, in its file or in its
own module: doctor.tried), but for those the program runs without AutoGraph.
"""

from __future__ import annotations

from dataclasses import replace

from agexplorer.doctor.checks import examine
from agexplorer.doctor.tried import TRY_BUDGET_S, Live, try_rewrites
from agexplorer.model.doctor import offers_fix, report_with_tried_fixes
from agexplorer.model.errors import AgxError
from agexplorer.model.report import Report


def tried_fixes(target: str, text: str, report: Report, call: str | None,
                budget: float = TRY_BUDGET_S, live: Live | None = None) -> Report:
    """``report`` (built from ``target``, whose source is ``text``, called with ``call``:
    None for the file's own inputs) with the fix of each of its own unrolled loops tried
    within ``budget`` seconds in all (``live``: a notebook's own arguments, which the trials
    pass as they are). Unchanged where nothing can be tried: no loop offers a fix, the doctor
    has no mechanical rewrite for it, or the trace failed elsewhere than at such a loop (where
    it failed at one, a `while` whose body made its condition a tensor, that one is tried:
    its rewrite is what would make the function trace)."""
    lines: set[tuple[str | None, int]] = {(None, v.line) for v in report.statements
                                          if offers_fix(v)}
    lines |= {(r.function, v.line) for r in report.reached for v in r.statements
              if offers_fix(v) and not r.runs_unconverted(v.line)}
    if not lines:
        return report
    # A trace that failed: only the loop that made it fail (the finding's cause), whose
    # rewrite is what would make it trace, is tried.
    failed = report.error is not None or report.inventory is None
    try:
        # A plain function that calls the file's tf.functions: its report's verdicts are
        # tf.function(main)'s, so are its trials (the doctor leaves its own lines out).
        examined = examine(report.file, text, report.function, replace(report, drives=()),
                           call)
    except AgxError:  # the doctor cannot read the function (a lambda): nothing tried
        return report
    findings = [f for f in examined.findings if f.code == "AGX004"
                and (f.rewrite or f.function is not None)
                and (f.function, f.line) in lines and (f.cause or not failed)]
    if not findings:
        return report
    tried = try_rewrites(target, text, findings, report, call, budget, live)
    return report_with_tried_fixes(report, tried)
