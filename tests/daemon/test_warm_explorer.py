"""`agexplorer FILE` while a background worker runs: the command hands its terminal to the
background worker's warm explorer, which opens the explorer in a fork of itself; the command
passes on its signals and ends with the explorer's status. In a real pseudo terminal that is
the command's controlling terminal, as in a user's shell: the kernel's SIGWINCH on a resize
and SIGHUP on a closed terminal reach the command, not the explorer."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import pytest

from agexplorer.worker.descendants import process_state
from conftest import ROOT, sample

pytestmark = pytest.mark.tf  # the background worker's TensorFlow worker (forked: ~0.1 s)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rpartition(")")[2].split()[1])


def command_line(pid: int) -> str:
    with open(f"/proc/{pid}/cmdline", "rb") as fh:
        return fh.read().replace(b"\0", b" ").decode()


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """A user's shell environment with a background worker running (in a runtime and a state
    folder of the module's own); the file s6_2_bad_loop.py in its folder."""
    home = tmp_path_factory.mktemp("warm")
    runtime = home / "runtime"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "XDG_STATE_HOME": str(home / "state"),
           "TERM": "xterm-256color"}
    for name in ("AGX_NO_DAEMON", "COLUMNS", "LINES"):  # pytest-xdist's workers set 80x24,
        env.pop(name, None)  # which Textual would take over the terminal's own size
    shutil.copy(sample("s6_2_bad_loop.py"), home)
    started = subprocess.run([sys.executable, "-m", "agexplorer", "daemon", "start"], env=env,
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0 and "warm explorer (" in started.stdout, started
    yield env, home
    subprocess.run([sys.executable, "-m", "agexplorer", "daemon", "stop"], env=env, cwd=ROOT,
                   capture_output=True, timeout=60)


class Terminal:
    """``agexplorer s6_2_bad_loop.py::range_loop`` in a pseudo terminal it controls."""

    def __init__(self, env: dict[str, str], home, rows: int = 24) -> None:
        self.master, self.slave = os.openpty()
        self.resize(rows)
        self.before = termios.tcgetattr(self.slave)
        self.output = bytearray()
        slave = self.slave

        def controlling() -> None:  # after start_new_session's setsid: a shell's terminal
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agexplorer", "s6_2_bad_loop.py::range_loop"], stdin=slave,
            stdout=slave, stderr=slave, env=env, cwd=home, start_new_session=True,
            preexec_fn=controlling)
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(self.master, 65536):
                self.output += chunk

    def resize(self, rows: int) -> None:
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 120, 0, 0))

    def text(self) -> str:
        return re.sub(r"\x1b\[[0-9;?<>]*[A-Za-z]", "", bytes(self.output).decode(errors="replace"))

    def wait(self, condition, seconds: float = 60.0) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.05)
        return False

    def opened_warm(self) -> int:
        """Wait for the function list; the explorer's process (not the command's)."""
        assert self.wait(lambda: "range_loop" in self.text()), self.text()[-2000:]
        app = self.explorer()
        assert app is not None, "no explorer process in the terminal besides the command"
        return app

    def explorer(self) -> int | None:
        """The process running the explorer in this terminal, other than the command."""
        name = os.ttyname(self.slave)
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != self.proc.pid:
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/fd/0") == name:
                        return int(entry)
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.slave)
        with contextlib.suppress(OSError):
            os.close(self.master)


def state(pid: int) -> str:
    """The process's state letter (R, S, T, Z, ...); X when it is gone."""
    return process_state(pid) or "X"


def gone(pid: int) -> bool:
    return state(pid) in "ZX"


