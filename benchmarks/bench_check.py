"""`agexplorer check` of the samples' ready functions in one run, against one
`agexplorer report PATH::FUNC --no-run` command per function.

Both sides are fresh processes (``subprocess.run``, wall time, ``TF_CPP_MIN_LOG_LEVEL=3``),
so each pays its own interpreter and TensorFlow start, as in CI:

(a) **check**: ``python -m agexplorer check samples --golden tests/golden/check_samples.json``
    (every ready function of the samples, one worker).
(b) **separate**: ``python -m agexplorer report samples/F::FUNC --no-run`` for each of those
    functions, one after the other.

Goal: check / separate <= 0.3. The full run times all of them once; ``--quick`` times
the first 4 separate commands only and scales their mean to all the functions (the
output says so): a separate command's cost barely depends on the function, its start
dominates. Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_check.py [--quick]``
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join("tests", "golden", "check_samples.json")


def timed(args: list[str]) -> tuple[float, int]:
    # Cold, as in CI: no background worker answers warm (its figure is bench_daemon.py's).
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "AGX_NO_DAEMON": "1"}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "agexplorer", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, done.returncode


def main(argv: list[str] | None = None) -> None:
    quick = repeats_from_args(__doc__, argv, full=1, quick=0) == 0
    sys.path.insert(0, ROOT)
    from agexplorer.check.run import find_targets

    targets = find_targets([os.path.join(ROOT, "samples")])
    check_s, code = timed(["check", "samples", "--golden", GOLDEN])
    print(f"check, {len(targets)} functions in one run: {check_s:6.2f} s (exit {code})")
    timed_targets = targets[:4] if quick else targets
    separate = []
    for t in timed_targets:
        seconds, code = timed(["report", f"{os.path.relpath(t.file, ROOT)}::{t.function}",
                               "--no-run"])
        separate.append(seconds)
        print(f"  report --no-run {os.path.basename(t.file)}::{t.function}: {seconds:6.2f} s "
              f"(exit {code})")
    mean = sum(separate) / len(separate)
    total = mean * len(targets)
    how = (f"{len(separate)} timed, their mean x {len(targets)} (--quick: scaled)"
           if quick else f"all {len(targets)} timed")
    print(f"separate report --no-run commands: {total:6.2f} s ({how}; {mean:.2f} s each)")
    print(f"ratio check / separate: {check_s / total:.2f}x (goal <= 0.3x)")


if __name__ == "__main__":
    main()
