"""Wall time of ``agexplorer report --no-run --json`` against a plain script doing the same work.

Measures, for one sample function, the wall time of a fresh process running
``agexplorer report PATH::FUNC --no-run --json`` (the console script's code) (stdout to a pipe,
discarded) and of a fresh process running ``benchmarks/baseline_plain.py``
(import TensorFlow, load the file, ``tf.autograph.to_code``, one trace, every op
of the graph and of its nested bodies with its user line, printed as JSON).
The two are interleaved (agexplorer, baseline, agexplorer, ...; one untimed
warm-up run of each first), repeated 7 times (3 with ``--quick``), and the
medians are compared. Both run with ``TF_CPP_MIN_LOG_LEVEL=3``.

Goal: agexplorer / baseline <= 1.25 for ``samples/s4_4_autograph.py::dynamic_loop``
(the RESULT line). ``samples/s6_2_bad_loop.py::range_loop`` is a second row.
Both start cold: the agexplorer command runs with ``AGX_NO_DAEMON=1`` (a background
worker's warm answer is ``bench_daemon.py``'s figure). Timings are printed, never asserted:
the machine is shared and noisy.

Run: ``python benchmarks/bench_report_overhead.py [--quick]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "benchmarks", "baseline_plain.py")
GOAL = 1.25
# (sample file, function, argument list for the baseline: the sample's AGX_CALLS entry)
CASES = [
    ("samples/s4_4_autograph.py", "dynamic_loop", "tf.constant(5)"),
    ("samples/s6_2_bad_loop.py", "range_loop", "5"),
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    # Each agexplorer run in a worker of its own, as the plain script is: the background
    # worker's warm answers are bench_daemon.py's question.
    env["AGX_NO_DAEMON"] = "1"
    return env


def _run(cmd: list[str]) -> tuple[float, str]:
    """Wall seconds of one fresh process, and its stdout (checked, then discarded by the caller)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                         f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, proc.stdout.decode()


def bench_case(path: str, func: str, args_expr: str, pairs: int) -> dict:
    # What the installed `agexplorer` console script runs (a fresh checkout may not have the
    # script on PATH yet). `python -m agexplorer` costs about 0.3 s more on this machine,
    # inside TensorFlow's import; see the README.
    agx_cmd = [sys.executable, "-c", "import sys; from agexplorer.cli import main; "
               "sys.exit(main())", "report", f"{path}::{func}", "--no-run", "--json"]
    base_cmd = [sys.executable, BASELINE, path, func, args_expr]
    # Untimed warm-up of each: the first start pulls TensorFlow's files into the page cache.
    _, agx_out = _run(agx_cmd)
    _, base_out = _run(base_cmd)
    agx_ops = json.loads(agx_out)["graph"]["op_count"]
    base_ops = json.loads(base_out)["op_count"]
    agx_times: list[float] = []
    base_times: list[float] = []
    internal: dict[str, list[float]] = {}
    for _ in range(pairs):
        elapsed, out = _run(agx_cmd)
        agx_times.append(elapsed)
        for key, value in json.loads(out)["timings"].items():
            internal.setdefault(key, []).append(value)
        base_times.append(_run(base_cmd)[0])
    agx = statistics.median(agx_times)
    base = statistics.median(base_times)
    return {"target": f"{os.path.basename(path)}::{func}", "agx": agx, "base": base,
            "ratio": agx / base, "agx_ops": agx_ops, "base_ops": base_ops,
            "agx_all": agx_times, "base_all": base_times,
            "internal": {k: statistics.median(v) for k, v in internal.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 pairs instead of 7 (a smoke run)")
    args = parser.parse_args(argv)
    pairs = 3 if args.quick else 7
    started = time.perf_counter()
    rows = [bench_case(path, func, call, pairs) for path, func, call in CASES]

    print(f"report overhead: {pairs} interleaved pairs per row, medians of fresh-process wall time")
    header = f"{'target':<34} {'agexplorer s':>12} {'baseline s':>10} {'ratio':>6} {'ops agx/base':>12}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['target']:<34} {r['agx']:>12.3f} {r['base']:>10.3f} {r['ratio']:>6.2f} "
              f"{r['agx_ops']:>6}/{r['base_ops']:<5}")
    for r in rows:
        spread = ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(r["agx_all"], r["base_all"], strict=True))
        inside = ", ".join(f"{k}={v:.3f}" for k, v in r["internal"].items())
        print(f"  {r['target']}: pairs agx/base s: {spread}")
        print(f"  {r['target']}: agexplorer's own timings (median s): {inside}")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT report_overhead ratio={rows[0]['ratio']:.2f} goal<={GOAL}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
