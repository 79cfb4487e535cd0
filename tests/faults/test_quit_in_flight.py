"""Quitting is final: the explorer, in a real terminal or served to a browser, ends at once on
q, ctrl+q, SIGTERM, SIGHUP, a closed terminal or a closed tab while its worker runs user code
that never returns; no worker starts on the way out and no temp folder stays."""

import contextlib
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

import pytest

from agexplorer.worker.zygote import ENV_VAR as ZYGOTE
from conftest import ROOT, fixture

pytestmark = [pytest.mark.tf,  # each case starts an explorer, which starts a TensorFlow worker
              pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")]


def worker_folders(temp) -> set[str]:
    """The worker folders in ``temp`` now: each worker started makes one."""
    return {name for name in os.listdir(temp) if name.startswith("agx-worker-")}


def workers_running(temp, explorer: int | None = None) -> list[int]:
    """Processes, other than the ``explorer``'s, whose environment names a worker folder in
    ``temp`` (a worker started, and what it started: /proc shows the environment a process
    was started with) or that hold a file in ``temp`` open (a worker forked from a zygote
    writes to its explorer's log there)."""
    prefix = f"AGX_WORKER_TMPDIR={temp}{os.sep}".encode()
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        if int(name) == explorer:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if any(entry.startswith(prefix) for entry in fh.read().split(b"\0")):
                    found.append(int(name))
                    continue
            for fd in os.listdir(f"/proc/{name}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{name}/fd/{fd}").startswith(f"{temp}{os.sep}"):
                        found.append(int(name))
                        break
        except OSError:
            continue
    return found


class Explorer:
    """``agexplorer tui_faults.py::spins_while_tracing`` with a TMPDIR of its own, in a pseudo
    terminal, or served (Textual's web driver: keys and the browser's messages on stdin)."""

    def __init__(self, tmp_path, served: bool, cold: bool) -> None:
        self.temp = tmp_path / "tmp"
        self.temp.mkdir()
        shutil.copy(fixture("tui_faults.py"), tmp_path)
        self.reached = tmp_path / "reached-trace"
        env = {**os.environ, "TMPDIR": str(self.temp), "TERM": "xterm-256color"}
        if cold:  # its worker started as a user's is, not forked from the suite's zygote
            env.pop(ZYGOTE, None)
        argv = [sys.executable, "-m", "agexplorer", f"{tmp_path}/tui_faults.py::spins_while_tracing"]
        if served:
            env.update(TEXTUAL_DRIVER="textual.drivers.web_driver:WebDriver", COLUMNS="120",
                       ROWS="40")
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
            self.output = self.proc.stdout.fileno()
        else:
            self.terminal, child = pty.openpty()
            fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            self.proc = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=env,
                                         cwd=ROOT, start_new_session=True)
            os.close(child)
            self.output = self.terminal
        # read what it draws, or it would block on a full pipe
        self.draining = True
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while self.draining:  # a read in flight would hold the terminal open
                if select.select([self.output], [], [], 0.1)[0] and not os.read(self.output,
                                                                                  65536):
                    return

    def wait_in_user_code(self) -> None:
        for _ in range(1800):  # TensorFlow imports, the function opens and is traced
            if self.reached.exists():
                return
            assert self.proc.poll() is None, "the explorer ended before its trace began"
            time.sleep(0.1)
        pytest.fail("the trace never reached user code")

    def send_meta(self, message: dict) -> None:
        data = json.dumps(message).encode()
        self.proc.stdin.write(b"M" + len(data).to_bytes(4, "big") + data)
        self.proc.stdin.flush()

    def quit(self, how: str) -> None:
        if how in ("q", "ctrl+q"):
            os.write(self.terminal, b"q" if how == "q" else b"\x11")
        elif how == "closed tab":
            self.send_meta({"type": "quit"})  # what textual-serve sends when its tab closes
        elif how == "stdin closed":
            self.proc.stdin.close()
        elif how == "closed terminal":
            # The terminal is not its controlling one (a new session, as the warm explorer's
            # is): the kernel sends it no SIGHUP, it sees the hang-up.
            self.draining = False
            self.drain.join()
            os.close(self.terminal)
        else:
            self.proc.send_signal(getattr(signal, how))

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pid in workers_running(self.temp, self.proc.pid):
            os.kill(pid, signal.SIGKILL)


# Half the cases with a worker started as a user's is (a new interpreter importing TensorFlow),
# half with one forked from a warm zygote (an explorer opened while the background worker runs;
# here the suite's zygote): each way of quitting once or more each way.
@pytest.mark.parametrize(("how", "served", "code", "cold"), [
    ("q", False, 0, True), ("ctrl+q", False, 0, False),
    ("SIGTERM", False, 128 + signal.SIGTERM, True), ("SIGHUP", False, 128 + signal.SIGHUP, False),
    ("closed terminal", False, 128 + signal.SIGHUP, False),
    ("closed tab", True, 0, False), ("stdin closed", True, 128 + signal.SIGHUP, True)],
    ids=["q", "ctrl+q", "SIGTERM", "SIGHUP", "closed-terminal", "served-tab-closed",
         "served-stdin-closed"])
def test_quitting_with_a_trace_in_flight_ends_at_once_and_starts_no_worker(tmp_path, how,
                                                                            served, code,
                                                                            cold, zygote_path):
    if not cold and zygote_path is None:
        pytest.skip("this run has no zygote to fork a worker from (AGX_TEST_ZYGOTE=0)")
    explorer = Explorer(tmp_path, served, cold)
    try:
        explorer.wait_in_user_code()
        seen = worker_folders(explorer.temp)
        assert len(seen) == 1 and workers_running(explorer.temp, explorer.proc.pid)
        time.sleep(0.3)  # the status line shows the request under way
        start = time.monotonic()
        explorer.quit(how)
        while explorer.proc.poll() is None and time.monotonic() - start < 60:
            seen |= worker_folders(explorer.temp)  # a worker started on the way out shows here
            time.sleep(0.02)
        took = time.monotonic() - start
        print(f"{how}: the explorer ended {took:.2f} s after the quit")
        assert explorer.proc.poll() == code, f"still running {took:.0f} s after {how}"
        assert took < 10  # promised: 2 s; generous, so that a loaded machine does not fail it
        assert len(seen) == 1, f"a worker was started on the way out: {sorted(seen)}"
        assert os.listdir(explorer.temp) == []
        assert workers_running(explorer.temp, explorer.proc.pid) == []
    finally:
        explorer.end()
