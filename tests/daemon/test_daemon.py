"""The background worker, end to end through the command line: warm answers are the cold
answers, an edited file is seen, a hang, a killed TensorFlow worker and a killed background
worker are each one sentence or a fresh worker and never a hang, two commands at once are
both answered, it stops when idle or asked, and --no-daemon keeps a command's own worker."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from agexplorer.worker.zygote import ENV_VAR as ZYGOTE
from conftest import ROOT, fixture, sample
from same_answer import comparable

pytestmark = pytest.mark.tf
RUNS = fixture("runs.py")
BAD_LOOP = sample("s6_2_bad_loop.py")


def daemon_env(folder) -> dict:
    """A command's environment with the background worker on, in the runtime ``folder``."""
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700)
    values = {k: v for k, v in os.environ.items() if k not in ("AGX_NO_DAEMON",
                                                                "PYTEST_CURRENT_TEST")}
    values["XDG_RUNTIME_DIR"] = str(runtime)
    # PYTHONPATH names this checkout (conftest): a command run from another folder too
    # imports it, not the installed one, whose build is another background worker's
    assert ROOT in values["PYTHONPATH"].split(os.pathsep)
    return values


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One background worker for the tests that do not end it (each start imports
    TensorFlow); stopped after the module."""
    values = daemon_env(tmp_path_factory.mktemp("shared"))
    yield values
    agx("daemon", "stop", env=values)


@pytest.fixture
def env(tmp_path):
    """A background worker of the test's own (it kills, stops or breaks it)."""
    values = daemon_env(tmp_path)
    yield values
    agx("daemon", "stop", env=values)


