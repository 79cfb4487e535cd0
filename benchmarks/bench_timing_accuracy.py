"""Is agexplorer's graph median honest? Its ``run_mode("graph")`` median against ``timeit``.

In one process, for three workloads:

- ``samples/s4_4_autograph.py::dynamic_loop`` with its ``AGX_CALLS`` arguments
  (``tf.constant(5)``: a while loop of five iterations);
- ``matmul``: ``tf.matmul`` of two 256x256 float32 tensors (a user file written
  to a temporary folder, loaded the same way);
- ``add_one``: ``x + 1`` on a scalar float32 tensor (same temporary file), where
  the per-call overhead of the function call itself dominates;

each loaded once with ``agexplorer.engine.load.load_target``, this script
interleaves, 5 times (2 with ``--quick``):

(a) agexplorer's ``run_mode("graph", loaded, device, budget=1.0)`` median per
    call (device from ``resolve_device(None)``; a fresh ``tf.function`` traced
    on its first call, then batches autoranged to the budget, each call's
    result brought to the host);
(b) an independent measurement: ``tf.function(loaded.bound)`` built here and
    warmed up, then ``timeit.Timer(lambda: fn(*args).numpy())`` with ``number``
    from ``autorange()`` and ``repeat(5, number)``; the median per-call time.

Goal: agexplorer / timeit within 0.90-1.10 for every workload. The RESULT line
gives the ratio farthest from 1. Timings are printed, never asserted: the
machine is shared and noisy.

Run: ``python benchmarks/bench_timing_accuracy.py [--quick]``
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import tempfile
import time
import timeit

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GOAL_LOW, GOAL_HIGH = 0.90, 1.10
BUDGET = 1.0
TIMEIT_REPEATS = 5
SAMPLE = "samples/s4_4_autograph.py::dynamic_loop"
USER_CODE = """\
import tensorflow as tf

a = tf.random.stateless_uniform((256, 256), seed=(1, 2), dtype=tf.float32)
b = tf.random.stateless_uniform((256, 256), seed=(3, 4), dtype=tf.float32)
x = tf.constant(1.0)


def matmul(a, b):
    return tf.matmul(a, b)


def add_one(x):
    return x + 1


AGX_CALLS = {"matmul": "a, b", "add_one": "x"}
"""


def agx_median(run_mode, loaded, device: str) -> float:
    gc.collect()
    out, _ = run_mode("graph", loaded, device, BUDGET)
    if not out.ok:
        raise SystemExit(f"run_mode failed for {loaded.qualname}: {out.error}")
    return out.median_s


def timeit_median(fn, args: tuple, kwargs: dict) -> tuple[float, int]:
    """Median per-call seconds of ``fn(*args).numpy()`` and the autoranged ``number``."""
    gc.collect()
    timer = timeit.Timer(lambda: fn(*args, **kwargs).numpy())
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=TIMEIT_REPEATS, number=number)
    return statistics.median(t / number for t in runs), number


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv)
    started = time.perf_counter()

    from agexplorer.engine.load import load_target
    from agexplorer.engine.tfenv import import_tf
    from agexplorer.lab.runs import resolve_device, run_mode

    tf = import_tf()
    device = resolve_device(None)
    with tempfile.TemporaryDirectory(prefix="agx_bench_") as folder:
        path = os.path.join(folder, "timing_user.py")
        with open(path, "w") as fh:
            fh.write(USER_CODE)
        targets = [(os.path.join(ROOT, SAMPLE), "dynamic_loop (s4_4)"),
                   (f"{path}::matmul", "matmul 256x256 f32"),
                   (f"{path}::add_one", "add_one (x + 1)")]
        rows = []
        for target, label in targets:
            loaded = load_target(target)
            fn = tf.function(loaded.bound)
            for _ in range(3):  # trace and warm up
                fn(*loaded.args, **loaded.kwargs).numpy()
            agx_runs: list[float] = []
            ti_runs: list[float] = []
            numbers: list[int] = []
            for _ in range(repeats):
                agx_runs.append(agx_median(run_mode, loaded, device))
                median, number = timeit_median(fn, loaded.args, loaded.kwargs)
                ti_runs.append(median)
                numbers.append(number)
            agx, ti = statistics.median(agx_runs), statistics.median(ti_runs)
            rows.append({"label": label, "call": loaded.call, "agx": agx, "ti": ti,
                         "ratio": agx / ti, "agx_runs": agx_runs, "ti_runs": ti_runs,
                         "number": statistics.median(numbers)})

    print(f"graph median, agexplorer run_mode vs timeit: {repeats} interleaved repeats per row, "
          f"medians; device {device}, budget {BUDGET:g} s")
    header = f"{'workload':<22} {'agexplorer us':>13} {'timeit us':>10} {'agx/timeit':>10} {'timeit n':>8}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['label']:<22} {r['agx'] * 1e6:>13.2f} {r['ti'] * 1e6:>10.2f} "
              f"{r['ratio']:>10.2f} {r['number']:>8.0f}")
    for r in rows:
        pairs = ", ".join(f"{a * 1e6:.1f}/{b * 1e6:.1f}"
                          for a, b in zip(r["agx_runs"], r["ti_runs"], strict=True))
        print(f"  {r['label']}: repeats agx/timeit us: {pairs}")
    worst = max(rows, key=lambda r: abs(r["ratio"] - 1))
    met = all(GOAL_LOW <= r["ratio"] <= GOAL_HIGH for r in rows)
    print(f"goal {GOAL_LOW:.2f} <= agx/timeit <= {GOAL_HIGH:.2f} for every workload: "
          f"{'met' if met else 'missed'} (farthest from 1: {worst['label']}, {worst['ratio']:.2f})")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT timing_accuracy ratio={worst['ratio']:.2f} goal={GOAL_LOW:.2f}..{GOAL_HIGH:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
