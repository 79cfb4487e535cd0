"""The lesson's section 5 benchmark (eager vs ``@tf.function`` training step) through agexplorer.

Runs, each in a fresh process with ``TF_CPP_MIN_LOG_LEVEL=3``:

1. ``agexplorer report samples/s5_training.py::train_step_graph --json --budget 2``
   (the ``agexplorer`` console script): the run lab's eager, graph and XLA
   medians per training step (Dense 64-32-1, Adam, a batch of 256), the
   speed-ups over eager and the first-call times (tracing, XLA compilation);
2. ``python samples/s5_training.py``: the lesson's own timing loop (5 epochs
   over 40 batches, eager then graph, ``time.time()`` around each), its eager
   time, graph time and speed-up. It runs in a temporary folder, since it
   writes a TensorBoard log under ``logs/`` of its working directory.

The lesson claims graph mode is 1.5x-3x faster. The two measure different
things: the run lab times one step on one fixed batch (steady state, the
first call apart); the lesson's loop times whole epochs, including the
``tf.data`` iteration and, for the graph, its tracing. A summary table and the
machine (CPU count and model, TensorFlow version, the device used) close the
output. With ``--quick``, the agexplorer run uses ``--budget 0.5``.
This is a report of the lesson's claim, not a benchmark with a goal: its
RESULT line gives the run lab's graph speed-up against the lesson's 1.5x-3x.

Run: ``python benchmarks/lesson_training.py [--quick]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = "samples/s5_training.py"
TARGET = f"{SAMPLE}::train_step_graph"
CLAIM = (1.5, 3.0)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def _run(cmd: list[str], cwd: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                         f"{proc.stdout.decode(errors='replace')[-2000:]}\n"
                         f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, proc.stdout.decode()


def _agexplorer() -> list[str]:
    """The console script, from this interpreter's bin folder or PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "agexplorer")
    found = here if os.path.exists(here) else shutil.which("agexplorer")
    if found is None:
        raise SystemExit("the `agexplorer` console script is not installed; run `pip install -e .`")
    return [found]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1000:.3f}" if seconds is not None else "-"


def _x(value: float | None) -> str:
    return f"{value:.2f}x" if value is not None else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="--budget 0.5 instead of 2 (a smoke run)")
    args = parser.parse_args(argv)
    budget = "0.5" if args.quick else "2"
    started = time.perf_counter()

    cmd = [*_agexplorer(), "report", TARGET, "--json", "--budget", budget]
    agx_wall, out = _run(cmd, ROOT)
    data = json.loads(out)
    runs, speedup = data["runs"], data["speedup"]
    failed = [m for m, r in runs.items() if not r["ok"]]
    if failed:
        for m in failed:
            print(f"{m} failed: {runs[m]['error']}")

    with tempfile.TemporaryDirectory(prefix="agx_lesson_") as folder:
        lesson_wall, lesson_out = _run([sys.executable, os.path.join(ROOT, SAMPLE)], folder)
    found = {key: re.search(rf"{key}: ([0-9.]+)", lesson_out)
             for key in ("Eager time", "Graph time", "Speedup")}
    missing = [k for k, m in found.items() if m is None]
    if missing:
        raise SystemExit(f"the lesson's output lacks {missing}:\n{lesson_out}")
    eager_s, graph_s, lesson_speedup = (float(m.group(1)) for m in found.values() if m is not None)
    steps = 5 * 40  # 5 epochs of 10,000 rows in batches of 256

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    ran_on = {r.get("ran_on") for r in runs.values() if r.get("ran_on")}
    print(f"`agexplorer report {TARGET} --json --budget {budget}` ({agx_wall:.1f} s wall)")
    header = f"{'mode':<6} {'median ms/step':>14} {'min ms':>8} {'max ms':>8} {'first call ms':>13} " \
             f"{'calls':>6} {'speed-up':>8} {'traces':>6}"
    print(header)
    print("-" * len(header))
    for mode in ("eager", "graph", "xla"):
        r = runs[mode]
        up = 1.0 if mode == "eager" else speedup.get(mode)
        print(f"{mode:<6} {_ms(r['median_s']):>14} {_ms(r['min_s']):>8} {_ms(r['max_s']):>8} "
              f"{_ms(r['first_call_s']):>13} {r['calls']:>6} {_x(up):>8} "
              f"{r['tracing_count'] if r['tracing_count'] is not None else '-':>6}")
    print(f"results match across modes: {data.get('results_match')}"
          + (f" ({data['mismatch']}; each mode starts from a fresh load of the module, whose "
             "weights are initialised unseeded)" if data.get("mismatch") else ""))
    print()
    print(f"`python {SAMPLE}` (the lesson's loop, {lesson_wall:.1f} s wall)")
    for line in lesson_out.splitlines():
        if line.startswith(("Eager time", "Graph time", "Speedup")):
            print(f"  {line}")
    print()
    print("summary: graph speed-up over eager (lesson's claim: "
          f"{CLAIM[0]:g}x-{CLAIM[1]:g}x)")
    header = f"{'measure':<44} {'eager':>10} {'graph':>10} {'XLA':>10} {'graph x':>8} {'XLA x':>7}"
    print(header)
    print("-" * len(header))
    print(f"{'agexplorer run lab, ms/step (steady state)':<44} "
          f"{_ms(runs['eager']['median_s']):>10} {_ms(runs['graph']['median_s']):>10} "
          f"{_ms(runs['xla']['median_s']):>10} {_x(speedup.get('graph')):>8} {_x(speedup.get('xla')):>7}")
    print(f"{'lesson loop, ms/step (5 epochs, with tf.data)':<44} "
          f"{eager_s / steps * 1000:>10.3f} {graph_s / steps * 1000:>10.3f} {'-':>10} "
          f"{_x(lesson_speedup):>8} {'-':>7}")
    print(f"{'lesson loop, s total':<44} {eager_s:>10.2f} {graph_s:>10.2f} {'-':>10} "
          f"{_x(eager_s / graph_s):>8} {'-':>7}")
    print()
    print(f"machine: {os.cpu_count()} CPUs, {_cpu_model()}; Python {platform.python_version()}; "
          f"TensorFlow {tf.__version__}; device {data.get('device')}"
          + (f" (ran on {', '.join(sorted(ran_on))})" if ran_on else ""))
    print(f"total {time.perf_counter() - started:.1f} s")
    graph_up = speedup.get("graph")
    print(f"RESULT lesson_training graph_speedup={f'{graph_up:.2f}' if graph_up is not None else 'nan'} "
          f"lesson_speedup={lesson_speedup:.2f} claim={CLAIM[0]:g}..{CLAIM[1]:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
