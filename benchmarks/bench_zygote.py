"""A worker forked from a warm zygote against a worker started as users' are (a new interpreter
that imports TensorFlow): wall time from ``Worker.start`` to its Hello, and to the first
report of a sample, interleaved, each repeat with fresh workers.

The zygote (``agexplorer.worker.zygote.Zygote``) is started once, untimed, and waited for.
Medians of 5 repeats (3 with ``--quick``). Printed, never asserted: the machine is shared
and noisy.

Run: ``python benchmarks/bench_zygote.py [--quick]``
"""

from __future__ import annotations

import os
import statistics
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(ROOT, "samples", "s6_2_bad_loop.py") + "::range_loop"


def one(zygote: str | None) -> tuple[float, float, bool]:
    """Seconds to the Hello and to the first report, and whether the worker was forked."""
    from agexplorer.worker.client import Worker
    from agexplorer.worker.protocol import ReportRequest

    worker = Worker(timeout=240, zygote=zygote)
    try:
        t0 = time.perf_counter()
        worker.start()
        worker.wait_ready()
        hello = time.perf_counter() - t0
        worker.request(ReportRequest(TARGET, no_run=True))
        return hello, time.perf_counter() - t0, worker.forked
    finally:
        worker.close()


def main() -> None:
    from agexplorer.worker.zygote import ENV_VAR, Zygote

    repeats = repeats_from_args(__doc__ or "", None, full=5, quick=3)
    os.environ.pop(ENV_VAR, None)  # the started workers must not find one
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    zygote = Zygote()
    try:
        one(zygote.path)  # waits for the zygote's import, untimed
        rows: dict[str, list[tuple[float, float]]] = {"started": [], "forked": []}
        for _ in range(repeats):
            hello, report, forked = one(None)
            assert not forked
            rows["started"].append((hello, report))
            hello, report, forked = one(zygote.path)
            assert forked, "the zygote did not fork the worker"
            rows["forked"].append((hello, report))
    finally:
        zygote.close()
    print(f"a worker's start, {repeats} interleaved repeats (medians, wall):")
    med = {name: (statistics.median(h for h, _ in r), statistics.median(t for _, t in r))
           for name, r in rows.items()}
    for name, (hello, report) in med.items():
        print(f"  {name:8} to its Hello {hello:.3f} s, to the first report {report:.3f} s")
    print(f"  forked / started: Hello {med['forked'][0] / med['started'][0]:.3f}x, "
          f"first report {med['forked'][1] / med['started'][1]:.3f}x")


if __name__ == "__main__":
    main()
