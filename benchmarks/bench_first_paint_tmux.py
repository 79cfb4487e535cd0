"""The explorer's first paint in a real terminal (tmux at 160x45) against a bare Textual app.

Each repeat starts, interleaved, in a fresh detached tmux session, once every process of
the run before has ended (the explorer's worker goes on importing TensorFlow after the
explorer's first paint: left running, it slowed the next run's start):

- **bare**: a Textual app with one label (``BARE``), the floor any Textual app pays
  (the interpreter, Textual's import, its first frame);
- **shape**: a Textual app of the explorer's first frame's shape and nothing of agexplorer
  (``SHAPE``: the samples' functions in a bordered Tree, a one-line status, a Footer with
  the explorer's 23 shown keys): what Textual itself asks of such a screen;
- **explorer**: ``agexplorer samples/`` (the explorer on the folder; its own worker starts
  importing TensorFlow in the background meanwhile, as a user's does; ``AGX_NO_DAEMON=1``);
- **warm**: the same command while a background worker runs (``agexplorer daemon start``, in
  a runtime folder of the run's own): the command hands its terminal to the background
  worker's warm explorer, which opens the explorer in a fork of itself with Textual and the
  explorer imported already (agexplorer/cli/handoff.py); each run starts once that explorer
  and what it started have ended.

The explorer against the shape is agexplorer's own share: its imports and its start-up.

The clock starts just before ``tmux new-session`` and stops at the first
``tmux capture-pane`` that shows the app's content (the label; the function list's first
sample function), polled every 10 ms. The explorer's first frame draws its function list
as lines, and its Tree takes their place just after; for the whole start, the explorer's
runs also time it until its code panes and tabs are laid out ("laid out": not compared).
Best and median of the repeats (5; 3 with ``--quick``), after one untimed warm-up of each
(page cache). Goal (issue 26): the
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
SHAPE = """
import ast, glob, os, sys
from textual.app import App
from textual.binding import Binding
from textual.widgets import Footer, Static, Tree

KEYS = ["f1", "escape", "f8", "n", "N", "ctrl+b", "f5", "t", "f", "alt+down", "ctrl+s",
        "ctrl+f", "a", "f11", "1", "2", "3", "4", "5", "6", "7", "8", "9"]


class Shape(App):
    BINDINGS = [Binding(key, "nothing", key) for key in KEYS]
    CSS = "#functions { width: 30; border: round $primary; } #status { height: 1; }"

    def compose(self):
        tree = Tree("samples", id="functions")
        tree.show_root = False
        for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.py"))):
            node = tree.root.add(os.path.basename(path), expand=True)
            with open(path, encoding="utf-8") as fh:
                for item in ast.parse(fh.read()).body:
                    if isinstance(item, (ast.FunctionDef, ast.ClassDef)):
                        node.add_leaf(item.name)
        yield tree
        yield Static("loading TensorFlow...", id="status")
        yield Footer()

    def action_nothing(self):
        pass


Shape().run()
"""
# The explorer laid out: its code panes and tabs in, after the first frame (the function
# list's Tree takes its lines' place just before: agexplorer/tui/functions/listing.py).
LAID_OUT = "Calls  Doctor"
SESSION = "agx-first-paint"
KEEPER = "agx-first-paint-keeper"


def warm_children() -> list[int]:
    """The explorers the warm explorer opened that still run (forks of it: its shims and
    their explorers, named as it is)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if b"agexplorer.cli.warm" in fh.read():
                        found.append(int(entry))
            except OSError:
                continue
    return sorted(found)[1:]  # the first is the warm explorer itself


def first_paint(command: str, marker: str, limit: float = 60.0,
                laid_out: list[float] | None = None) -> float:
    """Seconds from starting ``command`` in tmux to ``marker`` on its screen; with
    ``laid_out``, the seconds until the explorer's tabs (``LAID_OUT``) show are added to it."""
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    t0 = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "160", "-y", "45",
                    command], check=True)
    first = None
    try:
        while time.perf_counter() - t0 < limit:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", SESSION],
                                    capture_output=True, text=True).stdout
            if first is None and marker in screen:
                first = time.perf_counter() - t0
            if first is not None and (laid_out is None or LAID_OUT in screen):
                if laid_out is not None:
                    laid_out.append(time.perf_counter() - t0)
                return first
            time.sleep(0.01)
        raise SystemExit(f"{marker!r} never showed for {command!r}")
    finally:
        left = descendants(SESSION)
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
        # The explorer's worker is importing TensorFlow: the next run starts once it and
        # everything else of this one has ended (it overlapped the next bare app's start,
        # which made the bare app slower and the ratio kinder than it is).
        deadline = time.perf_counter() + 15
        while left and time.perf_counter() < deadline:
            left = [pid for pid in left if os.path.exists(f"/proc/{pid}")]
            time.sleep(0.02)
        while warm_children() and time.perf_counter() < deadline:
            time.sleep(0.02)


