"""The explorer and the background worker: opened while one runs, it is lent a worker with
TensorFlow loaded and says so in the Log; the lent worker ends with the explorer, and the
background worker warms another; with none running it loads its own and says why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT, sample, wait_for

pytestmark = pytest.mark.tf
BAD_LOOP = sample("s6_2_bad_loop.py")


def agx(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agexplorer", *args], capture_output=True,
                          text=True, timeout=240, cwd=ROOT, env=env)


def log_text(app) -> str:
    """The Log's lines (shown: a hidden RichLog holds its lines back until it has a size)."""
    app.panes.panels.active = "tab-log"
    return "\n".join(line.text for line in app.query_one("#log").lines)


@pytest.fixture
def env(tmp_path, monkeypatch):
    """The background worker on, in a runtime folder of the test's own, for this process
    (the explorer) and the commands it runs; stopped after the test."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.delenv("AGX_NO_DAEMON", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    values = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    yield values
    agx("daemon", "stop", env=values)


def status(env: dict) -> dict:
    return json.loads(agx("daemon", "status", "--json", env=env).stdout)


async def test_an_explorer_opened_while_a_background_worker_runs_is_lent_a_warm_one(env):
    from agexplorer.tui.app import AgxApp

    assert agx("devices", env=env).returncode == 0  # a command started it, and warmed one
    started = time.perf_counter()
    app = AgxApp([BAD_LOOP], "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None, 60)
        ready = time.perf_counter() - started
        assert await wait_for(pilot, lambda: "lent this explorer a worker" in log_text(app), 10)
        assert any(s.verdict == "python" for s in app.state.report.statements)
        during = status(env)
        assert during["running"] and during["answered"] >= 2  # the ping, devices, the report
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
    assert ready < 20  # no TensorFlow import on the explorer's side (a cold one: 5-15 s)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not (
            status(env)["workers"] and all(not w["busy"] for w in status(env)["workers"])):
        time.sleep(0.2)
    after = status(env)
    assert after["workers"] and not any(w["busy"] for w in after["workers"])
    assert agx("report", f"{BAD_LOOP}::bad_loop", "--no-run", "--json", env=env).returncode == 0


async def test_with_none_running_the_explorer_loads_its_own_and_says_why(env):
    from agexplorer.tui.app import AgxApp

    app = AgxApp([BAD_LOOP], "bad_loop")
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None, 90)
        assert await wait_for(pilot, lambda: "TensorFlow loads in the explorer's own worker: "
                              "no background worker runs" in log_text(app), 10)
        await pilot.press("ctrl+q")
    assert status(env)["running"] is False  # the explorer starts none
