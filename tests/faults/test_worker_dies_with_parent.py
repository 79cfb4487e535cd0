"""Promise 3: the worker dies with its parent, also while user code spins at trace time
(in Python, or in C without releasing the GIL)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, fixture

HOSTILE = fixture("hostile.py")
pytestmark = [pytest.mark.tf,  # each case starts a CLI, which starts a TensorFlow worker
              pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")]


def gone(pid: int) -> bool:
    """The process no longer runs (a zombie that nobody reaped has ended too)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rpartition(")")[2].split()[1])


def spinning_cli(tmp_path, function: str = "spin"):
    """``agexplorer report hostile.py::FUNCTION`` once its worker spins in user code:
    (the CLI's Popen, the worker's pid, the CLI's TMPDIR)."""
    temp, marker = tmp_path / "tmp", tmp_path / "marker"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "AGX_TEST_MARKER": str(marker)}
    cli = subprocess.Popen([sys.executable, "-m", "agexplorer", "report", f"{HOSTILE}::{function}",
                            "--no-run", "--timeout", "60"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1200):  # the worker imports TensorFlow, then writes the marker
        text = marker.read_text() if marker.exists() else ""
        if text.strip():
            worker = int(text)
            assert parent_of(worker) == cli.pid  # the CLI's worker, spinning in spin()
            return cli, worker, temp
        assert cli.poll() is None, "the CLI ended before its worker reached spin()"
        time.sleep(0.1)
    cli.kill()
    pytest.fail("the worker never reached spin()")


def ends_soon(pid: int, seconds: float = 2.0) -> bool:
    for _ in range(int(seconds / 0.05)):
        if gone(pid):
            return True
        time.sleep(0.05)
    return gone(pid)


@pytest.mark.parametrize(("function", "sig"), [
    ("spin", signal.SIGTERM), ("spin", signal.SIGHUP), ("spin", signal.SIGKILL),
    # in C holding the GIL: only the kernel's parent-death signal can end it
    ("spin_native", signal.SIGKILL)],
    ids=["SIGTERM", "SIGHUP", "SIGKILL", "SIGKILL-native-spin"])
def test_no_worker_outlives_the_cli(tmp_path, function, sig):
    cli, worker, temp = spinning_cli(tmp_path, function)
    try:
        cli.send_signal(sig)
        assert cli.wait(timeout=30) == -sig  # the CLI dies of the signal, as it would have
        assert ends_soon(worker), f"worker {worker} still runs after {sig.name} to the CLI"
        if sig != signal.SIGKILL:  # a CLI that could clean up did
            assert os.listdir(temp) == []
        else:  # it could not: the next client sweeps the folder of a client that is gone
            from agexplorer.worker.process import sweep_stale_folders

            left = os.listdir(temp)
            assert all(name.startswith(f"agx-worker-{cli.pid}-") for name in left)
            assert sweep_stale_folders(str(temp)) == [str(temp / name) for name in left]
            assert os.listdir(temp) == []
    finally:
        for pid in (cli.pid, worker):
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        cli.wait()
