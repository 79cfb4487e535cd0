"""Promise 4: nothing is left in the temp dir, whatever way agexplorer or its worker ends."""

import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.worker.client import Worker
from agexplorer.worker.process import FOLDER_PREFIX, sweep_stale_folders
from agexplorer.worker.protocol import ReportRequest
from conftest import ROOT, fixture, run_cli

HOSTILE = fixture("hostile.py")


@pytest.fixture
def temp(tmp_path, monkeypatch):
    """A fresh, empty TMPDIR for this process and the processes it starts."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


def dead_pid() -> int:
    """The pid of a process that has ended (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_the_sweep_removes_only_our_folders_of_clients_that_are_gone(temp):
    stale = temp / f"{FOLDER_PREFIX}{dead_pid()}-abcd_123"
    live = temp / f"{FOLDER_PREFIX}{os.getppid()}-efgh4567"
    other = temp / "agx-worker-notapid-x"
    for folder in (stale, live, other):
        folder.mkdir()
        (folder / "__autograph_generated_file1.py").write_text("x = 1\n")
    assert sweep_stale_folders() == [str(stale)]
    assert sorted(os.listdir(temp)) == sorted([live.name, other.name])


@pytest.mark.tf
def test_a_report_leaves_nothing_and_sweeps_a_killed_clients_folder(temp):
    stale = temp / f"{FOLDER_PREFIX}{dead_pid()}-abcd1234"
    stale.mkdir()
    (stale / "__autograph_generated_filexyz.py").write_text("x = 1\n")
    out = run_cli("report", f"{HOSTILE}::square", "--call", "2.0", "--no-run")
    assert out.returncode == 0, out.stderr
    assert os.listdir(temp) == []


@pytest.mark.tf
def test_a_timeout_leaves_nothing(temp):
    out = run_cli("report", f"{HOSTILE}::spin", "--no-run", "--timeout", "3")
    assert out.returncode == 1 and "timed out after 3 s while tracing spin" in out.stderr
    assert os.listdir(temp) == []


@pytest.mark.tf
def test_a_worker_killed_mid_trace_leaves_nothing(temp, tmp_path):
    marker = tmp_path / "marker"
    worker = Worker(timeout=60, env={**os.environ, "AGX_TEST_MARKER": str(marker)})
    seen, killed = [], []

    def kill_once_spinning(phase):
        if phase.startswith("tracing") and worker.alive:
            for _ in range(600):  # spin() writes the marker once AutoGraph has converted it
                if marker.exists():
                    break
                time.sleep(0.05)
            seen.extend(os.listdir(worker.tmpdir))
            killed.append(worker.tmpdir)
            os.kill(worker.pid, signal.SIGKILL)

    try:
        with pytest.raises(AgxError) as err:
            worker.request(ReportRequest(f"{HOSTILE}::spin", no_run=True),
                           on_progress=kill_once_spinning)
        assert err.value.kind == "worker-died" and "SIGKILL" in err.value.message
        assert any(name.startswith("__autograph_generated_file") for name in seen)
        # the killed worker's folder is gone; the one left is the fresh worker's, started at once
        assert not os.path.exists(killed[0])
        assert [os.path.join(temp, n) for n in os.listdir(temp)] == [worker.tmpdir]
    finally:
        worker.close()
    assert os.listdir(temp) == []


@pytest.mark.tf
def test_ctrl_c_leaves_nothing(temp, tmp_path):
    marker = tmp_path / "marker"
    cli = subprocess.Popen([sys.executable, "-m", "agexplorer", "report", f"{HOSTILE}::spin",
                            "--no-run", "--timeout", "60"], cwd=ROOT,
                           env={**os.environ, "AGX_TEST_MARKER": str(marker),
                                "PYTHONFAULTHANDLER": "1"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           # As a command typed in a terminal has it: a shell starts a command
                           # run in the background (`.ci/run &`) with SIGINT ignored, which
                           # every process below inherits, and then ctrl+c never came.
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(1200):
            if marker.exists() or cli.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists(), "the worker never reached spin()"
        cli.send_signal(signal.SIGINT)
        try:
            _, stderr = cli.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # where it hangs: each thread's stack, then fail
            cli.send_signal(signal.SIGABRT)
            _, stderr = cli.communicate(timeout=10)
            raise AssertionError(f"the command did not end 30 s after ctrl+c:\n{stderr}") from None
        assert cli.returncode == 130 and "interrupted" in stderr
        assert os.listdir(temp) == []
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
