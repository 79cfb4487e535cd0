"""Workers forked from a warm zygote (agexplorer.worker.zygote), as the suite's are: they answer
what a started worker answers, in their client's folder, environment and session; another
interpreter or environment is refused and started the usual way; the exit status is the one
a started worker's would be; a client's death takes its worker with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import ReportRequest
from agexplorer.worker.zygote import ENV_VAR, ForkedProcess
from conftest import ROOT, fixture, sample
from same_answer import comparable

pytestmark = pytest.mark.tf
RUNS = fixture("runs.py")


@pytest.fixture
def zygote(zygote_path):
    if zygote_path is None:
        pytest.skip("this run has no zygote (AGX_TEST_ZYGOTE=0)")
    return zygote_path


def gone(pid: int, seconds: float = 10.0) -> bool:
    for _ in range(int(seconds / 0.05)):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rpartition(")")[2].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_a_forked_worker_starts_in_its_clients_folder_session_and_environment(zygote, tmp_path,
                                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    worker = Worker(timeout=60)
    try:
        started = time.perf_counter()
        worker.wait_ready()
        took = time.perf_counter() - started
        assert isinstance(worker._proc, ForkedProcess), "the zygote did not fork it"
        print(f"forked worker ready in {took:.2f} s")
        pid = worker.pid
        assert os.readlink(f"/proc/{pid}/cwd") == str(tmp_path)
        assert os.getsid(pid) == pid  # a session of its own, as start_new_session gives
        # it answers, and AutoGraph writes its modules in the worker's own folder
        report = worker.request(ReportRequest(f"{RUNS}::square", call="tf.constant(2.0)",
                                              budget=0.05), path=RUNS)
        assert report["lab"].runs["graph"].ok
        assert worker.tmpdir and os.listdir(worker.tmpdir)
    finally:
        worker.close()
    assert gone(pid)


def test_another_environment_is_started_the_usual_way(zygote):
    worker = Worker(timeout=120, env={**os.environ, "TF_AGX_TEST_ONLY": "1"})
    try:
        worker.wait_ready()
        assert isinstance(worker._proc, subprocess.Popen)
        with open(f"/proc/{worker.pid}/environ", "rb") as fh:
            assert b"TF_AGX_TEST_ONLY=1" in fh.read().split(b"\0")
    finally:
        worker.close()


def test_its_exit_status_is_a_started_workers(zygote):
    worker = Worker(timeout=60)
    try:
        worker.wait_ready()
        os.kill(worker.pid, signal.SIGKILL)
        assert worker._proc.wait(timeout=10) == -signal.SIGKILL
        assert not worker.alive
    finally:
        worker.close()


def test_a_client_killed_takes_its_forked_worker_with_it(zygote):
    client = subprocess.Popen(
        [sys.executable, "-c", "import time\nfrom agexplorer.worker.client import Worker\n"
         "w = Worker(); w.wait_ready()\n"
         "print(type(w._proc).__name__, w.pid, flush=True)\ntime.sleep(600)"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        kind, pid = client.stdout.readline().split()
        assert kind == "ForkedProcess"
        client.send_signal(signal.SIGKILL)
        client.wait(timeout=10)
        assert gone(int(pid)), "the forked worker outlived its client"
    finally:
        client.kill()
        client.wait()


def test_a_command_answers_the_same_forked_and_started(zygote):
    target = f"{sample('s6_2_bad_loop.py')}::bad_loop"
    answers = []
    for env in ({**os.environ}, {k: v for k, v in os.environ.items() if k != ENV_VAR}):
        done = subprocess.run([sys.executable, "-m", "agexplorer", "report", target, "--no-run",
                               "--json"], capture_output=True, text=True, timeout=240,
                              cwd=ROOT, env=env)
        assert done.returncode == 0, done.stderr
        answers.append(comparable(json.loads(done.stdout)))
    assert answers[0] == answers[1]


def test_a_bad_request_ends_its_connection_and_the_zygote_goes_on(zygote):
    import socket

    for data in (b"not json\n", b'{"env": {}, "executable": "python"}\n', b"\xff" * 100):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(zygote)
            conn.sendall(data)
            conn.shutdown(socket.SHUT_WR)
            answer = conn.recv(4096)
            assert b"pid" not in answer  # refused, or closed
    worker = Worker(timeout=60)
    try:
        worker.wait_ready()
        assert isinstance(worker._proc, ForkedProcess)
    finally:
        worker.close()


def test_an_interpreter_named_otherwise_is_refused_though_it_links_the_same(zygote, tmp_path):
    # A virtual environment's python links the one the zygote runs, with packages of its
    # own: the zygote's TensorFlow must not answer for it.
    linked = tmp_path / "python3"
    linked.symlink_to(os.path.realpath(sys.executable))
    done = subprocess.run(
        [str(linked), "-c", "from agexplorer.worker.client import Worker\n"
         "w = Worker(timeout=120); w.wait_ready()\nprint(type(w._proc).__name__)\nw.close()"],
        capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Popen"]


def test_an_exit_sent_with_the_pid_is_read_not_lost(tmp_path):
    # A worker that ends at once: its shim's two lines (the pid, the exit status) can arrive
    # in one read; the status must be the process's, not a reason to start another worker.
    import socket
    import threading

    from agexplorer.worker.zygote import fork_worker

    path = str(tmp_path / "z.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    sleeper = subprocess.Popen(["sleep", "30"])

    def shim() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recvmsg(65536, socket.CMSG_LEN(16))
            conn.sendall(json.dumps({"pid": sleeper.pid}).encode() + b"\n"
                         + json.dumps({"exit": 3}).encode() + b"\n")
            conn.recv(1)

    threading.Thread(target=shim, daemon=True).start()
    try:
        a, b = socket.socketpair()
        proc = fork_worker(dict(os.environ), a.fileno(), b.fileno(), ["x"], path)
        assert isinstance(proc, ForkedProcess)
        assert proc.pid == sleeper.pid and proc.poll() == 3
    finally:
        sleeper.kill()
        sleeper.wait()
        listener.close()
