"""Least-squares lines through a sweep's points, and the predictions the time box is judged by."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from agexplorer.model.sweep import Extrapolation, Fit, SweepPoint


def line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line through (xs, ys); two distinct xs at least.

    Integers are fitted exactly (fractions), so points on a line of whole ops per unit
    give that whole number back, not 1.9999999.
    """
    if len(xs) != len(ys) or len(set(xs)) < 2:
        raise ValueError("a line needs two points with different x")
    exact = all(isinstance(v, int) for v in (*xs, *ys))
    fx = [Fraction(x) if exact else float(x) for x in xs]
    fy = [Fraction(y) if exact else float(y) for y in ys]
    n = len(fx)
    mean_x = sum(fx) / n
    mean_y = sum(fy) / n
    sxx = sum((x - mean_x) ** 2 for x in fx)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(fx, fy, strict=True))
    slope = sxy / sxx
    return float(slope), float(mean_y - slope * mean_x)


def fit_points(points: Sequence[SweepPoint], at: int | None = None) -> Fit | None:
    """The lines through the traced points (None with fewer than two distinct values);
    ``at``: the value to extrapolate to."""
    traced = [p for p in points if p.op_count is not None and p.trace_s is not None]
    if len({p.value for p in traced}) < 2:
        return None
    xs = [p.value for p in traced]
    ops_per_unit, ops_fixed = line(xs, [p.op_count for p in traced])  # type: ignore[misc]
    trace_per_unit, trace_fixed = line(xs, [p.trace_s for p in traced])  # type: ignore[misc]
    ran = [p for p in traced if p.call_s is not None]
    call_per_unit = call_fixed = None
    if len({p.value for p in ran}) >= 2:
        call_per_unit, call_fixed = line([p.value for p in ran],
                                         [p.call_s for p in ran])  # type: ignore[misc]
    fit = Fit(ops_per_unit, ops_fixed, trace_per_unit, trace_fixed, call_per_unit, call_fixed,
              points=len(traced))
    if at is None:
        return fit
    return Fit(ops_per_unit, ops_fixed, trace_per_unit, trace_fixed, call_per_unit,
               call_fixed, at=Extrapolation(at, fit.ops_at(at), fit.trace_s_at(at),
                                            fit.call_s_at(at)), points=len(traced))


def predicted_trace_s(points: Sequence[SweepPoint], value: int) -> float | None:
    """What tracing at ``value`` should take, from the values traced so far: the line
    through them, or with one point, its time scaled by the value (an upper estimate: the
    fixed cost scales too); None before any."""
    traced = [p for p in points if p.trace_s is not None]
    fit = fit_points(traced)
    if fit is not None:
        # Tracing grows at least linearly: never predict less than the largest seen.
        return max(fit.trace_s_at(value), max(p.trace_s for p in traced))  # type: ignore[type-var]
    if traced:
        last = traced[-1]
        assert last.trace_s is not None
        return last.trace_s * value / max(last.value, 1)
    return None
