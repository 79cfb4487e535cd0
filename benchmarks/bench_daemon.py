"""A headless command with the background worker against the same command without it.

Per repeat, side by side in one run, each a fresh ``python -m agexplorer`` process timed by
its wall clock, in a runtime folder of this run's own:

(a) **cold**: ``report samples/s6_2_bad_loop.py::bad_loop --no-run --json --no-daemon``, the
    command with a worker of its own (TensorFlow imported for it), as every command was
    before the background worker;
(b) **first**: the same command without ``--no-daemon`` while no background worker runs (it
    starts one; once per run, on the first repeat);
(c) **warm**: the same command again, answered by that background worker.

Goal (issue 26): warm / cold <= 0.2. Also printed: ``doctor`` and ``retrace`` warm against
cold, and whether each warm JSON equals its cold one (timings and TensorFlow's graph-function
counter aside). Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_daemon.py [--quick]`` (5 repeats, 2 with ``--quick``).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from same_answer import comparable  # noqa: E402 - the tests' own comparison

BAD_LOOP = os.path.join(ROOT, "samples", "s6_2_bad_loop.py")
RUNS = os.path.join(ROOT, "tests", "fixtures", "runs.py")
GOAL = 0.2
COMMANDS = {
    "report": ["report", f"{BAD_LOOP}::bad_loop", "--no-run", "--json"],
    "doctor": ["doctor", f"{BAD_LOOP}::bad_loop", "--json"],
    "retrace": ["retrace", f"{RUNS}::square", "--call", "tf.constant(1.0)", "--call",
                "tf.constant(2)", "--json"],
}


def run(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "agexplorer", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=600)
    return time.perf_counter() - started, done.stdout


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv)
    runtime = tempfile.mkdtemp(prefix="agx-bench-run-")
    os.chmod(runtime, 0o700)
    env = {k: v for k, v in os.environ.items() if k != "AGX_NO_DAEMON"}
    env.update(XDG_RUNTIME_DIR=runtime, TF_CPP_MIN_LOG_LEVEL="3")
    times: dict[str, list[float]] = {}
    same: dict[str, bool] = {}
    try:
        first, _ = run(COMMANDS["report"], env)  # starts the background worker
        for _ in range(repeats):
            for name, args in COMMANDS.items():
                cold, cold_out = run([*args, "--no-daemon"], env)
                warm, warm_out = run(args, env)
                times.setdefault(f"{name} cold", []).append(cold)
                times.setdefault(f"{name} warm", []).append(warm)
                same[name] = same.get(name, True) and (
                    comparable(json.loads(warm_out)) == comparable(json.loads(cold_out)))
    finally:
        subprocess.run([sys.executable, "-m", "agexplorer", "daemon", "stop"], env=env,
                       capture_output=True, timeout=60)
        shutil.rmtree(runtime, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{repeats} repeats, medians (wall seconds of each command's process)")
    print(f"  report, starting the background worker: {first:.2f} s")
    for name in COMMANDS:
        cold, warm = med[f"{name} cold"], med[f"{name} warm"]
        print(f"  {name:8s} cold {cold:6.2f} s   warm {warm:6.2f} s   warm/cold {warm / cold:.3f}"
              f"   same JSON: {'yes' if same[name] else 'NO'}")
    ratio = med["report warm"] / med["report cold"]
    print(f"goal: a second report --no-run on a warm worker <= {GOAL}x the cold one: "
          f"{ratio:.3f}x {'met' if ratio <= GOAL else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
