"""agexplorer.explain(f, x) against a bare ``tf.autograph.to_code(f)`` plus one trace, in one warm process.

What a notebook user pays for the report over what they would do by hand: for each
function below, in one process with TensorFlow and agexplorer already imported and warmed,
each round times ``agexplorer.explain(f, x)`` and, on another fresh function object of the
same text, ``tf.autograph.to_code(f)`` followed by ``tf.function(f).get_concrete_function(x)``.
Every round's functions are new objects of new code (a docstring naming the round and the
side), so AutoGraph's cache of conversions (keyed by code object) holds nothing for
either; the two sides alternate which goes first. Medians of 15 rounds (5 with ``--quick``).

Goal: explain / bare <= 1.3 for ``range_loop`` (the RESULT line); the other rows show how
the ratio moves with the trace's size. Timings are printed, never asserted: the machine is
shared and noisy.

Run: ``python benchmarks/bench_explain.py [--quick]``
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from _common import repeats_from_args  # noqa: E402

GOAL = 1.3
# (name, the function's text with {doc} for its docstring, the call's argument expressions)
CASES = [
    ("range_loop", '''
def range_loop(x):
    """{doc}"""
    for i in range(5):
        x = x + tf.cast(i, x.dtype)
    return x
''', "tf.ones([3])"),
    ("staged_loop_and_cond", '''
def staged_loop_and_cond(x, n):
    """{doc}"""
    for i in tf.range(n):
        x = x * 0.5 + tf.cast(i, x.dtype)
    if tf.reduce_sum(x) > 10:
        x = x / 2.0
    return x
''', "tf.ones([3]), tf.constant(5)"),
    ("range_loop_x50", '''
def range_loop_x50(x):
    """{doc}"""
    for i in range(50):
        x = tf.tanh(x * 0.5) + tf.cast(i, x.dtype)
    return x
''', "tf.ones([8, 8])"),
]


def fresh(folder: str, name: str, text: str, doc: str) -> object:
    """A new function object of new code: ``text`` written to its own file and imported."""
    module_name = f"bench_{doc.replace(' ', '_').replace(',', '')}"
    path = os.path.join(folder, f"{module_name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("import tensorflow as tf\n" + text.format(doc=doc))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # as an import would (Keras's layer lookups need it)
    spec.loader.exec_module(module)
    return getattr(module, name)


def bare(tf, fn, args) -> None:
    tf.autograph.to_code(fn)
    tf.function(fn).get_concrete_function(*args)


def bench_case(tf, agexplorer, folder: str, name: str, text: str, call: str,
               rounds: int) -> dict:
    args = eval(f"({call},)", {"tf": tf})  # the benchmark's own argument expressions
    fresh(folder, name, text, f"{name} warm explain")  # untimed: first-use costs of both paths
    agexplorer.explain(fresh(folder, name, text, f"{name} warm explain"), *args)
    bare(tf, fresh(folder, name, text, f"{name} warm bare"), args)
    times: dict[str, list[float]] = {"explain": [], "bare": []}
    inside: dict[str, list[float]] = {}
    for r in range(rounds):
        order = ("explain", "bare") if r % 2 == 0 else ("bare", "explain")
        for side in order:
            fn = fresh(folder, name, text, f"{name} round {r} {side}")
            t0 = time.perf_counter()
            if side == "explain":
                explained = agexplorer.explain(fn, *args)
            else:
                bare(tf, fn, args)
            times[side].append(time.perf_counter() - t0)
            if side == "explain":
                assert explained.error is None, explained.error
                for key, value in explained.report.timings.items():
                    inside.setdefault(key, []).append(value)
    ex, ba = statistics.median(times["explain"]), statistics.median(times["bare"])
    return {"name": name, "explain": ex, "bare": ba, "ratio": ex / ba,
            "ops": len(explained.report.inventory.ops),
            "inside": {k: statistics.median(v) for k, v in inside.items()}}


def main(argv: list[str] | None = None) -> int:
    rounds = repeats_from_args(__doc__, argv, full=15, quick=5)
    import tensorflow as tf

    import agexplorer

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agx-bench-explain-") as folder:
        rows = [bench_case(tf, agexplorer, folder, name, text, call, rounds)
                for name, text, call in CASES]
    print(f"explain vs bare to_code + get_concrete_function: {rounds} rounds, one warm "
          "process, medians")
    header = f"{'function':<24} {'ops':>5} {'explain ms':>11} {'bare ms':>8} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['name']:<24} {r['ops']:>5} {r['explain'] * 1e3:>11.1f} "
              f"{r['bare'] * 1e3:>8.1f} {r['ratio']:>6.2f}")
    for r in rows:
        inside = ", ".join(f"{k[:-2]}={v * 1e3:.1f}" for k, v in r["inside"].items())
        print(f"  {r['name']}: explain's own timings (median ms): {inside}")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT explain_overhead ratio={rows[0]['ratio']:.2f} goal<={GOAL}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
