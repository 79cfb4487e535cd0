"""Nothing user code starts outlives its worker: children in the worker's group or in sessions
of their own, a daemon's orphan, a copy of the worker made by os.fork()."""

import os
import shutil
import signal
import time

import pytest
from test_worker_dies_with_parent import gone, parent_of

from agexplorer.model.errors import AgxError
from agexplorer.worker.protocol import PingRequest, ReportRequest
from conftest import fixture, run_cli

pytestmark = [pytest.mark.tf,  # the user code runs in a TensorFlow worker
              pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")]


class Orphans:
    """A copy of tests/fixtures/orphans.py, whose functions write the pids they start to the
    file ``pids`` beside it."""

    def __init__(self, folder):
        self.path = str(folder / "orphans.py")
        shutil.copy(fixture("orphans.py"), self.path)
        self.pids_file = folder / "pids"

    def target(self, function: str) -> str:
        return f"{self.path}::{function}"

    def pids(self) -> list[int]:
        text = self.pids_file.read_text() if self.pids_file.exists() else ""
        return [int(line) for line in text.split()]

    def request(self, worker, function: str):
        return worker.request(ReportRequest(self.target(function), call="1", no_run=True),
                              path=self.path)


@pytest.fixture
def orphans(tmp_path):
    found = Orphans(tmp_path)
    yield found
    for pid in found.pids():  # whatever a failed test left running
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


def running(pids: list[int], seconds: float = 5.0) -> list[int]:
    """Those of ``pids`` that still run after ``seconds`` at most (a SIGKILL is delivered
    at once; the kernel's parent-death signal follows the parent's end)."""
    for _ in range(int(seconds / 0.05)):
        if all(gone(pid) for pid in pids):
            return []
        time.sleep(0.05)
    return [pid for pid in pids if not gone(pid)]


def test_nothing_user_code_started_outlives_the_command(orphans):
    # the same group, a new session, a daemon's orphan, a fork of the worker
    out = run_cli("report", orphans.target("everything"), "--call", "1", "--no-run")
    assert out.returncode == 0, out.stderr
    pids = orphans.pids()
    assert len(pids) == 4
    assert running(pids) == []


def test_nothing_outlives_a_closed_worker(worker, orphans):
    assert orphans.request(worker, "everything")["report"].error is None
    pids = orphans.pids()
    assert len(pids) == 4 and not any(gone(pid) for pid in pids)
    # the daemon's sleep, whose shell exited, was kept by the worker (a subreaper), not init
    assert parent_of(pids[2]) == worker.pid
    worker.close()
    assert running(pids) == []


def test_a_fork_of_the_worker_dies_with_it(worker, orphans):
    orphans.request(worker, "forks")
    [copy] = orphans.pids()
    assert not gone(copy)
    os.kill(worker.pid, signal.SIGKILL)  # not ended by the client: the kernel ends the copy
    assert running([copy]) == []
    # Ended before the next request, a fresh worker takes it. (Its main thread is a zombie at
    # once, but a process of many threads, as TensorFlow's is, can be waited for only once
    # all have ended: a request sent in between is lost with it, and says so.)
    for _ in range(200):
        if not worker.alive:
            break
        time.sleep(0.05)
    assert worker.request(PingRequest()) == "pong"


def test_a_forked_copy_that_carries_on_never_answers_the_client(worker, orphans):
    assert orphans.request(worker, "fork_carries_on")["report"].error is None
    [copy] = orphans.pids()
    assert running([copy]) == []  # it returned into the worker's loop, and left it at once
    for _ in range(3):  # its answer never takes the place of the next ones
        assert worker.request(PingRequest()) == "pong"


def test_what_escaped_a_worker_that_died_by_itself_is_ended(worker, orphans):
    with pytest.raises(AgxError) as err:
        orphans.request(worker, "escapes_then_dies")
    assert err.value.kind == "worker-died" and "exited with status 7" in err.value.message
    [escaped] = orphans.pids()
    assert running([escaped], seconds=1) == []
