"""Cost of ``agexplorer passes`` relative to one ``tf.autograph.to_code`` of the same function.

In one process, for four lesson functions (a Python loop, a while loop, a conditional and a
training step), times interleaved and repeated 5 times (2 with ``--quick``; medians):

- ``agexplorer.engine.passes.conversion_passes``: one conversion with every converter
  observed, the code printed before the first and after each converter, the diffs made;
- ``tf.autograph.to_code`` of the same function.

Both start from an empty conversion cache (AutoGraph caches by code object: a cached
function would cost neither side anything). The script asserts that the last pass equals
to_code's text (after the transpiler's rename), so it measures real work; timings are
printed, never asserted.

Goal: passes / to_code <= 3 for every function. The RESULT line gives the worst ratio.

Run: ``python benchmarks/bench_passes.py [--quick]``
"""

from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks._common import repeats_from_args  # noqa: E402

GOAL = 3.0
TARGETS = ("s6_2_bad_loop.py::range_loop", "s6_2_bad_loop.py::bad_loop",
           "s4_4_autograph.py::conditional_function", "s7_3_homework.py::train_step")


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from agexplorer.engine import tf_internals
    from agexplorer.engine.load import load_target
    from agexplorer.engine.passes import as_to_code, conversion_passes
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    started = time.perf_counter()
    functions = {}
    for target in TARGETS:
        path = os.path.join(ROOT, "samples", target.split("::")[0])
        loaded = load_target(f"{path}::{target.split('::')[1]}", require_args=False)
        functions[target] = (loaded.pyfn, path)
        passes, text = conversion_passes(loaded.pyfn, path)  # warm both code paths once
        assert as_to_code(passes.steps[-1].code, f"tf__{loaded.pyfn.__name__}") + "\n" == text
        tf_internals.evict_conversion(loaded.pyfn)
        assert tf.autograph.to_code(loaded.pyfn) == text
    times: dict[str, dict[str, list[float]]] = {t: {"passes": [], "to_code": []} for t in TARGETS}
    for _ in range(repeats):
        for target, (function, path) in functions.items():
            tf_internals.evict_conversion(function)
            t0 = time.perf_counter()
            conversion_passes(function, path)
            times[target]["passes"].append(time.perf_counter() - t0)
            tf_internals.evict_conversion(function)
            t0 = time.perf_counter()
            tf.autograph.to_code(function)
            times[target]["to_code"].append(time.perf_counter() - t0)
    header = f"{'function':<42} {'to_code ms':>10} {'passes ms':>10} {'ratio':>6}"
    print(f"passes against one to_code, {repeats} repeats, medians")
    print(header)
    print("-" * len(header))
    worst = 0.0
    for target in TARGETS:
        plain = statistics.median(times[target]["to_code"])
        observed = statistics.median(times[target]["passes"])
        worst = max(worst, observed / plain)
        print(f"{target:<42} {plain * 1e3:>10.1f} {observed * 1e3:>10.1f} {observed / plain:>6.2f}")
    print(f"goal passes/to_code <= {GOAL} for every function; total "
          f"{time.perf_counter() - started:.1f} s")
    print(f"RESULT passes ratio={worst:.2f} goal<={GOAL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