def test_the_explorer_opens_warm_follows_resizes_and_suspends_and_ends_with_its_status(shell):
    env, home = shell
    term = Terminal(env, home, rows=24)
    try:
        app = term.opened_warm()
        # the explorer <- its shim <- the warm explorer <- the background worker
        warm = parent_of(parent_of(app))
        assert "agexplorer.cli.warm" in command_line(warm)
        assert "agexplorer.daemon.server" in command_line(parent_of(warm))
        for pid in (warm, app):  # the explorer's side never loads TensorFlow
            with open(f"/proc/{pid}/maps") as fh:
                assert "tensorflow" not in fh.read()
        # A resize reaches the command (the kernel's SIGWINCH), which passes it on: the
        # explorer draws on row 40, which a 24-row screen has not.
        seen = len(term.output)
        term.resize(40)
        assert term.wait(lambda: b"\x1b[40;" in term.output[seen:], 20)
        # `kill -TSTP`: the explorer gives the terminal back and stops, then the command;
        # `fg` (SIGCONT to the command) brings both back, in raw mode again.
        raw = termios.tcgetattr(term.slave)[3]
        assert raw != term.before[3]
        os.kill(term.proc.pid, signal.SIGTSTP)
        assert term.wait(lambda: state(term.proc.pid) == "T" and state(app) == "T", 10)
        assert termios.tcgetattr(term.slave)[3] == term.before[3]
        os.kill(term.proc.pid, signal.SIGCONT)
        assert term.wait(lambda: termios.tcgetattr(term.slave)[3] == raw, 10)
        assert state(app) != "T"
        os.write(term.master, b"q")
        assert term.proc.wait(timeout=30) == 0
        assert term.wait(lambda: gone(app), 10)
        assert termios.tcgetattr(term.slave)[3] == term.before[3]  # echo, canonical: as before
    finally:
        term.close()


def test_a_killed_explorer_leaves_the_terminal_as_it_found_it_and_says_so(shell):
    env, home = shell
    term = Terminal(env, home)
    try:
        app = term.opened_warm()
        assert termios.tcgetattr(term.slave)[3] != term.before[3]  # raw: the explorer's
        os.kill(app, signal.SIGKILL)
        assert term.proc.wait(timeout=30) == 128 + signal.SIGKILL
        assert term.wait(lambda: "the explorer was ended by SIGKILL; the terminal was reset"
                         in term.text(), 5), term.text()[-500:]
        assert termios.tcgetattr(term.slave)[3] == term.before[3]
        assert b"\x1b[?1049l" in term.output  # out of the alternate screen
    finally:
        term.close()


def kept_edits(env) -> list[str]:
    """The texts of the recovery copies kept in the state folder."""
    return [open(os.path.join(folder, name)).read()
            for folder, _, names in os.walk(env["XDG_STATE_HOME"])
            for name in names if name.endswith(".py")]


def typed(term: Terminal, text: str) -> None:
    """``text`` typed into the source pane (mounted after the first frame)."""
    assert term.wait(lambda: "s6_2_bad_loop.py :: range_loop" in term.text(), 30)
    os.write(term.master, b"\t")  # to the source pane
    time.sleep(0.5)
    os.write(term.master, text.encode())
    assert term.wait(lambda: text in term.text(), 20)


# A suspended explorer kept SIGHUP pending for ever: it stayed stopped, with its shim and its
# TensorFlow worker, after its command was killed. One whose shim was killed is followed by
# nothing for its command any more (which resets the terminal and ends); it read end-of-file
# for ever once the terminal closed, spinning a core.
@pytest.mark.parametrize("how", ["command killed", "suspended, command killed", "shim killed"])
def test_an_explorer_left_by_its_command_ends_and_keeps_the_unsaved_edit(shell, how):
    env, home = shell
    term = Terminal(env, home, rows=40)
    try:
        app = term.opened_warm()
        typed(term, "# kept-after-the-kill ")
        if how.startswith("suspended"):
            os.kill(term.proc.pid, signal.SIGTSTP)
            assert term.wait(lambda: state(app) == "T", 10)
        if how == "shim killed":
            os.kill(parent_of(app), signal.SIGKILL)
        else:
            term.proc.kill()  # the command, not the explorer: its connection closes
        assert term.wait(lambda: gone(app), 20), f"the explorer outlived its {how}"
        assert any("# kept-after-the-kill" in text for text in kept_edits(env))
    finally:
        term.close()


def test_other_textual_settings_open_the_explorer_cold(shell):
    env, home = shell
    term = Terminal({**env, "TEXTUAL_FPS": "30"}, home)  # read when Textual is imported
    try:
        assert term.wait(lambda: "range_loop" in term.text()), term.text()[-2000:]
        assert term.explorer() is None  # the command runs the explorer itself
        os.write(term.master, b"q")
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()
