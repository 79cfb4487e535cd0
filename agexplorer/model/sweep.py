"""An unroll-cost sweep as plain data: per value of one Python argument, ops and times, and the fit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class SweepPoint:
    """One value of the varied argument: the fresh trace's op count and times.

    ``op_count``/``trace_s`` are None when the value was not traced (``error`` says why:
    skipped because its predicted trace would not fit the time box, or the trace raised).
    """

    value: int
    op_count: int | None
    trace_s: float | None
    first_call_s: float | None = None
    call_s: float | None = None  # the steady-state median of the traced graph's calls
    error: str | None = None

    @property
    def traced(self) -> bool:
        """Whether this value was traced (its op count and trace time are known)."""
        return self.op_count is not None and self.trace_s is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"value": self.value, "op_count": self.op_count, "trace_s": self.trace_s,
                "first_call_s": self.first_call_s, "call_s": self.call_s, "error": self.error}


@dataclass(frozen=True)
class Extrapolation:
    """The fit read at one value: what a trace (and a call) there would cost."""

    value: int
    ops: float
    trace_s: float
    call_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"value": self.value, "ops": self.ops, "trace_s": self.trace_s,
                "call_s": self.call_s}


@dataclass(frozen=True)
class Fit:
    """Least-squares lines through the traced points: cost = fixed + per_unit * value; a time
    whose growth is within noise gets a flat line (see sweep/fit.py's ``time_line``)."""

    ops_per_unit: float
    ops_fixed: float
    trace_s_per_unit: float
    trace_s_fixed: float
    call_s_per_unit: float | None = None  # None: fewer than two values were run
    call_s_fixed: float | None = None
    at: Extrapolation | None = None  # the value ``--at`` named
    points: int = 0  # how many traced values the lines rest on
    # Tracing time's growth with the value was within noise (sweep/fit.py's rule): the trace
    # line is flat (``trace_s_per_unit`` 0, ``trace_s_fixed`` the mean), never a negative cost.
    trace_within_noise: bool = False
    trace_s_measured_per_unit: float | None = None  # the least-squares slope, any sign
    trace_s_per_unit_se: float | None = None  # its standard error (None: two values)

    def ops_at(self, value: float) -> float:
        """The op count the line gives at ``value``."""
        return self.ops_fixed + self.ops_per_unit * value

    def trace_s_at(self, value: float) -> float:
        """The trace time the line gives at ``value`` (never below zero)."""
        return max(self.trace_s_fixed + self.trace_s_per_unit * value, 0.0)

    def call_s_at(self, value: float) -> float | None:
        """The steady-state call time the line gives at ``value``, None when not run."""
        if self.call_s_per_unit is None or self.call_s_fixed is None:
            return None
        return max(self.call_s_fixed + self.call_s_per_unit * value, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"ops_per_unit": self.ops_per_unit, "ops_fixed": self.ops_fixed,
                "trace_s_per_unit": self.trace_s_per_unit, "trace_s_fixed": self.trace_s_fixed,
                "call_s_per_unit": self.call_s_per_unit, "call_s_fixed": self.call_s_fixed,
                "points": self.points, "at": None if self.at is None else self.at.to_dict(),
                "trace_within_noise": self.trace_within_noise,
                "trace_s_measured_per_unit": self.trace_s_measured_per_unit,
                "trace_s_per_unit_se": self.trace_s_per_unit_se}


@dataclass(frozen=True)
class StagedSweep:
    """The same values swept on the doctor's staged rewrite (a flat line)."""

    code: str  # the finding's code whose rewrite this is (AGX004, AGX009)
    description: str  # the rewrite in words ("range(...) -> tf.range(...)")
    points: tuple[SweepPoint, ...]
    fit: Fit | None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"code": self.code, "description": self.description,
                "points": [p.to_dict() for p in self.points],
                "fit": None if self.fit is None else self.fit.to_dict()}


@dataclass(frozen=True)
class Sweep:
    """What an unrolled loop costs as its count grows: one fresh trace per value of ``vary``."""

    file: str
    function: str
    vary: str  # the parameter whose Python value was varied
    points: tuple[SweepPoint, ...]
    fit: Fit | None  # None: fewer than two values traced
    staged: StagedSweep | None = None
    thresholds: dict[str, int | bool] | None = None  # AutoGraph's unroll limits (None: unknown)
    note: str | None = None  # how the argument and values were picked, what was skipped
    call: str = ""  # the call the values were put into (the varied argument as written)
    loop_line: int | None = None  # the unrolled loop the sweep is about, when known

    def with_paths(self, real: str, fix_text: Callable[[str | None], str | None]) -> Sweep:
        """A copy that names ``real`` as its file, its messages rewritten by ``fix_text``
        (a sweep of an unsaved buffer ran on a shadow file)."""
        def fixed(points: tuple[SweepPoint, ...]) -> tuple[SweepPoint, ...]:
            return tuple(replace(p, error=fix_text(p.error)) for p in points)

        staged = None if self.staged is None else replace(self.staged,
                                                          points=fixed(self.staged.points))
        return replace(self, file=real, points=fixed(self.points), staged=staged,
                       note=fix_text(self.note))

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"vary", "points", "fit", "staged", ...}``."""
        return {"file": self.file, "function": self.function, "vary": self.vary,
                "call": self.call, "loop_line": self.loop_line,
                "points": [p.to_dict() for p in self.points],
                "fit": None if self.fit is None else self.fit.to_dict(),
                "staged": None if self.staged is None else self.staged.to_dict(),
                "thresholds": self.thresholds, "note": self.note}
