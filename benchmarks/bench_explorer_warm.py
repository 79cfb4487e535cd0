"""The explorer's first verdict with a background worker running (its worker forked from the
background worker's warm zygote, TensorFlow loaded already) against none running (its own
worker imports TensorFlow).

Each repeat runs, interleaved, a fresh headless explorer (the real ``AgxApp`` at 160x45 on
``samples/s6_2_bad_loop.py::range_loop``) in a private runtime folder: once with no
background worker, once after ``agexplorer devices`` started one (kept warm between
repeats). The clock starts just before ``subprocess.Popen`` and stops when this process reads
the child's ``READY`` line, written the moment the first report is in the explorer's state.
The child also says whether its worker was forked. Medians of wall time; 3 repeats (2 with
``--quick``), after one untimed warm-up of each (page cache).

Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_explorer_warm.py [--quick]``
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(ROOT, "samples", "s6_2_bad_loop.py")
CHILD = """
import asyncio, sys
from agexplorer.tui.app import AgxApp

async def main():
    app = AgxApp([sys.argv[1]], "range_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        while app.state.report is None:
            await pilot.pause(0.01)
        print("READY", flush=True)
        print("FORKED", app.bridge.worker.forked, flush=True)

asyncio.run(main())
"""


def first_verdict(env: dict[str, str]) -> tuple[float, bool]:
    """Seconds from the explorer's start to its first report, and whether it forked."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, TARGET], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=ROOT, text=True)
    assert proc.stdout is not None
    ready, forked = None, False
    for line in proc.stdout:
        if line.startswith("READY"):
            ready = time.perf_counter() - t0
        elif line.startswith("FORKED"):
            forked = line.split()[1] == "True"
    proc.wait(timeout=240)
    if ready is None:
        raise SystemExit(f"the explorer gave no report (exit {proc.returncode})")
    return ready, forked


def agx(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "-m", "agexplorer", *args], env=env, cwd=ROOT,
                   capture_output=True, timeout=240, check=True)


def main() -> None:
    repeats = repeats_from_args(__doc__ or "", None, full=3, quick=2)
    with tempfile.TemporaryDirectory() as folder:
        runtime = os.path.join(folder, "runtime")
        os.mkdir(runtime, 0o700)
        env = {k: v for k, v in os.environ.items()
               if k not in ("AGX_NO_DAEMON", "AGX_ZYGOTE", "PYTEST_CURRENT_TEST")}
        env.update(XDG_RUNTIME_DIR=runtime, XDG_STATE_HOME=os.path.join(folder, "state"),
                   TF_CPP_MIN_LOG_LEVEL="3")
        cold_env = dict(env, AGX_NO_DAEMON="1")  # as with no background worker running
        agx(env, "devices")  # starts the background worker, kept warm from here on
        try:
            first_verdict(cold_env), first_verdict(env)  # warm-ups
            cold, warm = [], []
            for _ in range(repeats):
                seconds, forked = first_verdict(cold_env)
                assert not forked
                cold.append(seconds)
                seconds, forked = first_verdict(env)
                assert forked, "the explorer did not fork from the background worker's zygote"
                warm.append(seconds)
        finally:
            agx(env, "daemon", "stop")
    c, w = statistics.median(cold), statistics.median(warm)
    print(f"explorer's first verdict, {repeats} repeats (medians, wall):")
    print(f"  no background worker (own worker imports TensorFlow): {c:.2f} s "
          f"({', '.join(f'{x:.2f}' for x in cold)})")
    print(f"  background worker running (worker forked, TF loaded): {w:.2f} s "
          f"({', '.join(f'{x:.2f}' for x in warm)})")
    print(f"  ratio warm/cold: {w / c:.2f}x")


if __name__ == "__main__":
    main()
