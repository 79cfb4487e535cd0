"""One point of a sweep: a fresh tf.function traced at one value, its ops counted, its graph timed."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agexplorer.model.errors import AgxError, user_code_error
from agexplorer.model.sweep import SweepPoint
from agexplorer.sweep.fit import predicted_trace_s

# Steady-state timing per value (seconds): a sweep measures the curve, not one call exactly.
CALL_BUDGET = 0.2


class _NoChains:
    """Stands for the recorder's op chains in the inventory walk: no op has a user chain, so
    the walk counts ops (loop and branch bodies included) without reading their stack traces,
    which on an unrolled loop would cost a fifth of the trace."""

    def chain(self, graph: Any, name: str) -> tuple[()]:
        return ()


def count_ops(concrete: Any) -> int:
    """Every op of a concrete function, the ops in its loop bodies and branches included
    (the engine's inventory walk: the count a report gives)."""
    from agexplorer.engine.inventory import build_inventory

    return len(build_inventory(concrete, "", (0, 0), (), _NoChains()).ops)  # type: ignore[arg-type]


@dataclass
class Point:
    """How to trace one function at one value: what is fixed across a sweep's values."""

    loaded: Any  # the engine's Loaded target (loaded once per sweep)
    arguments: Callable[[int], tuple[tuple[Any, ...], dict[str, Any]]]  # value -> the call
    label: str  # "n={}": what a message names, the value put in its braces
    run: bool = True
    device: str | None = None  # a resolved logical device name, None: TensorFlow's choice
    budget: float = CALL_BUDGET


def warm_up(spec: Point, value: int, seconds: float | None) -> None:
    """Trace a throwaway tf.function at ``value``, untimed: the first trace of a function
    also pays for AutoGraph's conversion of it (cached after) and TensorFlow's first use of
    its ops, one-off costs that would make the first measured value look slow and the
    fitted cost per unit fall. Its failure is left for the measured trace to report."""
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.boxed import run_boxed

    tf = import_tf()
    args, kwargs = spec.arguments(value)
    fn = tf.function(spec.loaded.bound, input_signature=spec.loaded.signature)
    try:
        run_boxed(lambda: fn.get_concrete_function(*args, **kwargs), seconds)
    except (Exception, SystemExit):  # noqa: BLE001 - see the docstring
        pass


def measure(spec: Point, value: int, seconds: float | None, deadline: float | None
            ) -> tuple[SweepPoint, bool]:
    """Trace a fresh tf.function at ``value`` (within ``seconds``) and, when asked, time its
    first call and its steady state (by ``deadline``); (the point, whether it finished)."""
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.boxed import run_boxed

    tf = import_tf()
    loaded = spec.loaded
    args, kwargs = spec.arguments(value)
    fn = loaded.tf_function(tf, input_signature=loaded.signature)
    out: dict[str, Any] = {}

    def trace() -> None:
        start = time.perf_counter()
        concrete = fn.get_concrete_function(*args, **kwargs)
        out["trace_s"] = time.perf_counter() - start
        out["ops"] = count_ops(concrete)

    doing = f"tracing {loaded.qualname} with {spec.label.format(value)}"
    try:
        finished = run_boxed(trace, seconds)
    except AgxError:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        error = user_code_error(exc, loaded.path, doing)
        return SweepPoint(value, None, None, error=error.message), True
    if not finished:
        return SweepPoint(value, None, None, error=f"not traced: still tracing after the "
                          f"{seconds:.3g} s left of the time box"), False
    point = SweepPoint(value, out["ops"], out["trace_s"])
    if not spec.run:
        return point, True
    return _timed(spec, fn, args, kwargs, point, deadline)


def _timed(spec: Point, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
           point: SweepPoint, deadline: float | None) -> tuple[SweepPoint, bool]:
    """``point`` with its first call and steady-state call time (the traced graph reused)."""
    import contextlib
    from dataclasses import replace

    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.boxed import run_boxed
    from agexplorer.lab.results import sink_for, to_host
    from agexplorer.lab.timing import steady_state, time_calls

    tf = import_tf()
    times: dict[str, Any] = {}
    samples: list[float] = []

    def run() -> None:
        with tf.device(spec.device) if spec.device else contextlib.nullcontext():
            start = time.perf_counter()
            result = fn(*args, **kwargs)
            to_host(result)
            times["first"] = time.perf_counter() - start
            time_calls(fn, args, kwargs, sink_for(result), spec.budget, deadline=deadline,
                       samples=samples)

    left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
    try:
        finished = run_boxed(run, left)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        error = user_code_error(exc, spec.loaded.path,
                                f"running {spec.loaded.qualname} with "
                                f"{spec.label.format(point.value)}")
        return replace(point, error=error.message), True
    call_s = steady_state(samples)[0] if samples else None
    point = replace(point, first_call_s=times.get("first"), call_s=call_s)
    if not finished:
        return replace(point, error="not run to the end: the time box ran out"), False
    return point, True


def sweep_values(spec: Point, values: Sequence[int], deadline: float,
                 say: Callable[[str], None]) -> tuple[tuple[SweepPoint, ...], bool]:
    """The points for ``values`` (ascending), each predicted before it is traced; (points,
    whether the time box stopped a trace or a run midway)."""
    from agexplorer.engine.capture import capture_output

    points: list[SweepPoint] = []
    stopped = False
    if values:
        with capture_output():
            warm_up(spec, values[0], max(deadline - time.perf_counter(), 0.0))
    for value in values:
        left = deadline - time.perf_counter()
        predicted = predicted_trace_s(points, value)
        if stopped or left <= 0:
            points.append(SweepPoint(value, None, None, error="not traced: the time box ran out"))
            continue
        if predicted is not None and predicted > left:
            points.append(SweepPoint(value, None, None, error=(
                f"not traced: its trace should take about {predicted:.3g} s, more than the "
                f"{left:.3g} s left of the time box")))
            continue
        say(f"tracing {spec.loaded.qualname} with {spec.label.format(value)}")
        with capture_output():
            point, finished = measure(spec, value, left, deadline)
        points.append(point)
        stopped = not finished
    return tuple(points), stopped
