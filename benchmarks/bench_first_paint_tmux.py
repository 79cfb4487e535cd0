"""The explorer's first paint in a real terminal (tmux at 160x45) against a bare Textual app.

Each repeat starts, interleaved, in a fresh detached tmux session:

- **bare**: a Textual app with one label (``BARE``), the floor any Textual app pays
  (the interpreter, Textual's import, its first frame);
- **explorer**: ``agexplorer samples/`` (the explorer on the folder; its own worker starts
  importing TensorFlow in the background meanwhile, as a user's does; ``AGX_NO_DAEMON=1``).

The clock starts just before ``tmux new-session`` and stops at the first
``tmux capture-pane`` that shows the app's content (the label; the function list's first
sample function), polled every 10 ms. Best and median of the repeats (5; 3 with
``--quick``), after one untimed warm-up of each (page cache). Goal (issue 26): the
explorer's best at most 1.2x the bare app's best.

Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_first_paint_tmux.py [--quick]`` (needs tmux)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BARE = """
from textual.app import App
from textual.widgets import Label


class Bare(App):
    def compose(self):
        yield Label("bare-app-painted")


Bare().run()
"""
SESSION = "agx-first-paint"
KEEPER = "agx-first-paint-keeper"


def first_paint(command: str, marker: str, env: dict[str, str], limit: float = 60.0) -> float:
    """Seconds from starting ``command`` in tmux to ``marker`` on its screen."""
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    t0 = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "160", "-y", "45",
                    command], env=env, check=True)
    try:
        while time.perf_counter() - t0 < limit:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION],
                                    capture_output=True, text=True).stdout
            if marker in screen:
                return time.perf_counter() - t0
            time.sleep(0.01)
        raise SystemExit(f"{marker!r} never showed for {command!r}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)


def main() -> None:
    if shutil.which("tmux") is None:
        raise SystemExit("this benchmark needs tmux")
    repeats = repeats_from_args(__doc__ or "", None, full=5, quick=3)
    with tempfile.TemporaryDirectory() as folder:
        bare_py = os.path.join(folder, "bare.py")
        with open(bare_py, "w") as fh:
            fh.write(BARE)
        env = dict(os.environ, AGX_NO_DAEMON="1", TF_CPP_MIN_LOG_LEVEL="3",
                   XDG_STATE_HOME=os.path.join(folder, "state"), TERM="xterm-256color")
        env.pop("AGX_ZYGOTE", None)
        bare = f"{sys.executable} {bare_py}"
        explorer = f"cd {ROOT} && {sys.executable} -m agexplorer samples/"
        runs: dict[str, list[float]] = {"bare": [], "explorer": []}
        # a session that keeps the tmux server up between the measured ones (a server
        # that ends with its last session can refuse the next one while it exits)
        subprocess.run(["tmux", "new-session", "-d", "-s", KEEPER, "sleep 3600"], check=True)
        try:
            first_paint(bare, "bare-app-painted", env)  # warm-ups
            first_paint(explorer, "bad_loop", env)
            for _ in range(repeats):
                runs["bare"].append(first_paint(bare, "bare-app-painted", env))
                runs["explorer"].append(first_paint(explorer, "bad_loop", env))
        finally:
            subprocess.run(["tmux", "kill-session", "-t", KEEPER], capture_output=True)
    print(f"first paint in tmux at 160x45, {repeats} repeats (best / median, wall):")
    for name, values in runs.items():
        print(f"  {name:9} {min(values):.3f} s / {statistics.median(values):.3f} s  "
              f"({', '.join(f'{v:.3f}' for v in values)})")
    print(f"  explorer / bare: best {min(runs['explorer']) / min(runs['bare']):.2f}x, "
          f"median {statistics.median(runs['explorer']) / statistics.median(runs['bare']):.2f}x "
          "(goal: best <= 1.2x)")


if __name__ == "__main__":
    main()
