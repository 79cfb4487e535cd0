"""Least-squares lines through a sweep's points, and the predictions the time box is judged by."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import NamedTuple

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


# Student's t for a two-sided 95% interval, by degrees of freedom (1 to 30); 1.96 beyond.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
# With two values there is no scatter to measure: a time that repeats within this fraction of
# itself (a trace's run-to-run jitter: the garbage collector, caches) is not growth.
_TWO_POINT_JITTER = 0.1


class TimeLine(NamedTuple):
    """A time against the value: the line to use, and what the least squares measured."""

    per_unit: float  # 0.0 when the growth is within noise
    fixed: float  # the mean time when the growth is within noise
    measured_per_unit: float  # the least-squares slope, whatever its sign
    per_unit_se: float | None  # its standard error; None with two values (no scatter)
    within_noise: bool


def time_line(xs: Sequence[float], ys: Sequence[float]) -> TimeLine:
    """The line through measured times, flat where their growth is within noise.

    The rule: the time grows measurably with the value when the least-squares slope is
    positive and, with three values or more, the lower end of its 95% confidence interval
    (slope - t * standard error, Student's t with n - 2 degrees of freedom, the error from
    the residuals' scatter) is above zero; with two values, when the growth over their
    range exceeds a tenth of the smaller time (a trace's run-to-run jitter). Otherwise the
    growth is within noise and the line is flat at the mean time: a cost per unit is never
    negative, and never a figure the scatter could make on its own.
    """
    slope, intercept = line(xs, ys)
    n = len(xs)
    se: float | None = None
    if n > 2:
        mean_x = sum(xs) / n
        residuals = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True))
        sxx = sum((x - mean_x) ** 2 for x in xs)
        se = math.sqrt(residuals / (n - 2) / sxx)
        t = _T95[n - 3] if n - 2 <= len(_T95) else 1.96
        grows = slope > 0 and slope - t * se > 0
    else:
        grows = slope > 0 and slope * (max(xs) - min(xs)) > _TWO_POINT_JITTER * min(ys)
    if grows:
        return TimeLine(slope, intercept, slope, se, False)
    return TimeLine(0.0, statistics.fmean(ys), slope, se, True)


def fit_points(points: Sequence[SweepPoint], at: int | None = None) -> Fit | None:
    """The lines through the traced points (None with fewer than two distinct values);
    ``at``: the value to extrapolate to. Ops are fitted exactly; times by ``time_line``."""
    traced = [p for p in points if p.op_count is not None and p.trace_s is not None]
    if len({p.value for p in traced}) < 2:
        return None
    xs = [p.value for p in traced]
    ops_per_unit, ops_fixed = line(xs, [p.op_count for p in traced])  # type: ignore[misc]
    trace = time_line(xs, [p.trace_s for p in traced])  # type: ignore[misc]
    ran = [p for p in traced if p.call_s is not None]
    call_per_unit = call_fixed = None
    if len({p.value for p in ran}) >= 2:
        call = time_line([p.value for p in ran], [p.call_s for p in ran])  # type: ignore[misc]
        call_per_unit, call_fixed = call.per_unit, call.fixed
    fit = Fit(ops_per_unit, ops_fixed, trace.per_unit, trace.fixed, call_per_unit, call_fixed,
              points=len(traced), trace_within_noise=trace.within_noise,
              trace_s_measured_per_unit=trace.measured_per_unit,
              trace_s_per_unit_se=trace.per_unit_se)
    if at is None:
        return fit
    return replace(fit, at=Extrapolation(at, fit.ops_at(at), fit.trace_s_at(at),
                                         fit.call_s_at(at)))


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
