"""The TensorFlow worker's costs: a fresh start against importing TensorFlow, a warm request
against the same work in-process.

Two measurements, interleaved in every repeat, 5 repeats (2 with ``--quick``),
medians; one untimed warm-up of each first (the first start pulls TensorFlow's
files into the page cache, the first report imports agexplorer's engine):

(a) **start**: ``Worker()``, ``start()``, ``request(PingRequest())``, wall time from
    before ``start()`` to the ping's answer (the worker's own ``start_s`` and
    ``import_s`` are printed beside it), against a fresh
    ``python -c "import tensorflow"`` (``subprocess.run``, wall time); both with
    ``TF_CPP_MIN_LOG_LEVEL=3``. Goal: worker / import <= 1.2. A diagnostic row
    times ``python -c "import os, tensorflow; os._exit(0)"`` too: the plain
    import's wall time includes the interpreter's shutdown (TensorFlow's
    teardown), which a worker's start does not.
(b) **warm request**: on one warm worker (started once, kept for all repeats),
    ``request(ReportRequest(target, call=None, budget=0.2))`` for
    ``samples/s4_4_autograph.py::dynamic_loop``, against the same work in this
    process: ``build_report(target, None)`` then ``run_lab(target, None,
    budget=0.2)``. Goal: worker <= 1.1 x in-process + 20 ms. A third row
    compares a ``no_run=True`` request with ``build_report`` alone, since the
    run budget (3 modes x 0.2 s) dominates the full request.

Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_worker.py [--quick]``
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

START_GOAL = 1.2
REQUEST_GOAL, REQUEST_SLACK_S = 1.1, 0.020
BUDGET = 0.2
# Diagnostic: the import without the interpreter's shutdown (TensorFlow's teardown at exit is
# part of the plain import's wall time, and no part of a worker's start).
NO_TEARDOWN = "import os, tensorflow; os._exit(0)"
TARGET = os.path.join(ROOT, "samples", "s4_4_autograph.py") + "::dynamic_loop"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def fresh_worker(worker_cls) -> tuple[float, float | None, float | None]:
    """Wall seconds from ``start()`` to the ping's answer, and the worker's start_s, import_s."""
    from agexplorer.worker.protocol import PingRequest

    worker = worker_cls(env=_env())
    try:
        t0 = time.perf_counter()
        worker.start()
        answer = worker.request(PingRequest(), timeout=180)
        elapsed = time.perf_counter() - t0
        assert answer == "pong", answer
        return elapsed, worker.start_s, worker.import_s
    finally:
        worker.close()


def import_tf_process(code: str = "import tensorflow") -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], env=_env(),
                          capture_output=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"python -c 'import tensorflow' exited {proc.returncode}:\n"
                         f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    gc.collect()
    t0 = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - t0, value


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv)
    started = time.perf_counter()

    from agexplorer.engine.pipeline import build_report
    from agexplorer.lab.runs import run_lab
    from agexplorer.worker.client import Worker
    from agexplorer.worker.protocol import ReportRequest

    def in_process_full():
        report = build_report(TARGET, None)
        lab = run_lab(TARGET, None, budget=BUDGET)
        return report, lab

    full_args = ReportRequest(TARGET, call=None, budget=BUDGET)
    trace_args = ReportRequest(TARGET, call=None, budget=BUDGET, no_run=True)

    # Warm-ups: a fresh start and an import (page cache), the in-process engine, a warm worker.
    fresh_worker(Worker)
    import_tf_process()
    in_process_full()
    warm = Worker(env=_env())
    warm.start()
    warm.request(full_args, timeout=180)
    warm_start_s, warm_import_s = warm.start_s, warm.import_s

    rows: dict[str, list[float]] = {}
    inside: dict[str, list[float]] = {"start_s": [], "import_s": []}
    lab_check = None
    try:
        for _ in range(repeats):
            elapsed, start_s, import_s = fresh_worker(Worker)
            rows.setdefault("worker start", []).append(elapsed)
            inside["start_s"].append(start_s or 0.0)
            inside["import_s"].append(import_s or 0.0)
            rows.setdefault("import tensorflow", []).append(import_tf_process())
            rows.setdefault("import tf, os._exit", []).append(import_tf_process(NO_TEARDOWN))

            rows.setdefault("in-process full", []).append(timed(in_process_full)[0])
            elapsed, answer = timed(warm.request, full_args, timeout=180)
            rows.setdefault("worker full", []).append(elapsed)
            lab_check = answer["lab"]

            rows.setdefault("in-process no-run", []).append(timed(build_report, TARGET, None)[0])
            rows.setdefault("worker no-run", []).append(
                timed(warm.request, trace_args, timeout=180)[0])
    finally:
        warm.close()
    assert lab_check is not None and lab_check.runs["graph"].ok, lab_check

    med = {key: statistics.median(values) for key, values in rows.items()}
    start_ratio = med["worker start"] / med["import tensorflow"]
    full_ratio = med["worker full"] / med["in-process full"]
    full_over = med["worker full"] - med["in-process full"]
    trace_ratio = med["worker no-run"] / med["in-process no-run"]
    trace_over = med["worker no-run"] - med["in-process no-run"]
    full_allowed = REQUEST_GOAL * med["in-process full"] + REQUEST_SLACK_S
    trace_allowed = REQUEST_GOAL * med["in-process no-run"] + REQUEST_SLACK_S

    print(f"worker: {repeats} interleaved repeats, medians of wall time; "
          f"target {os.path.relpath(TARGET.split('::')[0], ROOT)}::dynamic_loop, run budget {BUDGET:g} s")
    header = (f"{'measurement':<22} {'worker s':>9} {'baseline':<18} {'base s':>7} {'ratio':>6} "
              f"{'diff ms':>8} {'goal':<26} {'met':<4}")
    print(header)
    print("-" * len(header))
    lines = [
        ("fresh start + ping", "worker start", "import tensorflow", start_ratio,
         f"ratio <= {START_GOAL}", start_ratio <= START_GOAL),
        ("warm report (full)", "worker full", "in-process full", full_ratio,
         f"<= {REQUEST_GOAL} x base + {REQUEST_SLACK_S * 1000:g} ms", med["worker full"] <= full_allowed),
        ("warm report --no-run", "worker no-run", "in-process no-run", trace_ratio,
         f"<= {REQUEST_GOAL} x base + {REQUEST_SLACK_S * 1000:g} ms",
         med["worker no-run"] <= trace_allowed),
    ]
    for label, mine, base, ratio, goal, met in lines:
        print(f"{label:<22} {med[mine]:>9.3f} {base:<18} {med[base]:>7.3f} {ratio:>6.2f} "
              f"{(med[mine] - med[base]) * 1000:>8.1f} {goal:<26} {'yes' if met else 'no':<4}")
    print(f"  diagnostic: `python -c \"{NO_TEARDOWN}\"` {med['import tf, os._exit']:.3f} s "
          f"(worker start / that: {med['worker start'] / med['import tf, os._exit']:.2f}); "
          f"exit teardown of the plain import about "
          f"{(med['import tensorflow'] - med['import tf, os._exit']) * 1000:.0f} ms")
    for key, values in rows.items():
        print(f"  {key}: repeats s: " + ", ".join(f"{v:.3f}" for v in values))
    print(f"  fresh worker's own timings (median s): start_s={statistics.median(inside['start_s']):.3f} "
          f"import_s={statistics.median(inside['import_s']):.3f}; warm worker's first start: "
          f"start_s={warm_start_s:.3f} import_s={warm_import_s:.3f}")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT worker_start ratio={start_ratio:.2f} goal<={START_GOAL}")
    print(f"RESULT warm_request ratio={full_ratio:.2f} overhead_ms={full_over * 1000:.1f} "
          f"goal<={REQUEST_GOAL}x+{REQUEST_SLACK_S * 1000:g}ms")
    print(f"  (no-run row: ratio={trace_ratio:.2f} overhead_ms={trace_over * 1000:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
