"""Suspending the explorer (SIGTSTP) while its main thread writes a frame: Textual's driver
suspended the terminal inside the signal handler, through the writer queue whose lock the
interrupted write held, and the explorer hung for ever (it never stopped; once its terminal
closed, its input thread spun on end-of-file). With the handlers on the event loop it stops,
continues on SIGCONT and ends as asked."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time

from agexplorer.worker.descendants import process_state

CHILD = '''\
import signal
import sys

from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from textual.widgets import Label

from agexplorer.tui.job_control import job_control_on_loop


class Held(App):
    def compose(self):
        yield Label("held")

    def on_mount(self):
        self.set_timer(0.3, self.hold)

    def hold(self):
        # The main thread inside the writer queue's lock, as while a frame is written:
        # the signal's Python handler runs before the lock is let go.
        queue = self._driver._writer_thread._queue
        with queue.mutex:
            signal.raise_signal(signal.SIGTSTP)
        self.set_timer(0.5, self.exit)


Held(driver_class=job_control_on_loop(LinuxDriver)).run()
'''


def _state(pid: int) -> str:
    return process_state(pid) or "gone"


def _drain(master: int) -> None:
    if select.select([master], [], [], 0.05)[0]:
        with contextlib.suppress(OSError):  # the child closed its end
            os.read(master, 65536)


def test_a_suspend_that_comes_mid_write_stops_the_explorer_and_it_goes_on(tmp_path):
    script = tmp_path / "held.py"
    script.write_text(CHILD)
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    child = subprocess.Popen([sys.executable, str(script)], stdin=slave, stdout=slave,
                             stderr=slave, start_new_session=True, env={**env, "TERM": "xterm"})
    os.close(slave)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _state(child.pid) not in "TtZgone":
            _drain(master)  # the terminal is read, as a terminal would
        assert _state(child.pid) in "Tt", "the explorer did not stop: it hung in the handler"
        os.kill(child.pid, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while child.poll() is None and time.monotonic() < deadline:
            _drain(master)
        assert child.poll() == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)


def test_a_terminals_explorer_runs_with_the_handlers_on_the_loop(monkeypatch, tmp_path):
    from textual.drivers.headless_driver import HeadlessDriver
    from textual.drivers.linux_driver import LinuxDriver

    from agexplorer.cli import explorer as explorer_cli
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.job_control import job_control_on_loop

    used: list[type] = []
    monkeypatch.setattr(AgxApp, "run", lambda self, *a, **k: used.append(self.driver_class))
    monkeypatch.setattr("textual.constants.DRIVER", None)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = tmp_path / "f.py"
    path.write_text("def f(x):\n    return x\n")
    assert explorer_cli.open_tui(["--no-daemon", str(path)]) == 0
    assert issubclass(used[0], LinuxDriver) and used[0].__name__ == "LoopJobControlLinuxDriver"
    assert job_control_on_loop(HeadlessDriver) is HeadlessDriver  # no terminal to suspend
