"""The run lab's own overhead per timed call: ``time_calls`` against a bare loop.

For two callables:

- ``empty``: ``def empty(): return None`` (sink ``sink_for(None)``: the identity);
- ``tensor``: a function returning a small eager tensor made once,
  ``tf.constant([1.0, 2.0, 3.0])`` (sink ``sink_for(tensor)``: ``r._numpy()``);

``agexplorer.lab.runs.time_calls(fn, (), {}, sink, budget=1.0)`` gives its
median per-call time and its total number of calls n; then a bare
``for _ in range(n): fn()`` loop is timed with ``time.perf_counter`` for the
same n (and, for the tensor, ``for _ in range(n): fn()._numpy()``, the same
work as the harness's sink without the harness). Interleaved, repeated 5 times
(2 with ``--quick``); medians. The overhead is time_calls minus the bare loop,
per call.

Goal: time_calls' per-call time for the empty function <= 2 µs (the RESULT
line). Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_harness_overhead.py [--quick]``
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GOAL_US = 2.0
BUDGET = 1.0


def empty():
    return None


def bare(fn, n: int) -> float:
    """Per-call seconds of a bare ``for _ in range(n): fn()`` loop."""
    gc.collect()
    perf = time.perf_counter
    start = perf()
    for _ in range(n):
        fn()
    return (perf() - start) / n


def bare_numpy(fn, n: int) -> float:
    """Per-call seconds of ``for _ in range(n): fn()._numpy()`` (the sink's work, no harness)."""
    gc.collect()
    perf = time.perf_counter
    start = perf()
    for _ in range(n):
        fn()._numpy()
    return (perf() - start) / n


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv)
    started = time.perf_counter()

    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.results import sink_for
    from agexplorer.lab.timing import time_calls

    tf = import_tf()
    constant = tf.constant([1.0, 2.0, 3.0])

    def tensor():
        return constant

    cases = [("empty", empty, sink_for(None), [("bare fn()", bare)]),
             ("tensor", tensor, sink_for(constant),
              [("bare fn()", bare), ("bare fn()._numpy()", bare_numpy)])]
    runs: dict[tuple[str, str], list[float]] = {}
    calls: dict[str, list[int]] = {}
    for _ in range(repeats):
        for name, fn, sink, baselines in cases:
            gc.collect()
            samples, total = time_calls(fn, (), {}, sink, BUDGET)
            runs.setdefault((name, "time_calls"), []).append(statistics.median(samples))
            calls.setdefault(name, []).append(total)
            for label, baseline in baselines:
                runs.setdefault((name, label), []).append(baseline(fn, total))

    med = {key: statistics.median(values) for key, values in runs.items()}
    print(f"harness overhead: {repeats} interleaved repeats, budget {BUDGET:g} s, medians; "
          "bare loops run the same n as time_calls")
    header = f"{'callable':<8} {'measure':<20} {'us/call':>8} {'time_calls - this':>18} {'n (median)':>11}"
    print(header)
    print("-" * len(header))
    for name, _, _, baselines in cases:
        agx = med[(name, "time_calls")]
        n = statistics.median(calls[name])
        print(f"{name:<8} {'time_calls':<20} {agx * 1e6:>8.3f} {'':>18} {n:>11.0f}")
        for label, _ in baselines:
            value = med[(name, label)]
            print(f"{name:<8} {label:<20} {value * 1e6:>8.3f} {(agx - value) * 1e6:>18.3f}")
    for key, values in runs.items():
        print(f"  {key[0]} / {key[1]}: repeats us: " + ", ".join(f"{v * 1e6:.3f}" for v in values))
    empty_us = med[("empty", "time_calls")] * 1e6
    print(f"goal time_calls(empty) <= {GOAL_US:g} us per call: "
          f"{'met' if empty_us <= GOAL_US else 'missed'} ({empty_us:.2f} us)")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT harness_overhead us={empty_us:.2f} goal<={GOAL_US:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
