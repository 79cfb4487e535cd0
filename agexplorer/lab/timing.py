"""Timing a function's calls: batches autoranged to a budget, and what their samples say
(the median, the spread). Shared by the run lab's modes, the fixed-cost probe and the sweep."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def time_calls(fn: Callable[..., Any], args: tuple, kwargs: dict, sink: Callable[[Any], Any],
               budget: float, clock: Callable[[], float] = time.perf_counter,
               deadline: float | None = None, samples: list[float] | None = None,
               ) -> tuple[list[float], int]:
    """Per-call times of batches autoranged to ``budget`` seconds; (samples, total calls).

    A batch grows until it lasts about budget/20 (so timer resolution and the
    loop itself stay negligible), then batches repeat until the budget is
    spent, at least three of them, unless the clock passes ``deadline`` (a mode's time
    box): then what was measured is kept, one sample at least. ``samples``: the list to
    append to (the caller can read it while timing goes on); ``clock`` is there for tests
    (a clock that does not drift).
    """
    perf = clock
    samples = [] if samples is None else samples

    def batch(number: int) -> float:
        start = perf()
        for _ in range(number):
            sink(fn(*args, **kwargs))
        return perf() - start

    def in_time() -> bool:
        return deadline is None or perf() < deadline

    target = max(budget / 20, 1e-4)
    number = 1
    elapsed = batch(1)
    total = 1
    while elapsed < target and number < 10_000_000 and in_time():
        number = max(number * 2, int(number * target / max(elapsed, 1e-9) * 0.8))
        elapsed = batch(number)
        total += number
    samples.append(elapsed / number)
    end = perf() + max(budget - elapsed, 0)
    if deadline is not None:
        end = min(end, deadline)
    while (perf() < end or len(samples) < 3) and in_time():
        samples.append(batch(number) / number)
        total += number
    return samples, total


def steady_state(samples: list[float]) -> tuple[float, float, float]:
    """(median, fastest, slowest) of per-call times: the median is what the report compares,
    since one slow batch (a garbage collection, another process) must not move it."""
    return statistics.median(samples), min(samples), max(samples)


def quartiles(samples: list[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile) of per-call times: their spread is the noise
    a difference between two medians has to exceed (one sample: no spread)."""
    if len(samples) < 2:
        return samples[0], samples[0], samples[0]
    low, median, high = statistics.quantiles(samples, n=4, method="inclusive")
    return low, median, high
