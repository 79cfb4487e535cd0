"""The staged alternative of a sweep: the doctor's rewrite of the unrolled loop, swept at the same values.

The doctor reads a trace: the one the sweep made to pick its argument, or else one at
the smallest value (cheap, and the loop unrolls there as well). Its rewrite for the loop
(AGX004: ``range`` -> ``tf.range``) is loaded from a shadow file; failing that, its
rewrite of the call (AGX009: the Python int passed as a tensor) is swept with the value
as ``tf.constant(value)``. Either way each value is one fresh tf.function's trace.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from agexplorer.model.errors import AgxError
from agexplorer.model.sweep import StagedSweep
from agexplorer.sweep.fit import fit_points
from agexplorer.sweep.trace import Point
from agexplorer.sweep.vary import bind, with_value


def call_with(call: str, fn: Any, name: str, value: int) -> str | None:
    """The argument list ``call`` with ``name`` (a keyword or a positional one, by its
    parameter) set to ``value``; None when the text cannot be edited (a ``*args``)."""
    try:
        node = ast.parse(f"f({call})", mode="eval").body
    except SyntaxError:
        return None
    assert isinstance(node, ast.Call)
    constant = ast.Constant(value)
    keyword = next((k for k in node.keywords if k.arg == name), None)
    params = list(inspect.signature(fn).parameters)
    index = params.index(name) if name in params else len(params)
    if keyword is not None:
        keyword.value = constant
    elif any(isinstance(a, ast.Starred) for a in node.args[:index + 1]) or None in \
            (k.arg for k in node.keywords):
        return None
    elif index < len(node.args):
        node.args[index] = constant
    else:
        node.keywords.append(ast.keyword(arg=name, value=constant))
    return ast.unparse(node)[2:-1]


def _finding(findings: Sequence[Any], loop_line: int | None, vary: str) -> Any:
    """The loop's own rewrite (AGX004 at its line) first, else the call's for ``vary``."""
    ready = [f for f in findings if f.rewrite is not None]
    loop = [f for f in ready if f.code == "AGX004" and (loop_line is None or f.line == loop_line)]
    call = [f for f in ready if f.code == "AGX009" and f.subject == vary]
    return (loop + call or [None])[0]


def _none_staged(findings: Sequence[Any], loop_line: int | None, vary: str) -> str:
    """Why there is no staged sweep: the doctor's rewrite for the loop (or for ``vary``)
    failed to trace, with its fix, or it has none."""
    failed = [f for f in findings if f.tried is not None and f.tried.outcome == "fails" and (
        (f.code == "AGX004" and (loop_line is None or f.line == loop_line))
        or (f.code == "AGX009" and f.subject == vary))]
    if failed:
        return f"No staged alternative: {failed[0].fix}"  # its fix says the trial failed
    return "No staged alternative: the doctor has no rewrite for this loop."


def staged_sweep(target: str, loaded: Any, bound: inspect.BoundArguments, vary: str,
                 values: Sequence[int], report: Any, loop_line: int | None, spec: Point,
                 deadline: float, say: Callable[[str], None]
                 ) -> tuple[StagedSweep | None, str | None]:
    """(the staged sweep, None) or (None, why there is none) for the sweep's loop."""
    from agexplorer.doctor.checks import diagnose
    from agexplorer.doctor.rewrites import rewrite
    from agexplorer.engine.pipeline import build_report

    try:
        if report is None:
            small = call_with(loaded.call or "", loaded.bound, vary, min(values))
            if small is None:
                return None, "No staged alternative: the call's text could not be rewritten."
            say(f"tracing {loaded.qualname} with {vary}={min(values)} for the doctor")
            report = build_report(target, small)
            loops = [v for v in report.statements if v.unrolled]
            loop_line = max(loops, key=lambda v: v.iterations).line if loops else None
        say(f"asking the doctor for a staged rewrite of {loaded.qualname}")
        doctor = diagnose(target, report.call, report=report)
        finding = _finding(doctor.findings, loop_line, vary)
        if finding is None:
            return None, _none_staged(doctor.findings, loop_line, vary)
        made = rewrite(loaded.text, finding, report.call)
        if made is None:
            return None, "No staged alternative: the doctor has no rewrite for this loop."
        return _swept(target, loaded, bound, vary, values, made, spec, deadline, say), None
    except AgxError as exc:
        return None, f"No staged alternative: {exc.message}"


def _swept(target: str, loaded: Any, bound: inspect.BoundArguments, vary: str,
           values: Sequence[int], made: Any, spec: Point, deadline: float,
           say: Callable[[str], None]) -> StagedSweep:
    from agexplorer.engine.buffer import shadowed
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.load import load_target
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.sweep.trace import sweep_values

    if made.new_text is None:  # AGX009: the same function, the count passed as a tensor
        tf = import_tf()
        staged = replace(spec, arguments=lambda v: with_value(bound, vary, tf.constant(v)),
                         label=f"{vary}=tf.constant({{}})")
        points, _ = sweep_values(staged, values, deadline, say)
    else:
        with shadowed(target, made.new_text) as (new_target, shadow):
            with capture_output():
                # The call as the sweep evaluated it: AGX_CALLS of the rewritten file if none.
                again = load_target(new_target, loaded.call if loaded.call_origin == "--call"
                                    else None)
            new_bound = bind(again.bound, again.args, again.kwargs)
            staged = replace(spec, loaded=again,
                             arguments=lambda v: with_value(new_bound, vary, v))
            points, _ = sweep_values(staged, values, deadline, say)
            points = tuple(replace(p, error=shadow.fix_text(p.error)) for p in points)
    return StagedSweep(code=made.code, description=made.description, points=points,
                       fit=fit_points(points))
