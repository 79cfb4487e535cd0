"""A capability the worker's TensorFlow lost reaches the user: once per command on stderr, in
a `warnings` list in every --json output, and in the explorer's status line and Log.

The worker here is tests/worker/stub_worker.py (its Hello says what a TensorFlow that moved
a private name says; no TensorFlow is imported): what is tested is the caller's side. That
the real worker puts the sentence in its Hello is tests/worker/test_tf_support.py's test."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from stub_worker import stub_python

from agexplorer.model.errors import AgxError
from agexplorer.model.report import Report
from agexplorer.worker.client import TellOnce, Worker
from agexplorer.worker.protocol import DevicesRequest, PingRequest, ReportRequest
from conftest import ROOT, SAMPLES, sample, wait_for

LOST = ("TensorFlow 2.21 moved tensorflow.python.framework.ops.EagerTensor._numpy, which "
        "agexplorer calls to bring results to the host without a copy, so the run lab's "
        "timings include a copy of each result; agexplorer is tested with TensorFlow "
        "2.16-2.21.")
OTHER = ("TensorFlow 2.21 moved tensorflow.python.autograph.operators.control_flow."
         "PYTHON_MAX_ITERATIONS, which agexplorer reads to mark AutoGraph's unroll limits on "
         "a sweep, so the sweep shows no unroll thresholds; agexplorer is tested with "
         "TensorFlow 2.16-2.21.")
TARGET = f"{sample('s4_4_autograph.py')}::dynamic_loop"


@pytest.fixture(scope="module")
def python(tmp_path_factory):
    return str(stub_python(tmp_path_factory.mktemp("stub")))


def agx(*argv: str, python: str, warnings: tuple[str, ...] = (LOST, OTHER)):
    env = {k: v for k, v in os.environ.items() if k not in ("AGX_PYTHON", "VIRTUAL_ENV")}
    env["AGX_STUB_WARNINGS"] = json.dumps(list(warnings))
    return subprocess.run([sys.executable, "-m", "agexplorer", *argv, "--python", python],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
                          check=False)


def told(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "moved tensorflow." in line]


@pytest.mark.parametrize("argv", [("devices",), ("report", TARGET, "--no-run")],
                         ids=["devices", "report"])
def test_each_sentence_is_told_once_on_stderr(python, argv):
    done = agx(*argv, python=python)
    assert done.returncode == 0, done.stderr
    assert told(done.stderr) == [f"agexplorer: {LOST}", f"agexplorer: {OTHER}"]
    assert "moved" not in done.stdout  # stdout stays the command's output


@pytest.mark.parametrize("argv", [("devices", "--json"), ("report", TARGET, "--no-run", "--json"),
                                  ("check", sample("s4_4_autograph.py"), "--json", "--update")],
                         ids=["devices", "report", "check"])
def test_every_json_output_carries_them(python, argv, tmp_path):
    if argv[0] == "check":
        argv = (*argv, "--golden", str(tmp_path / "golden.json"))
    done = agx(*argv, python=python)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["warnings"] == [LOST, OTHER]
    assert len(told(done.stderr)) == 2


def test_a_tensorflow_that_lost_nothing_has_an_empty_list_and_a_quiet_stderr(python):
    done = agx("devices", "--json", python=python, warnings=())
    assert done.returncode == 0 and json.loads(done.stdout)["warnings"] == []
    assert done.stderr == ""


def test_devices_names_the_keras_tf_keras_routes_to(python):
    done = agx("devices", python=python, warnings=())
    assert done.stdout.splitlines()[-2:] == ["TensorFlow 2.21.0",
                                             "tf.keras: Keras 2 (tf-keras 2.21.0)"]
    answer = json.loads(agx("devices", "--json", python=python, warnings=()).stdout)
    assert answer["keras"] == {"version": "2.21.0", "flavour": "tf-keras"}


def test_a_worker_replaced_midway_is_not_told_twice(python, capsys):
    from agexplorer.worker.interpreter import Interpreter

    worker = Worker(python=Interpreter(python, "--python", "3.11.7", "2.21.0"),
                    env={**os.environ, "AGX_STUB_WARNINGS": json.dumps([LOST])})
    worker.on_tf_warnings = TellOnce()
    try:
        assert worker.request(PingRequest()) == "pong"
        worker.close()  # as after a crash: the next request starts a fresh worker
        assert worker.request(PingRequest()) == "pong"
    finally:
        worker.close(final=True)
    assert capsys.readouterr().err == f"agexplorer: {LOST}\n"


# -- the explorer ---------------------------------------------------------------------------

class LostWorker(Worker):
    """Answers as a worker whose Hello said LOST: pings, devices, an empty report."""

    def __init__(self) -> None:
        super().__init__()
        self.tf_warnings = (LOST,)

    def request(self, req, **_):
        if isinstance(req, PingRequest):
            return "pong"
        if isinstance(req, DevicesRequest):
            return [{"name": "/device:CPU:0", "type": "CPU"}]
        if isinstance(req, ReportRequest):
            path, _, function = req.target.partition("::")
            return {"report": Report(path, function, first_line=1), "lab": None}
        raise AgxError("user-code", "no TensorFlow in this test")

    def close(self, final: bool = False) -> None:
        pass


async def test_the_explorer_shows_it_in_the_status_line_and_once_in_the_log():
    from agexplorer.tui.app import AgxApp

    app = AgxApp([os.path.join(SAMPLES, "s6_2_bad_loop.py")], "bad_loop", worker=LostWorker())
    async with app.run_test(size=(120, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None and app.engine_ready, 30)
        assert await wait_for(pilot, lambda: str(app.status_line.text) == LOST, 10)
        app.analyse()  # another request: the sentence is not told again
        assert await wait_for(pilot, lambda: str(app.status_line.text) != LOST, 10)
        await pilot.press("7")  # the Log tab (a log writes its lines once it is shown)
        assert await wait_for(pilot, lambda: app.panes.panels.active == "tab-log", 10)

        def logged() -> str:
            return " ".join(line.text for line in app.panes.log_view.lines)

        assert await wait_for(pilot, lambda: LOST.split()[0] in logged(), 10)
        await pilot.pause()
        text = logged()
        assert " ".join(text.split()).count(LOST) == 1, text  # wrapped to the Log's width
