"""The engine at scale: a loop unrolled 20,000 times (80,000 ops).

Two measurements, each in fresh processes, interleaved, 3 repeats (1 with ``--quick``),
medians:

(a) **inventory vs trace**: in one process, ``build_report`` of the unrolled function;
    the report's own ``inventory_s`` (walking the graph: every op with its file, line,
    outputs and the chain of user frames that made it) against its ``trace_s`` (the
    trace itself, with the recorder on). Goal: inventory <= 0.10 x the trace.
(b) **peak memory**: the peak resident size (``ru_maxrss``) of a process that builds the
    report and pickles it (what the worker does before sending it), against one that
    imports TensorFlow and traces the same function plainly
    (``tf.function(f).get_concrete_function(...)``). Goal: <= 1.3 x.

Timings and sizes are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_scale.py [--quick] [--unroll N]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INVENTORY_GOAL, MEMORY_GOAL = 0.10, 1.3

SOURCE = '''import tensorflow as tf


def unrolled(x):
    for i in range({n}):
        x = x * 1.0001 + 0.5
    return x
'''

REPORT = '''
import json, pickle, resource, sys, time
sys.path.insert(0, {root!r})
from agexplorer.engine.pipeline import build_report
rep = build_report({target!r}, "tf.constant(1.0)")
assert rep.error is None, rep.error.message
blob = pickle.dumps(rep)
print(json.dumps({{"ops": len(rep.inventory.ops), "trace_s": rep.timings["trace_s"],
                  "inventory_s": rep.timings["inventory_s"],
                  "call_tree_s": rep.timings.get("call_tree_s", 0.0), "pickle_mb": len(blob) / 1e6,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
'''

PLAIN = '''
import json, resource, sys, time
sys.path.insert(0, {folder!r})
import tensorflow as tf
from scaled import unrolled
t0 = time.perf_counter()
cf = tf.function(unrolled).get_concrete_function(tf.constant(1.0))
trace_s = time.perf_counter() - t0
print(json.dumps({{"ops": len(cf.graph.get_operations()), "trace_s": trace_s,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
'''


def run(code: str) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 repeat instead of 3")
    parser.add_argument("--unroll", type=int, default=20_000)
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else 3
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "scaled.py")
        with open(path, "w") as f:
            f.write(SOURCE.format(n=args.unroll))
        target = f"{path}::unrolled"
        reports, plains = [], []
        for _ in range(repeats):
            reports.append(run(REPORT.format(root=ROOT, target=target)))
            plains.append(run(PLAIN.format(folder=folder)))
    med = lambda rows, key: statistics.median(r[key] for r in rows)  # noqa: E731
    ops = reports[0]["ops"]
    inv_ratio = med(reports, "inventory_s") / med(reports, "trace_s")
    mem_ratio = med(reports, "peak_mb") / med(plains, "peak_mb")
    print(f"engine at scale: a loop unrolled {args.unroll:,} times, {ops:,} ops "
          f"(plain trace: {plains[0]['ops']:,}); {repeats} repeat(s), medians")
    print(f"  trace with the recorder   {med(reports, 'trace_s'):8.2f} s  "
          f"(plain trace {med(plains, 'trace_s'):.2f} s)")
    print(f"  op inventory              {med(reports, 'inventory_s'):8.2f} s  "
          f"= {inv_ratio:.3f} x the trace (goal <= {INVENTORY_GOAL})")
    print(f"  call tree                 {med(reports, 'call_tree_s'):8.3f} s")
    print(f"  peak memory, report + pickle {med(reports, 'peak_mb'):7.0f} MB vs plain trace "
          f"{med(plains, 'peak_mb'):.0f} MB = {mem_ratio:.2f} x (goal <= {MEMORY_GOAL}); "
          f"the pickled report {med(reports, 'pickle_mb'):.1f} MB")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT scale inventory_ratio={inv_ratio:.3f} goal<={INVENTORY_GOAL} "
          f"memory_ratio={mem_ratio:.2f} goal<={MEMORY_GOAL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
