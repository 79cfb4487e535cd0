"""The run lab's pure logic: comparing results, timing batches, speed-ups (no TensorFlow but
the last tests, which run a real function in each mode)."""

from __future__ import annotations

import numpy as np
import pytest

from agexplorer.lab.runs import compare_results, same_result, speedups, summarize
from agexplorer.lab.timing import steady_state, time_calls
from agexplorer.model.lab import ModeRun
from conftest import fixture

# -- comparing results -------------------------------------------------------------------

def test_equal_integers_and_structures_match():
    assert same_result(np.array([1, 2, 3]), np.array([1, 2, 3]))
    assert same_result((1, [2, 3]), (1, [2, 3]))
    assert same_result({"b": 2, "a": 1}, {"a": 1, "b": 2})  # leaves in key order


def test_integers_must_be_exactly_equal():
    assert not same_result(np.array([1, 2, 3]), np.array([1, 2, 4]))
    assert not same_result(10**12, 10**12 + 1)


def test_floats_match_within_rounding_but_not_beyond():
    a = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    assert same_result(a, a + np.float32(1e-7))  # XLA may fuse and round differently
    assert not same_result(a, a + np.float32(1e-3))
    assert same_result(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))  # nan equals nan


def test_shapes_and_structures_must_match():
    assert not same_result(np.zeros((2, 3)), np.zeros((3, 2)))
    assert not same_result((1, 2), (1, 2, 3))
    assert not same_result([1, [2]], [1, [2], 3])


def test_values_numpy_cannot_compare_fall_back_to_equality():
    assert same_result(b"abc", b"abc")
    assert not same_result("abc", "abd")


def test_summaries_say_dtype_shape_and_values():
    assert summarize(np.array([1, 2], dtype=np.int32)) == "int32[2] [1 2]"
    assert summarize(np.float32(2.5)) == "float32[] 2.5"
    assert summarize((np.int64(1), [2])) == "(int64[] 1, [2])"
    long = summarize(list(range(1000)), limit=50)
    assert len(long) == 50 and long.endswith("…")


def test_a_summary_survives_a_failing_repr():
    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    assert summarize(Broken()) == "<Broken: repr failed: no>"


def _runs(**medians: float | None) -> dict[str, ModeRun]:
    return {mode: ModeRun(ok=median is not None, median_s=median, result=f"r-{mode}")
            for mode, median in medians.items()}


def test_results_are_compared_with_the_first_mode_that_ran():
    runs = _runs(eager=1.0, graph=1.0, xla=1.0)
    assert compare_results(runs, {"eager": 1, "graph": 1, "xla": 1}) == (True, None, {})
    match, mismatch, differences = compare_results(runs, {"eager": 1, "graph": 1, "xla": 2})
    assert match is False
    assert mismatch == "eager: r-eager; xla: r-xla"
    assert differences == {"xla": 0.5}  # |1 - 2| / 2: only the mode that differs


def test_differences_are_relative_and_none_where_numbers_cannot_be_compared():
    from agexplorer.lab.results import largest_difference

    a = np.array([1.0, 100.0], dtype=np.float32)
    assert largest_difference(a, a * np.float32(1.001)) == pytest.approx(1e-3, rel=1e-2)
    assert largest_difference(np.zeros(2), np.zeros(2)) == 0.0
    assert largest_difference(np.zeros(2), np.zeros(3)) is None  # another shape
    assert largest_difference((1.0, 2.0), (1.0,)) is None  # another structure
    assert largest_difference("a", "b") is None  # not numbers


def test_a_failed_mode_is_left_out_of_the_comparison():
    runs = _runs(eager=None, graph=1.0, xla=1.0)
    assert compare_results(runs, {"eager": None, "graph": 3, "xla": 4}) == \
        (False, "graph: r-graph; xla: r-xla", {"xla": 0.25})
    lone = _runs(eager=1.0, graph=None, xla=None)
    assert compare_results(lone, {"eager": 1, "graph": None, "xla": None}) == (None, None, {})


# -- timing --------------------------------------------------------------------------------

def test_speedups_are_eager_over_each_mode_and_none_for_a_failed_mode():
    assert speedups(_runs(eager=3.0, graph=1.0, xla=0.7)) == {"graph": 3.0, "xla": 4.286}
    assert speedups(_runs(eager=3.0, graph=None, xla=6.0)) == {"graph": None, "xla": 0.5}
    assert speedups(_runs(eager=None, graph=1.0, xla=1.0)) == {"graph": None, "xla": None}
    # A Python loop folded to a constant: eager takes a microsecond, a graph call far more.
    # Rounded to decimals the speed-up read 0, and the timings lost their explanation.
    tiny = speedups(_runs(eager=1e-7, graph=3e-4, xla=2e-4))
    assert tiny == {"graph": 0.0003333, "xla": 0.0005}


def test_steady_state_is_the_median_with_the_extremes():
    assert steady_state([3.0, 1.0, 100.0, 2.0, 4.0]) == (3.0, 1.0, 100.0)


class FakeClock:
    """A clock that moves only when the timed function runs: timings that repeat exactly."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls = 0

    def __call__(self) -> float:
        return self.now

    def function(self, seconds: float):
        def fn(*args, **kwargs):
            self.calls += 1
            self.now += seconds
            return args, kwargs
        return fn


def test_batches_grow_to_a_twentieth_of_the_budget_then_fill_it():
    clock = FakeClock()
    sunk = []
    samples, total = time_calls(clock.function(0.001), (1,), {"k": 2}, sunk.append, 1.0,
                                clock=clock)
    assert total == clock.calls == len(sunk)  # every call counted, every result sunk
    assert sunk[0] == ((1,), {"k": 2})
    assert samples == pytest.approx([0.001] * len(samples))  # seconds per call, not per batch
    assert 1.0 <= clock.now < 1.2  # the budget is spent, and not much more
    # batches of many calls (each lasting budget / 20 or more), so about twenty samples
    assert 10 <= len(samples) <= 21 and total > 20 * len(samples)


def test_a_slow_function_gets_three_single_calls_past_the_budget():
    clock = FakeClock()
    samples, total = time_calls(clock.function(2.0), (), {}, lambda r: r, 0.5, clock=clock)
    assert samples == [2.0, 2.0, 2.0]  # at least three samples, however long they take
    assert total == clock.calls == 3


# -- with TensorFlow -------------------------------------------------------------------------

def test_a_real_lab_times_three_modes_and_agrees(tf):
    from agexplorer.lab.runs import run_lab

    lab = run_lab(f"{fixture('runs.py')}::square", "tf.constant([1.0, 2.0])", budget=0.05)
    assert set(lab.runs) == {"eager", "graph", "xla"}
    for run in lab.runs.values():
        assert run.ok and run.calls >= 3
        assert run.min_s <= run.median_s <= run.max_s
        assert run.result == "float32[2] [1. 4.]"
    assert lab.results_match is True and lab.mismatch is None
    assert set(lab.speedup) == {"graph", "xla"}
    assert lab.speedup["graph"] == float(f"{lab.runs['eager'].median_s / lab.runs['graph'].median_s:.4g}")