def descendants(session: str) -> list[int]:
    """The processes under the session's pane (its command and whatever that started)."""
    shown = subprocess.run(["tmux", "display-message", "-p", "-t", session, "#{pane_pid}"],
                           capture_output=True, text=True).stdout.strip()
    found, todo = [], [int(shown)] if shown.isdigit() else []
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as fh:
                todo += [int(child) for child in fh.read().split()]
        except OSError:
            continue
    return found


def main() -> None:
    if shutil.which("tmux") is None:
        raise SystemExit("this benchmark needs tmux")
    repeats = repeats_from_args(__doc__ or "", None, full=5, quick=3)
    with tempfile.TemporaryDirectory() as folder:
        bare_py, shape_py = os.path.join(folder, "bare.py"), os.path.join(folder, "shape.py")
        for path, text in ((bare_py, BARE), (shape_py, SHAPE)):
            with open(path, "w") as fh:
                fh.write(text)
        # tmux starts a session's command in its server's environment, not in the one
        # of the client that asked: the variables go on the command line (until
        # 2026-12-05 they were given to the client and none reached the programs).
        state, pycache = os.path.join(folder, "state"), os.path.join(folder, "pycache")
        env = (f"env -u AGX_ZYGOTE -u PYTHONDONTWRITEBYTECODE AGX_NO_DAEMON=1 "
               f"TF_CPP_MIN_LOG_LEVEL=3 TERM=xterm-256color XDG_STATE_HOME={state} "
               # Bytecode as a user's machine has it: pip compiles an installed package,
               # and Python writes an editable one's on its first run. Where writing it is
               # forbidden (PYTHONDONTWRITEBYTECODE, as on this project's machines) every
               # run compiled agexplorer's ~55 modules afresh (~40 ms) while Textual's
               # came compiled from pip: the warm-ups write each program's bytecode to a
               # folder of this run's own.
               f"PYTHONPYCACHEPREFIX={pycache} {sys.executable}")
        bare = f"{env} {bare_py}"
        shape = f"{env} {shape_py} {os.path.join(ROOT, 'samples')}"
        explorer = f"cd {ROOT} && {env} -m agexplorer samples/"
        runtime = os.path.join(folder, "run")
        os.mkdir(runtime, 0o700)
        daemon = env.replace("AGX_NO_DAEMON=1 ", f"XDG_RUNTIME_DIR={runtime} ")
        warm = f"cd {ROOT} && {daemon} -m agexplorer samples/"
        runs: dict[str, list[float]] = {"bare": [], "shape": [], "explorer": [], "warm": []}
        laid_out: list[float] = []
        # a session that keeps the tmux server up between the measured ones (a server
        # that ends with its last session can refuse the next one while it exits)
        subprocess.run(["tmux", "new-session", "-d", "-s", KEEPER, "sleep 3600"], check=True)
        try:
            subprocess.run(f"cd {ROOT} && {daemon} -m agexplorer daemon start", shell=True,
                           check=True, capture_output=True)
            time.sleep(15)  # its TensorFlow worker and warm zygote import TensorFlow
            first_paint(bare, "bare-app-painted")  # warm-ups
            first_paint(shape, "bad_loop")
            first_paint(explorer, "bad_loop")
            first_paint(warm, "bad_loop")
            for _ in range(repeats):
                runs["bare"].append(first_paint(bare, "bare-app-painted"))
                runs["shape"].append(first_paint(shape, "bad_loop"))
                runs["explorer"].append(first_paint(explorer, "bad_loop", laid_out=laid_out))
                runs["warm"].append(first_paint(warm, "bad_loop"))
        finally:
            subprocess.run(["tmux", "kill-session", "-t", KEEPER], capture_output=True)
            subprocess.run(f"cd {ROOT} && {daemon} -m agexplorer daemon stop", shell=True,
                           capture_output=True)
    print(f"first paint in tmux at 160x45, {repeats} repeats (best / median, wall):")
    for name, values in runs.items():
        print(f"  {name:9} {min(values):.3f} s / {statistics.median(values):.3f} s  "
              f"({', '.join(f'{v:.3f}' for v in values)})")
    print(f"  explorer laid out (its code panes and tabs in): {min(laid_out):.3f} s / "
          f"{statistics.median(laid_out):.3f} s")
    for name in ("shape", "explorer", "warm"):
        print(f"  {name} / bare: best {min(runs[name]) / min(runs['bare']):.2f}x, median "
              f"{statistics.median(runs[name]) / statistics.median(runs['bare']):.2f}x"
              + ("  (goal: best <= 1.2x)" if name != "shape" else ""))


if __name__ == "__main__":
    main()
