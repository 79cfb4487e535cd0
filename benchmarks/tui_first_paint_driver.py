"""Child process of ``bench_tui_first_paint.py``: open the real explorer on all the samples,
print ``PAINTED`` the moment the function list is on the first drawn screen, then exit.

It runs the real ``AgxApp`` (its CSS, widgets, picker, source pane) on every file of
``samples/``, headless (``App.run(headless=True, size=(160, 45))``: the same app loop,
layout and compositor as in a terminal, only the final escape codes are not written), so no
terminal is needed. A tiny subclass wraps ``App._display``, through which every frame
Textual composites goes to the terminal driver: at the first frame drawn while the picker
holds its functions, it renders that frame's escape codes (what a terminal would be sent;
headless Textual skips that step) and writes ``PAINTED`` straight to fd 1 (``os.write``,
past Textual's print capture). The parent stops its clock when it reads that line, so the
figure is wall time from just before ``Popen``: interpreter start, imports, app start-up,
first frame. The app mounts its code panes and panels just after that frame; the child
waits for the source pane to show the first function (``SOURCE``), writes a few
diagnostics and leaves with ``os._exit(0)``, never waiting for TensorFlow.

The worker (``--worker``):

- ``idle`` (the measured figure): the app gets a ``Worker`` subclass whose ``start()`` does
  nothing and whose ``request()`` blocks forever, as if TensorFlow were still loading. No
  worker process exists, so none can outlive the child, and nothing imports TensorFlow;
  the app's own code runs unchanged (the bridge's warm-up and first analysis wait in their
  thread workers, exactly where they wait in real use). Chosen over starting a real worker
  and killing it because it measures what the first screen costs the UI process alone,
  without a 4-second TensorFlow import fighting it for the 2 CPUs.
- ``real`` (a diagnostic row): a real ``Worker`` starts in the background as in normal
  use, so its TensorFlow import competes for the CPUs while the UI paints. Before exiting
  the child kills the worker's process group (it runs in its own session) with SIGKILL.

Diagnostics after ``PAINTED`` (``KEY value`` lines): ``TF_LOADED`` (``"tensorflow" in
sys.modules`` at paint time; must be False), ``FUNCTIONS`` (how many the picker lists),
``PICKER_SHOWS`` (the first function's name is in the picker's rendered lines) and ``T_*``
phase timestamps from ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux, one clock for
parent and child, so the parent subtracts its own start). ``--profile FILE`` writes a
cProfile of the app's start-up (from after the imports to ``SOURCE``) for the benchmark's
diagnosis. A watchdog ends the child after 60 s if it never paints.

Run by the benchmark: ``python benchmarks/tui_first_paint_driver.py [--worker idle|real]
[--profile FILE]``.
"""

from __future__ import annotations

import time

T_MAIN = time.perf_counter()  # the interpreter and site are up

import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


import agexplorer.tui.app  # noqa: E402
from agexplorer.tui.app import AgxApp  # noqa: E402
from agexplorer.worker.client import Worker  # noqa: E402

T_IMPORTED = time.perf_counter()
WATCHDOG_S = 60.0


def _option(name: str, default: str | None = None) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


PROFILE_FILE = _option("--profile")
PROFILER = None
if PROFILE_FILE:
    import cProfile

    PROFILER = cProfile.Profile()


def emit(line: str) -> None:
    """One line on the real stdout, unbuffered (Textual captures ``sys.stdout`` while running)."""
    os.write(1, (line + "\n").encode())


class IdleWorker(Worker):
    """A worker that never starts and never answers: TensorFlow is 'still loading'."""

    def start(self) -> None:
        pass

    def request(self, req, **kwargs):
        threading.Event().wait()  # blocks its Textual thread worker until the process ends

    def close(self) -> None:
        pass


class RealWorker(Worker):
    """The real worker; remembers that its process exists so the child can kill it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.spawned = threading.Event()

    def start(self) -> None:
        super().start()
        self.spawned.set()

    def kill_now(self) -> None:
        self.spawned.wait(5)
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass


class PaintProbe(AgxApp):
    """AgxApp, plus a probe that announces the first paint of the function list."""

    # Textual resolves a relative CSS_PATH against the subclass's file: point at the app's own.
    CSS_PATH = os.path.join(os.path.dirname(agexplorer.tui.app.__file__), AgxApp.CSS_PATH)
    _probe_painted = False

    def _display(self, screen, renderable) -> None:
        """Every frame Textual composites passes here on its way to the terminal."""
        super()._display(screen, renderable)
        if self._probe_painted or renderable is None or self._batch_count:
            return
        picker = self.query_one("#picker")
        if not picker.functions():
            return
        if self.is_headless:  # the escape codes a real terminal would be sent for this frame
            renderable.render_segments(self.console)
        self._probe_painted = True
        self._probe_paint()

    def _probe_paint(self) -> None:
        picker = self.query_one("#picker")
        tf_loaded = "tensorflow" in sys.modules
        emit("PAINTED")
        t_painted = time.perf_counter()
        first = picker.functions()[0][1]
        lines = ["".join(s.text for s in picker.render_line(y)) for y in range(picker.size.height)]
        emit(f"TF_LOADED {tf_loaded}")
        emit(f"FUNCTIONS {len(picker.functions())}")
        emit(f"PICKER_SHOWS {any(first in line for line in lines)}")
        for name, value in (("T_MAIN", T_MAIN), ("T_IMPORTED", T_IMPORTED),
                            ("T_PAINTED", t_painted)):
            emit(f"{name} {value:.6f}")
        self.call_after_refresh(self._probe_source)

    def _probe_source(self) -> None:
        if not self.workspace_ready or not self.query_one("#source").text:
            self.call_after_refresh(self._probe_source)
            return
        emit(f"T_SOURCE {time.perf_counter():.6f}")
        emit(f"TF_LOADED_AT_EXIT {'tensorflow' in sys.modules}")
        if PROFILER is not None:
            PROFILER.disable()
            PROFILER.dump_stats(PROFILE_FILE)
        worker = self.bridge.worker
        if isinstance(worker, RealWorker):
            worker.kill_now()
        emit("END")
        os._exit(0)


def _watchdog() -> None:
    emit(f"WATCHDOG no paint within {WATCHDOG_S:g} s")
    os._exit(2)


def main() -> None:
    timer = threading.Timer(WATCHDOG_S, _watchdog)
    timer.daemon = True
    timer.start()
    folder = os.path.join(ROOT, "samples")
    paths = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    worker = RealWorker() if _option("--worker", "idle") == "real" else IdleWorker()
    if PROFILER is not None:
        PROFILER.enable()
    PaintProbe(paths, worker=worker).run(headless=True, size=(160, 45))
    emit("EXITED_WITHOUT_PAINT")
    os._exit(1)


if __name__ == "__main__":
    main()