def agx(*args: str, env: dict, cwd: str = ROOT, timeout: float = 240):
    return subprocess.run([sys.executable, "-m", "agexplorer", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, env=env)


def status(env: dict) -> dict:
    done = agx("daemon", "status", "--json", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_warm_answers_are_the_cold_answers_and_a_second_command_is_warm(shared):
    env = shared
    before = status(env).get("answered", 0)
    commands = [("report", f"{BAD_LOOP}::bad_loop", "--no-run", "--json"),
                ("doctor", f"{BAD_LOOP}::bad_loop", "--json"),
                ("retrace", f"{RUNS}::square", "--call", "tf.constant(1.0)", "--call",
                 "tf.constant(2)", "--json")]
    # cold: a worker of the command's own, started as a user's is (not forked from the zygote)
    cold_env = {k: v for k, v in env.items() if k != ZYGOTE}
    for command in commands:
        cold = agx(*command, "--no-daemon", env=cold_env)
        warm = agx(*command, env=env)
        assert cold.returncode == warm.returncode, (cold.stderr, warm.stderr)
        assert "worker of its own" not in warm.stderr  # the background worker answered
        assert comparable(json.loads(warm.stdout)) == comparable(json.loads(cold.stdout)), command
    # The cold runs started no background worker: the three warm ones used one.
    found = status(env)
    assert found["running"] and found["answered"] == before + 3 and found["workers"]
    started = time.perf_counter()
    again = agx(*commands[0], env=env)
    assert again.returncode == 0 and time.perf_counter() - started < 5  # not a TF import


def test_an_edited_file_and_the_commands_folder_are_seen(shared, tmp_path):
    env = shared
    before = status(env).get("answered", 0)
    path = tmp_path / "edited.py"
    path.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n"
                    "    for i in range(3):\n        x += 1\n    return x\n"
                    "AGX_CALLS = {'f': 'tf.constant(1)'}\n")
    first = json.loads(agx("report", f"{path}::f", "--no-run", "--json", env=env).stdout)
    assert [(s["verdict"], s["iterations"]) for s in first["statements"]] == [("python", 3)]
    path.write_text(path.read_text().replace("range(3)", "tf.range(3)"))
    second = json.loads(agx("report", f"{path}::f", "--no-run", "--json", env=env).stdout)
    assert [s["verdict"] for s in second["statements"]] == ["staged"]
    # User code that opens a file by a relative name finds it in the command's folder.
    (tmp_path / "n.txt").write_text("4")
    reads = tmp_path / "reads.py"
    reads.write_text("import tensorflow as tf\nN = int(open('n.txt').read())\n\n"
                     "@tf.function\ndef g(x):\n    for i in range(N):\n        x += 1\n"
                     "    return x\nAGX_CALLS = {'g': 'tf.constant(1)'}\n")
    done = agx("report", "reads.py::g", "--no-run", "--json", env=env, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [s["iterations"] for s in json.loads(done.stdout)["statements"]] == [4]
    assert status(env)["answered"] == before + 3  # the background worker answered them


def test_a_hang_is_one_sentence_and_the_next_command_is_answered(shared):
    env = shared
    started = time.perf_counter()
    hung = agx("report", f"{RUNS}::hangs", "--call", "tf.constant(1.0)", "--timeout", "3",
               "--no-run", env=env)
    assert hung.returncode == 1 and time.perf_counter() - started < 60
    assert re.search(r"timed out after 3 s while .* at .*runs\.py:\d+", hung.stderr)
    assert "Traceback" not in hung.stderr
    square = agx("report", f"{RUNS}::square", "--call", "tf.constant(2.0)", "--no-run",
                 "--json", env=env)
    assert square.returncode == 0, square.stderr


def with_a_worker(env: dict, seconds: float = 90.0) -> dict:
    """The status of a background worker with a TensorFlow worker (a command on a loaded
    machine may have answered with a worker of its own while the background one started)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert agx("devices", env=env).returncode == 0
        found = status(env)
        if found.get("workers"):
            return found
    raise AssertionError(f"no background worker with a TensorFlow worker: {found}")


def test_a_killed_tensorflow_worker_or_background_worker_is_replaced(env):
    found = with_a_worker(env)
    os.kill(found["workers"][0]["pid"], signal.SIGKILL)
    again = agx("report", f"{RUNS}::square", "--call", "tf.constant(2.0)", "--no-run",
                "--json", env=env)
    assert again.returncode == 0, again.stderr
    os.kill(status(env)["pid"], signal.SIGKILL)  # the background worker itself
    time.sleep(0.5)
    after = agx("report", f"{RUNS}::square", "--call", "tf.constant(2.0)", "--no-run",
                "--json", env=env)
    assert after.returncode == 0, after.stderr
    assert status(env)["pid"] != found["pid"]


def test_a_worker_that_dies_mid_request_is_one_sentence_and_a_fresh_one(shared):
    env = shared
    died = agx("report", f"{RUNS}::exits", "--call", "tf.constant(1.0)", "--no-run", env=env)
    assert died.returncode == 1 and "exited with status 3" in died.stderr
    assert died.stderr.count("\n") <= 3 and "Traceback" not in died.stderr
    assert agx("devices", env=env).returncode == 0


def test_two_commands_at_once_are_both_answered(shared):
    env = shared
    assert agx("devices", env=env).returncode == 0  # warm
    results: list[subprocess.CompletedProcess] = []

    def one() -> None:
        results.append(agx("report", f"{BAD_LOOP}::bad_loop", "--no-run", "--json", env=env))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    assert comparable(json.loads(results[0].stdout)) == comparable(json.loads(results[1].stdout))


def test_it_stops_when_idle_and_when_asked_and_no_daemon_starts_none(env):
    assert agx("devices", "--no-daemon", env=env).returncode == 0
    assert agx("devices", env={**env, "AGX_NO_DAEMON": "1"}).returncode == 0
    assert status(env)["running"] is False
    # 3 s idle: time for the status command to find it running on a loaded machine (with
    # 1 s it had stopped, as asked, before a busy run's `daemon status` answered)
    assert agx("devices", env={**env, "AGX_DAEMON_IDLE": "3"}).returncode == 0
    pid = status(env)["pid"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and status(env)["running"]:
        time.sleep(0.2)
    assert status(env)["running"] is False
    with pytest.raises(ProcessLookupError):
        for _ in range(50):  # it ends once its workers are closed
            os.kill(pid, 0)
            time.sleep(0.1)
    assert agx("devices", env=env).returncode == 0
    stopped = agx("daemon", "stop", env=env)
    assert stopped.returncode == 0 and stopped.stdout.startswith("stopped the background worker")
    assert status(env)["running"] is False


def gone(pid: int) -> bool:
    """The process no longer runs (a zombie nobody reaped has ended too)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_nothing_user_code_started_outlives_the_command(shared, tmp_path):
    env = shared
    # tests/fixtures/orphans.py: the same group, a new session, a daemon's orphan, a fork
    path = tmp_path / "orphans.py"
    shutil.copy(fixture("orphans.py"), path)
    out = agx("report", f"{path}::everything", "--call", "1", "--no-run", env=env)
    assert out.returncode == 0, out.stderr
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert len(pids) == 4
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not all(gone(p) for p in pids):
        time.sleep(0.05)
    try:
        assert [p for p in pids if not gone(p)] == []
        assert status(env)["running"]  # the background worker stays
    finally:
        for pid in pids:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_an_unsafe_folder_falls_back_to_the_commands_own_worker(env):
    folder = os.path.join(env["XDG_RUNTIME_DIR"], "agexplorer")
    os.makedirs(folder)
    os.chmod(folder, 0o777)
    done = agx("report", f"{BAD_LOOP}::bad_loop", "--no-run", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["statements"]
    assert "is not a private folder of yours" in done.stderr
    assert "starts a TensorFlow worker of its own" in done.stderr
    assert os.listdir(folder) == []  # nothing was made in it
