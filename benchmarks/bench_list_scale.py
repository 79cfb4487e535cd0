"""The static function list at scale: ``list_functions`` against Python's own parse.

The explorer lists every function of the files it opens before its first frame, and again
after each edit; the doctor lists a file's functions before it examines them. The list is
a static parse (no code runs), so it should cost no more than parsing the file did.

In one process: a generated file of N top-level functions (400; 100 with ``--quick``),
each a plain function with a loop that calls the file's one tf.function, as a program's
helpers do. Interleaved, 7 repeats (3 with ``--quick``), medians:

- ``ast.parse`` of the file (the baseline);
- ``list_functions(tree)`` (what each edit pays);
- ``list_functions(tree, drives=True)`` (what opening the file and ``doctor FILE`` pay: the
  plain functions' calls of the file's tf.functions, one more walk of the file).

Goal: each list <= 1.0 x the parse (a walk per function once made the 400-function file's
list take 3.3 s against a 15 ms parse). Printed, never asserted: the machine is noisy.

Run: ``python benchmarks/bench_list_scale.py [--quick]``
"""

from __future__ import annotations

import ast
import os
import statistics
import sys
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from agexplorer.source.targets import list_functions  # noqa: E402


def program(n: int) -> str:
    parts = ["import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    return x * 2.0\n"]
    parts += [f"def helper_{i}(x):\n    for _ in range(3):\n        x = step(x) + {i}\n"
              f"    return x if {i} % 2 else -x\n" for i in range(n)]
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv, full=7, quick=3)
    n = 100 if repeats < 7 else 400
    text = program(n)
    times: dict[str, list[float]] = {"parse": [], "list": [], "list, drives": []}
    for _ in range(repeats):
        t0 = time.perf_counter()
        tree = ast.parse(text)
        t1 = time.perf_counter()
        plain = list_functions(tree)
        t2 = time.perf_counter()
        driven = list_functions(tree, drives=True)
        t3 = time.perf_counter()
        times["parse"].append(t1 - t0)
        times["list"].append(t2 - t1)
        times["list, drives"].append(t3 - t2)
    assert len(plain) == len(driven) == n + 1
    assert sum(bool(f.drives) for f in driven) == n  # each helper calls step
    base = statistics.median(times["parse"])
    print(f"{n} functions, {len(text.splitlines())} lines, {repeats} repeats (medians)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:14} {median * 1e3:8.2f} ms  {median / base:5.2f}x the parse")
    worst = max(statistics.median(v) for k, v in times.items() if k != "parse") / base
    print(f"goal: each list <= 1.0x the parse -> {'met' if worst <= 1.0 else 'NOT met'}")
    print(f"RESULT list_scale worst={worst:.2f}x goal<=1.0")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
