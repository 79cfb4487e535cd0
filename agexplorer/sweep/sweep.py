"""The sweep's entry point: one fresh trace per value of a Python argument, time-boxed, then the fit.

The target is loaded once (the module run, the call evaluated) and traced once untimed at
the smallest value (AutoGraph's conversion, cached after it, is no value's cost); each
value then costs one trace of a fresh tf.function,
an op count and, unless asked not to, a first call and a short steady-state timing.
Values run smallest first: before each, the line through the values traced so far
predicts its trace time, and a value that would not fit in what is left of the time
box is not traced (the fit extrapolates it instead: the 20,000-iteration cost is seen
before anyone waits for it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from agexplorer.model.errors import AgxError
from agexplorer.model.sweep import Sweep
from agexplorer.sweep.fit import fit_points
from agexplorer.sweep.trace import CALL_BUDGET, Point, sweep_values
from agexplorer.sweep.vary import bind, check_vary, is_python_count, pick, spread, with_value


def run_sweep(target: str, vary: str | None = None, values: Sequence[int] | None = None,
              at: int | None = None, call: str | None = None, run: bool = True,
              device: str | None = None, budget: float = CALL_BUDGET, timeout: float = 60.0,
              staged: bool = True, progress: Callable[[str], None] | None = None,
              line: int | None = None) -> Sweep:
    """Sweep ``target`` (``PATH::QUALNAME``) over ``values`` of its Python argument ``vary``.

    ``vary`` None: the argument that drives the largest unrolled loop of a trace at the
    call (see :func:`agexplorer.sweep.vary.pick`); ``values`` None: N/100, N/10 and N
    for the call's value N. ``line``: the unrolled loop at that line, not the largest.
    ``at``: a value to extrapolate to. ``staged``: sweep the
    doctor's staged rewrite at the same values too. Everything fits in ``timeout``
    seconds; ``budget``: each value's steady-state timing.
    """
    from agexplorer.engine import tf_internals
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.load import load_target

    say = progress or (lambda phase: None)
    deadline = time.perf_counter() + timeout
    say(f"loading {target.partition('::')[0]}")
    with capture_output():
        loaded = load_target(target, call, progress=say)
    bound = bind(loaded.bound, loaded.args, loaded.kwargs)
    notes: list[str] = []
    report = None
    loop_line = None
    if vary is None:
        from agexplorer.engine.pipeline import build_report

        say(f"tracing {loaded.qualname} to find its largest unrolled loop")
        report = build_report(target, call, progress=say)
        if report.error is not None:
            raise report.error
        vary, traced, loop_line, how = pick(report.statements, bound, loaded.bound, line)
        notes.append(f"Varying {vary}: {how}.")
        values = values or spread(traced)
    else:
        check_vary(loaded.bound, bound, vary, loaded.qualname)
        if not values:
            current = bound.arguments.get(vary)
            if not isinstance(current, int) or not is_python_count(current):
                raise AgxError("bad-vary", f"--vary {vary} needs its values: "
                               f"--vary {vary}=V1,V2,...")
            values = spread(current)
    values = tuple(sorted(set(values)))
    spec = Point(loaded, lambda v: with_value(bound, vary, v), f"{vary}={{}}", run=run,
                 device=_device(device) if run else None, budget=budget)
    points, stopped = sweep_values(spec, values, deadline, say)
    alternative = None
    if staged and not stopped:
        from agexplorer.sweep.staged import staged_sweep

        alternative, why = staged_sweep(target, loaded, bound, vary, values, report,
                                        loop_line, spec, deadline, say)
        if why:
            notes.append(why)
    elif staged:
        notes.append("No staged alternative: the time box ran out first.")
    fit = fit_points(points, at)
    if fit is None:
        notes.append("No fit: fewer than two values were traced.")
    return Sweep(file=loaded.path, function=loaded.qualname, vary=vary, points=points,
                 fit=fit, staged=alternative, thresholds=tf_internals.unroll_thresholds() or None,
                 note=" ".join(notes) or None, call=loaded.call or "", loop_line=loop_line)


def _device(name: str | None) -> str:
    from agexplorer.lab.runs import resolve_device

    return resolve_device(name)
