"""Ending a worker ends everything it started, and nothing else (no TensorFlow: a shell stands
in for the worker)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from agexplorer.worker.descendants import descendants, end_descendants, end_group, kill, start_time
from agexplorer.worker.process import end_process, sweep_stale_folders

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


def gone(pid: int) -> bool:
    """The process no longer runs (a zombie nobody reaped has ended too)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except OSError:
        return True


def settled(pid: int) -> bool:
    """``pid`` runs ``sleep`` by now: past the fork and the exec (``setsid`` execs too), whose
    middle can read as an empty environment under load."""
    try:
        with open(f"/proc/{pid}/comm") as fh:
            return fh.read().strip() == "sleep"
    except OSError:
        return True  # gone: nothing left to settle


def shell(script: str, count: int, env: dict | None = None) -> tuple[subprocess.Popen, list[int]]:
    """``sh -c SCRIPT`` in a session of its own, as a worker is started; SCRIPT prints ``count``
    pids of ``sleep`` processes, one a line, which are returned once each runs ``sleep``."""
    proc = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    assert proc.stdout is not None
    pids = [int(proc.stdout.readline()) for _ in range(count)]
    deadline = time.monotonic() + 10
    while not all(settled(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    return proc, pids


def alive(pids: list[int]) -> list[int]:
    for _ in range(100):  # SIGKILL is delivered at once, the kernel tidies up just after
        if all(gone(pid) for pid in pids):
            return []
        time.sleep(0.02)
    return [pid for pid in pids if not gone(pid)]


def cleanup(pids: list[int]) -> None:
    for pid in pids:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


def test_ending_a_worker_ends_its_children_in_its_group_and_in_new_sessions():
    proc, pids = shell("sleep 600 & echo $!; setsid sleep 600 & echo $!; wait", 2)
    try:
        assert set(descendants(proc.pid)) == set(pids)
        end_process(proc, graceful=True)
        assert alive(pids) == []
    finally:
        cleanup(pids)


def test_a_worker_that_exited_by_itself_still_has_its_group_ended():
    # Its child stays in its group, re-parented away: killpg finds it after the worker's end.
    proc, pids = shell("sleep 600 >/dev/null & echo $!", 1)
    try:
        proc.wait(timeout=10)
        assert not gone(pids[0])
        end_process(proc, graceful=True)
        assert alive(pids) == []
    finally:
        cleanup(pids)


def test_one_that_escaped_its_group_is_found_by_the_worker_folder_in_its_environment(tmp_path):
    folder = str(tmp_path / "agx-worker-1-abcdefgh")
    env = {**os.environ, "AGX_WORKER_TMPDIR": folder}
    proc, pids = shell("setsid sleep 600 >/dev/null & echo $!", 1, env=env)
    other, strangers = shell("setsid sleep 600 >/dev/null & echo $!", 1)  # not the worker's
    try:
        proc.wait(timeout=10)
        end_process(proc, graceful=False, marker=f"AGX_WORKER_TMPDIR={folder}")
        assert alive(pids) == []
        assert not gone(strangers[0])  # never a process the worker did not start
    finally:
        cleanup(pids + strangers)
        other.wait()


def test_a_group_whose_number_now_names_another_process_is_left_alone():
    # A worker that was its group's last member, once reaped, frees the number; the next
    # session's leader may take it (a test suite's other worker, a program of the user's):
    # a later end of the worker's group must not reach that one.
    other, strangers = shell("sleep 600 >/dev/null & echo $!; wait", 1)
    try:
        began = start_time(other.pid)
        assert began is not None
        end_group(other.pid, began + 1)  # "the worker" that led this number started then
        assert not gone(strangers[0]) and other.poll() is None
        end_group(other.pid, began)  # the group this leader made: ended, member by member
        assert alive(strangers) == [] and alive([other.pid]) == []
    finally:
        cleanup(strangers)
        other.kill()
        other.wait()


def test_descendants_are_killed_round_after_round_and_a_reused_pid_is_not():
    proc, pids = shell("sleep 600 & echo $!; (sleep 600 & echo $!; wait) & wait", 2)
    try:
        found = end_descendants(proc.pid)
        assert set(pids) <= set(found) and alive(pids) == []
        # a pid with another start time is another process: left alone
        assert kill(os.getpid(), found[pids[0]]) is False
    finally:
        cleanup(pids)
        end_process(proc, graceful=False)


def test_a_swept_folder_of_a_killed_client_ends_what_its_worker_left(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a client pid that no longer runs
    folder = tmp_path / f"agx-worker-{dead.pid}-abcdefgh"
    folder.mkdir()
    env = {**os.environ, "AGX_WORKER_TMPDIR": str(folder)}
    proc, pids = shell("setsid sleep 600 >/dev/null & echo $!", 1, env=env)
    try:
        proc.wait(timeout=10)
        assert sweep_stale_folders(str(tmp_path)) == [str(folder)]
        assert alive(pids) == [] and not folder.exists()
    finally:
        cleanup(pids)
