"""The doctor down the call tree: the checks over each user function the trace reached.

A helper the examined tf.function calls (in its file or another) ran while tracing, so
its loops unroll into the same graph: its verdicts are the report's ``reached``
functions'. Each finding there carries the helper's file, name and the call path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agexplorer.doctor import (
    asserts,
    branches,
    iterations,
    lookups,
    loop_dtypes,
    loop_shapes,
    loops,
    python_state,
    returns,
    shapes,
)
from agexplorer.doctor.examined import ExaminedFunction
from agexplorer.doctor.parse import ParsedFile
from agexplorer.model.doctor import Finding

# The checks that hold for code run while tracing, whoever calls it. Those about the
# tf.function itself (its arguments, a tf.function made inside) stay with the root.
HELPER_CHECKS: tuple[Callable[[ExaminedFunction], None], ...] = (
    python_state.prints, python_state.assigned_globals, loops.appends, loops.loops,
    python_state.randoms, python_state.advanced_iterators, loop_shapes.loop_shapes,
    loop_dtypes.loop_dtypes, returns.returns, shapes.unknown_sizes, lookups.dict_lookups,
    branches.branches, branches.branch_appends, iterations.zipped_tensors,
    iterations.comprehended_tensors, asserts.asserted_tensors)


@dataclass
class _HelperTrace:
    """What ExaminedFunction reads of a report, for one reached function: its own
    verdicts in the root's trace (no call of its own: the root's call reached it)."""

    statements: list[Any]
    inventory: Any
    output: str = ""
    error: Any = None
    call: str | None = None
    call_origin: str | None = None
    reached: list[Any] = field(default_factory=list)
    file: str | None = None  # the reached function's file (its ops' lines are that file's)


def reached_findings(report: Any, root: ParsedFile, root_file: str) -> list[Finding]:
    """The findings in every user function ``report``'s trace reached (where the trace
    failed, those it reached before: the failure may be theirs), nearest first, each with
    its file, function and call path."""
    if report is None:
        return []
    parsed: dict[str, ParsedFile | None] = {root_file: root}
    found: list[Finding] = []
    for reached in report.reached:
        if reached.file not in parsed:
            parsed[reached.file] = _parse(reached.file)
        mod = parsed[reached.file]
        if mod is None:
            continue
        func, method = mod.find(reached.function, reached.first_line)
        if func is None:
            continue
        # The error's line is a line of the report's file (its deepest frame there).
        error = report.error if reached.file == root_file else None
        view = _HelperTrace(list(reached.statements), report.inventory, report.output, error,
                            file=reached.file)
        exam = ExaminedFunction(mod, func, method, view)
        # AutoGraph did not convert it (code it does not convert called it): no rewrite of
        # AutoGraph's helps there, as for a Keras 3 layer's call
        exam.keras3 = exam.keras3 or not reached.converted
        for check in HELPER_CHECKS:
            check(exam)
        found += [replace(f, file=reached.file, function=reached.function,
                          call_path=tuple(reached.call_path))
                  for f in sorted(exam.findings, key=lambda f: (f.line, f.col, f.code))]
    return found


def _parse(path: str) -> ParsedFile | None:
    from agexplorer.source.cells import source_text

    try:
        return ParsedFile(source_text(path))  # a file, or a notebook cell
    except Exception:  # noqa: BLE001 - a file gone or unparsable: nothing to say there
        return None
