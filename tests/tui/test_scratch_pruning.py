"""Scratch sessions of ended explorers are pruned, never one that holds the user's work."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from agexplorer.state.recovery import save_copy
from agexplorer.state.scratch import MARKER, prune_sessions, scratch_copies, scratch_root
from conftest import SAMPLES


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The pid of a process that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _ended_session(dead_pid: int) -> str:
    """A scratch session made by an explorer that has since ended (pid ``dead_pid``)."""
    (made,) = {os.path.dirname(p) for p in scratch_copies(SAMPLES)}
    ended = made.replace(f"session-{os.getpid()}-", f"session-{dead_pid}-")
    os.rename(made, ended)
    return ended


def test_a_session_names_its_explorer_and_records_what_it_copied():
    paths = scratch_copies(SAMPLES)
    folder = os.path.dirname(paths[0])
    assert os.path.basename(folder).startswith(f"session-{os.getpid()}-")
    with open(os.path.join(folder, MARKER), encoding="utf-8") as marker:
        recorded = marker.read().splitlines()[1:]
    assert sorted(line.split(" ", 1)[1] for line in recorded) == \
        sorted(n for n in os.listdir(SAMPLES) if n.endswith(".py"))


def test_an_ended_untouched_session_goes_when_the_next_one_starts(dead_pid):
    ended = _ended_session(dead_pid)
    os.makedirs(os.path.join(ended, "__pycache__"))  # Python's own: not the user's work
    with open(os.path.join(ended, "__pycache__", "x.pyc"), "wb") as cache:
        cache.write(b"\0")
    paths = scratch_copies(SAMPLES)
    assert not os.path.exists(ended)
    assert os.path.isdir(os.path.dirname(paths[0]))  # the new session, of a living explorer


def test_sessions_holding_the_users_work_or_a_living_explorer_stay(dead_pid):
    living = os.path.dirname(scratch_copies(SAMPLES)[0])  # this process: still running
    saved = _ended_session(dead_pid)
    with open(os.path.join(saved, "s6_2_bad_loop.py"), "a", encoding="utf-8") as copy:
        copy.write("# my fix\n")  # a save into the copy
    added = _ended_session(dead_pid)
    with open(os.path.join(added, "mine.py"), "w", encoding="utf-8") as new:
        new.write("x = 1\n")
    unsaved = _ended_session(dead_pid)
    save_copy(os.path.join(unsaved, "s6_2_bad_loop.py"), "# unsaved edits\n")
    foreign = os.path.join(scratch_root(), f"session-{dead_pid}-nomarker")
    os.makedirs(foreign)
    assert prune_sessions(scratch_root()) == []
    for folder in (living, saved, added, unsaved, foreign):
        assert os.path.isdir(folder), folder


def test_an_earlier_versions_session_goes_once_untouched_for_a_day(dead_pid):
    old = _ended_session(dead_pid)
    pidless = os.path.join(scratch_root(), "session-ab12cd_3")  # named before the pid was
    os.rename(old, pidless)
    with open(os.path.join(pidless, MARKER), "w", encoding="utf-8") as marker:
        marker.write(f"scratch copies of {SAMPLES}\n")  # an earlier version's marker
    assert prune_sessions(scratch_root()) == []  # touched today: its explorer may still run
    a_day_ago = time.time() - 25 * 3600
    os.utime(pidless, (a_day_ago, a_day_ago))
    assert prune_sessions(scratch_root()) == [pidless]
