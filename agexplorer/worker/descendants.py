"""Every process a worker started, found through /proc and ended without touching anyone else's.

How nothing outlives a worker (Linux; elsewhere only its process group is ended):

- The worker runs in a session and process group of its own (``start_new_session``), and
  what is left in that group is ended, also after the worker itself exited: a group's id
  stays taken while any member lives. Once none does (the worker was its last member, and
  was reaped), the number is free, and the next session's leader may take it, another
  worker of a test suite or any program of the user's: so after the worker's end the group
  is never signalled as a whole (``killpg``), but member by member, as read from /proc, and
  not at all when its number names a process other than the worker (see ``end_group``).
- The worker is a child subreaper (``PR_SET_CHILD_SUBREAPER``, set in ``server.py``): a process
  whose parent exits (a daemon's double fork, ``sh -c 'sleep 600 &'``) is re-parented to the
  worker, not to init. So while the worker lives, every process it started is below it in
  /proc, also one that moved to a session of its own (``setsid``, ``start_new_session``).
- Right before the worker is ended, its descendants are read from /proc (each pid with its
  start time) and killed, round after round until none is left (one forked meanwhile is found
  in the next round); then the worker itself and its group.
- A worker that exited by itself (a crash, ``os._exit``) left its children to init: those whose
  environment holds the worker's own private folder (``AGX_WORKER_TMPDIR=...``, a fresh random
  name per worker, inherited by everything it starts unless user code clears the environment)
  are found and killed too.
- A copy of the worker made by ``os.fork()`` is sent SIGKILL by the kernel when the worker dies
  (``PR_SET_PDEATHSIG``, ``server.py``), and its copy of the socket is swapped for /dev/null.

A pid is signalled only through a pidfd opened on it (Linux 5.3) and only while its start time
is the one read with it, so a pid reused by another process is never hit. Zombies (already
dead, waiting for their parent) are left alone. A cgroup would hold them all too, but needs a
delegated cgroup that most sessions do not have.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

_PROC = "/proc"
# Rounds of "list, kill": each finds what the one before left (a child forked in between).
ROUNDS = 10


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time in clock ticks, state) of ``pid``; None when it is gone."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as fh:
            text = fh.read()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: the fields follow its last ")"
    fields = text.rpartition(b")")[2].split()
    try:
        return int(fields[1]), int(fields[19]), fields[0].decode()
    except (IndexError, ValueError):
        return None


def process_state(pid: int) -> str | None:
    """The state letter of ``pid`` (R, S, T for stopped, Z...); None when it is gone."""
    found = _stat(pid)
    return found[2] if found is not None else None


def start_time(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (None: gone, or no /proc)."""
    stat = _stat(pid)
    return stat[1] if stat is not None else None


def _group(pid: int) -> int | None:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as fh:
            return int(fh.read().rpartition(b")")[2].split()[2])
    except (OSError, IndexError, ValueError):
        return None


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:  # no /proc (macOS): nothing found, the process group still ends
        return []


def descendants(root: int) -> dict[int, int]:
    """The live descendants of ``root``: pid -> start time (empty without /proc)."""
    children: dict[int, list[tuple[int, int]]] = {}
    for pid in _pids():
        stat = _stat(pid)
        if stat is not None and stat[2] not in ("Z", "X"):
            children.setdefault(stat[0], []).append((pid, stat[1]))
    found: dict[int, int] = {}
    todo = [root]
    while todo:
        for pid, start in children.get(todo.pop(), ()):
            if pid not in found and pid != root:
                found[pid] = start
                todo.append(pid)
    return found


def marked(entry: str) -> dict[int, int]:
    """The live processes of this user whose environment holds ``entry`` ("NAME=value"):
    pid -> start time. Ours and our parent's never count."""
    wanted = entry.encode()
    found: dict[int, int] = {}
    uid, ours = os.getuid(), {os.getpid(), os.getppid()}
    for pid in _pids():
        if pid in ours:
            continue
        try:
            if os.stat(f"{_PROC}/{pid}").st_uid != uid:
                continue
            with open(f"{_PROC}/{pid}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:  # gone, or not ours to read
            continue
        if wanted in environ.split(b"\0"):
            stat = _stat(pid)
            if stat is not None and stat[2] not in ("Z", "X"):
                found[pid] = stat[1]
    return found


def kill(pid: int, start: int) -> bool:
    """SIGKILL ``pid`` if it is still the process that started at ``start``; whether it was."""
    pidfd = None
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(pid)  # pins the process: the check below holds until the kill
    try:
        stat = _stat(pid)
        if stat is None or stat[1] != start or stat[2] in ("Z", "X"):
            return False
        try:
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except OSError:
            return False
        return True
    finally:
        if pidfd is not None:
            os.close(pidfd)


def kill_all(found: dict[int, int]) -> None:
    """SIGKILL each pid of ``found`` (pid -> start time) that is still that process."""
    for pid, start in found.items():
        kill(pid, start)


def members(pgid: int) -> dict[int, int]:
    """The live members of process group ``pgid``: pid -> start time (empty without /proc)."""
    found: dict[int, int] = {}
    for pid in _pids():
        if _group(pid) == pgid:
            stat = _stat(pid)
            if stat is not None and stat[2] not in ("Z", "X"):
                found[pid] = stat[1]
    return found


def end_group(pgid: int, leader_start: int | None) -> None:
    """Kill what is left of the process group the worker led (``pgid``, its pid; it started
    at ``leader_start``), after its end. Without /proc (macOS) the group is signalled whole.
    With it, its members are killed one by one (each checked by its start time), and none
    when a process other than the worker now holds the number: the worker's group had
    emptied and the number was taken again (by a new session's leader, which is not ours)."""
    if not os.path.isdir(_PROC):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
        return
    holder = _stat(pgid)
    if holder is not None and holder[1] != leader_start:
        return
    for _ in range(ROUNDS):  # one forked while the others were killed is found next round
        found = members(pgid)
        if not found:
            return
        kill_all(found)
        time.sleep(0.01)


def end_descendants(root: int) -> dict[int, int]:
    """Kill every descendant of the live process ``root`` (a subreaper keeps the orphans
    below it), in rounds until none is left; returns all it found (pid -> start time)."""
    seen: dict[int, int] = {}
    for _ in range(ROUNDS):
        found = descendants(root)
        if not found:
            break
        seen.update(found)
        kill_all(found)
        time.sleep(0.01)  # the killed turn zombie, their children move up to ``root``
    return seen


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (ours counts; another user's too: it cannot be signalled)."""
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, it is someone else's
        return True
    return True
