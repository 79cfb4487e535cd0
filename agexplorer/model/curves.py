"""A function called step after step, and what it returned each time: one series per value."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# How many steps one request may take: enough for a lesson's training curve, and bounded so
# that a typo (--steps 1000000) asks for a timeout, not for an answer.
MIN_STEPS = 1
MAX_STEPS = 1000


def steps_problem(steps: object) -> str | None:
    """Why ``steps`` is not a number of steps to take (None: it is one)."""
    if isinstance(steps, bool) or not isinstance(steps, int):
        return f"the number of steps must be a whole number, not {steps!r}"
    if not MIN_STEPS <= steps <= MAX_STEPS:
        return f"the number of steps must be from {MIN_STEPS} to {MAX_STEPS}, not {steps}"
    return None


@dataclass(frozen=True)
class Series:
    """One returned value across the steps: ``values[i]`` is what step ``i + 1`` returned.
    ``name``: the return expression's source text (``loss``), a dict's key, a named
    tuple's field, else ``value N`` (its position)."""

    name: str
    values: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form; a value that is not finite (nan, inf) is ``null``, as JSON has none."""
        return {"name": self.name,
                "values": [v if math.isfinite(v) else None for v in self.values]}


@dataclass(frozen=True)
class Curves:
    """``function`` called ``steps`` times in one load of its module, with the same
    arguments (``call``), and the scalars it returned: the state it keeps in the module
    (a model's weights, a ``tf.Variable``) carries from one step to the next, so a
    training step called N times trains N epochs. Picklable.

    ``done``: the steps that returned; ``error``: the sentence of the step after them that
    raised (the series keep the steps before it). ``notes``: returned values left out of
    the chart (not a scalar), and what else a reader should know.
    """

    file: str
    function: str
    call: str = ""  # the arguments as written ("x_train, y_train")
    call_origin: str = ""  # where they came from: "--call", "AGX_CALLS", "no arguments", ...
    steps: int = 0  # asked for
    done: int = 0
    series: list[Series] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    error_line: int | None = None
    elapsed_s: float = 0.0  # the steps' wall time, the first call's tracing included
    printed: str = ""  # what the load and the steps printed (stdout)
    log: str = ""  # and wrote on stderr (tf.print, TensorFlow's warnings)

    @property
    def failed_step(self) -> int | None:
        """The step that raised (1-based), None when every step returned."""
        return self.done + 1 if self.error is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object."""
        return {"target": {"file": self.file, "function": self.function},
                "call": self.call, "call_origin": self.call_origin, "steps": self.steps,
                "done": self.done, "series": [s.to_dict() for s in self.series],
                "notes": self.notes, "error": self.error, "error_line": self.error_line,
                "failed_step": self.failed_step, "elapsed_s": self.elapsed_s,
                "printed": self.printed, "log": self.log}

    def with_paths(self, file: str, fix_text: Callable[[str | None], str | None]) -> Curves:
        """These curves naming ``file``, every message through ``fix_text`` (a shadow file's
        name back to the user's)."""
        return dataclasses.replace(self, file=file, error=fix_text(self.error),
                                   notes=[fix_text(n) or "" for n in self.notes])
