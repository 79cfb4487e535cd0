"""A sweep of three values against the sum of three separate traces of the same function.

In one process, on ``samples/s6_2_bad_loop.py::range_loop`` (``for i in range(n): s += i``,
two ops per iteration), interleaved and repeated 5 times (2 with ``--quick``; medians):

- ``run_sweep(target, vary="n", values=(100, 300, 1000), run=False, staged=False)``: the
  module loaded once, one fresh ``tf.function`` traced per value, its ops counted, the fit;
- the baseline: for each value, a fresh ``tf.function`` of the same Python function traced
  with ``get_concrete_function(n)``, timed alone, the three times summed.

Goal: sweep / baseline <= 1.2. The sweep with the staged line beside it (the doctor's
report at the smallest value, its rewrite swept too) is timed once and printed for
reference, not judged. The script asserts that the sweep found 2 ops per unit, so that it
measures real work; timings are printed, never asserted.

Run: ``python benchmarks/bench_sweep.py [--quick]``
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GOAL = 1.2
VALUES = (100, 300, 1000)
TARGET = os.path.join(ROOT, "samples", "s6_2_bad_loop.py") + "::range_loop"


def baseline(tf, pyfn) -> float:
    """Three separate traces, each of a fresh tf.function: the sum of their times."""
    total = 0.0
    for value in VALUES:
        fn = tf.function(pyfn)
        start = time.perf_counter()
        fn.get_concrete_function(value)
        total += time.perf_counter() - start
    return total


def main(argv: list[str] | None = None) -> int:
    from benchmarks._common import repeats_from_args

    repeats = repeats_from_args(__doc__, argv)
    from agexplorer.engine.capture import capture_output
    from agexplorer.engine.load import load_target
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.sweep.sweep import run_sweep

    tf = import_tf()
    with capture_output():
        pyfn = load_target(TARGET).pyfn
    baseline(tf, pyfn)  # AutoGraph converts once: neither side pays it below
    sweeps, bases = [], []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        sweep = run_sweep(TARGET, vary="n", values=VALUES, run=False, staged=False)
        sweeps.append(time.perf_counter() - start)
        assert sweep.fit is not None and sweep.fit.ops_per_unit == 2, sweep
        gc.collect()
        bases.append(baseline(tf, pyfn))
    start = time.perf_counter()
    full = run_sweep(TARGET, vary="n", values=VALUES, run=False, staged=True)
    full_s = time.perf_counter() - start
    assert full.staged is not None
    sweep_s, base_s = statistics.median(sweeps), statistics.median(bases)
    print(f"values {VALUES}, {repeats} repeats (medians)")
    print(f"  sweep (load once, 3 fresh traces, ops counted, fit): {sweep_s:.3f} s")
    print(f"  3 separate traces, fresh tf.function each:            {base_s:.3f} s")
    print(f"  sweep with the staged rewrite beside it (once):        {full_s:.3f} s "
          "(reference only)")
    ratio = sweep_s / base_s
    print(f"RESULT sweep / three traces = {ratio:.2f}x (goal <= {GOAL}x): "
          f"{'met' if ratio <= GOAL else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
