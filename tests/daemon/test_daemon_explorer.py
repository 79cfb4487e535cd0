"""The explorer and the background worker: opened while one runs, the explorer's own worker is
forked from the background worker's warm zygote (TensorFlow loaded already), and the Log says
so; with none running it loads TensorFlow in its own worker and the Log says why. The
explorer starts no background worker, and its worker still ends with it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from agexplorer.tui.app import AgxApp
from agexplorer.worker.zygote import ENV_VAR as ZYGOTE
from conftest import ROOT, sample, wait_for

pytestmark = pytest.mark.tf


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rpartition(")")[2].split()[1])


def log_text(app) -> str:
    """The Log's text, its wrapped lines joined again."""
    return " ".join(" ".join(line.text for line in app.query_one("#log").lines).split())


@pytest.fixture
def user(tmp_path, monkeypatch):
    """This process as a user's shell: the background worker on, in a runtime folder of the
    test's own, and no test zygote (the background worker starts one of its own)."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("AGX_NO_DAEMON", raising=False)
    monkeypatch.delenv(ZYGOTE, raising=False)
    path = tmp_path / "s6_2_bad_loop.py"
    shutil.copy(sample("s6_2_bad_loop.py"), path)
    yield path
    subprocess.run([sys.executable, "-m", "agexplorer", "daemon", "stop"], cwd=ROOT,
                   capture_output=True, timeout=60)


def agx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agexplorer", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=240)


async def analysed(app, pilot) -> str:
    assert await wait_for(pilot, lambda: app.state.report is not None, 120)
    app.query_one("#panels").active = "tab-log"  # a hidden RichLog defers its lines
    assert await wait_for(pilot, lambda: "TensorFlow" in log_text(app), 20), log_text(app)
    return log_text(app)


async def test_the_explorer_forks_its_worker_from_the_background_workers(user):
    assert agx("devices").returncode == 0  # starts the background worker
    done = agx("daemon", "status", "--json")
    status = json.loads(done.stdout)
    assert status["running"] and status["zygote"], status
    app = AgxApp([str(user)], "range_loop")
    async with app.run_test(size=(140, 40)) as pilot:
        log = await analysed(app, pilot)
        assert "TensorFlow was loaded already: this explorer's worker was forked from the " \
               "background worker's" in log
        worker = app.bridge.worker
        assert worker.forked and worker.zygote == status["zygote"]
        # worker <- its shim <- the zygote <- the background worker
        zygote = parent_of(parent_of(worker.pid))
        assert parent_of(zygote) == status["pid"]
        assert app.state.report.error is None
        pid = worker.pid
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] \
        in "ZX"  # it ended with the explorer


async def test_with_no_background_worker_the_log_says_why_and_none_is_started(user,
                                                                               monkeypatch):
    from agexplorer.daemon import warm

    # as agexplorer.cli.handoff leaves it when a warm explorer refused the terminal
    monkeypatch.setattr(warm, "refused_why", "other values of TEXTUAL_FPS")
    app = AgxApp([str(user)], "range_loop")
    async with app.run_test(size=(140, 40)) as pilot:
        log = await analysed(app, pilot)
        assert "TensorFlow loads in this explorer's own worker: no background worker runs" in log
        assert "This explorer opened cold: the background worker's warm explorer refused " \
               "(other values of TEXTUAL_FPS)." in log
        assert not app.bridge.worker.forked
    done = agx("daemon", "status", "--json")
    assert json.loads(done.stdout)["running"] is False
