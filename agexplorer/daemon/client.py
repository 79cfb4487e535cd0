"""A command's side of the background worker: ``BackgroundWorker`` answers as a command's
own worker does (``request``, the versions, ``tf_warnings``), through the background worker,
which it starts when none listens; ``status`` and ``stop`` for ``agexplorer daemon``.

Whatever goes wrong before a request reaches the background worker (no private folder, a
start that fails, every worker busy) falls back to a worker of the command's own, as with
``--no-daemon``: the answer is the same, only slower. Once the request was taken, a failure
is the command's failure, in one sentence, and the next command gets a fresh worker.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from typing import Any, TypeVar

from agexplorer.daemon.messages import Ask, Busy, Status, StatusAsk, StopAsk, Stopping, Taken
from agexplorer.daemon.place import Place, connect_unix, disabled, idle_seconds, place_for
from agexplorer.model.errors import AgxError
from agexplorer.worker import wire
from agexplorer.worker.client import DEFAULT_TIMEOUT, START_TIMEOUT, TellOnce, shared_worker
from agexplorer.worker.interpreter import Interpreter, resolve
from agexplorer.worker.protocol import Failure, Progress, Reply, Request

T = TypeVar("T")
LISTEN_TIMEOUT = 20.0  # seconds a starting background worker has to listen on its socket
# Past the request's own timeout: waiting for a worker to take it (one importing
# TensorFlow), and for a large answer to arrive. Only a stuck background worker reaches it.
SLACK = START_TIMEOUT + 60.0


class _NotTaken(Exception):
    """The request did not reach a worker of the background one (why: ``args[0]``);
    ``said``: whether the user is told (not for busy workers, a normal case)."""

    def __init__(self, why: str, said: bool = True) -> None:
        super().__init__(why)
        self.said = said


def _connect(place: Place) -> socket.socket:
    return connect_unix(place.socket)


def _start(place: Place, python: Interpreter | None, idle: float) -> None:
    """Start the background worker for ``place`` in its own session (it outlives this
    command), and wait until it listens."""
    args = [sys.executable, "-m", "agexplorer.daemon.server", place.folder, place.key,
            repr(idle)]
    if python is not None:
        args.append(python.executable)
    with open(place.log, "ab") as log:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                cwd=place.folder, start_new_session=True, close_fds=True)
    deadline = time.monotonic() + LISTEN_TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            _connect(place).close()
            return
        if proc.poll() is not None:  # it ended: another one took the lock, or it failed
            with contextlib.suppress(OSError):
                _connect(place).close()
                return
            raise _NotTaken(f"the background worker ended as it started (its log: {place.log})")
        time.sleep(0.05)
    raise _NotTaken(f"the background worker did not start listening within {LISTEN_TIMEOUT:g} s "
                    f"(its log: {place.log})")


def connect(place: Place, python: Interpreter | None, idle: float) -> socket.socket:
    """A connection to the background worker for ``place``, started if none listens."""
    try:
        return _connect(place)
    except OSError:
        pass
    _start(place, python, idle)
    try:
        return _connect(place)
    except OSError as exc:
        raise _NotTaken(f"the background worker could not be reached ({exc})") from None


class BackgroundWorker:
    """What a command asks its worker, answered by the background worker (the attributes
    the commands read are those of worker/client.py's ``Worker``)."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, python: str | None = None,
                 idle: float | None = None) -> None:
        self.timeout = timeout
        self._python_flag = python
        self.python = resolve(python)  # AgxError in one sentence for a --python that cannot
        self.idle = idle_seconds(idle)
        self.python_executable = self.python_version = self.tf_version = ""
        self.keras_version = self.keras_flavour = ""
        self.tf_warnings: tuple[str, ...] = ()
        self.on_tf_warnings = TellOnce()
        self.used_background = False  # whether the last request was answered by it
        self.fallback_reason: str | None = None  # why it was not, when it was not

    def request(self, req: Request[T], *, timeout: float | None = None, what: str = "",
                path: str | None = None, on_progress: Any = None) -> T:
        """Answer ``req`` as ``Worker.request`` does."""
        limit = self.timeout if timeout is None else timeout
        try:
            place = place_for(self.python.executable if self.python else None)
            sock = connect(place, self.python, self.idle)
        except (AgxError, _NotTaken, OSError) as exc:
            return self._own(req, limit, what, path, on_progress, _why(exc),
                             getattr(exc, "said", True))
        with sock:
            try:
                wire.send(sock, Ask(req, limit, what, path, _here()), time.monotonic() + 10)
                return self._answer(sock, limit + SLACK, what or req.label, on_progress)
            except (_NotTaken, OSError) as exc:  # OSError: it closed before taking the request
                return self._own(req, limit, what, path, on_progress, _why(exc),
                                 getattr(exc, "said", True))

    def _answer(self, sock: socket.socket, wait: float, phase: str, on_progress: Any) -> Any:
        deadline = time.monotonic() + wait
        taken = False
        while True:
            try:
                message = wire.receive(sock, deadline)
            except TimeoutError:
                raise AgxError("timeout", f"the background worker gave no answer within "
                               f"{wait:g} s while {phase}", advice="run `agexplorer daemon stop`, "
                               "or pass --no-daemon.", exit_code=1) from None
            except (EOFError, OSError):
                if not taken:
                    raise _NotTaken("the background worker closed the connection") from None
                raise AgxError("worker-died", f"the background worker ended while {phase}",
                               advice="the next command starts a fresh one (--no-daemon "
                               "gives each command a worker of its own).",
                               exit_code=1) from None
            if isinstance(message, Busy):
                raise _NotTaken(f"all {message.workers} of the background worker's TensorFlow "
                                "workers were busy", said=False)
            if isinstance(message, Taken):
                taken = True
                self._taken(message)
            elif isinstance(message, Progress):
                phase = message.phase
                if on_progress is not None:
                    on_progress(phase)
            elif isinstance(message, Reply):
                self.used_background = True
                return message.value
            elif isinstance(message, Failure):
                self.used_background = True
                raise message.error

    def _taken(self, taken: Taken) -> None:
        self.python_executable, self.python_version = taken.python_executable, taken.python_version
        self.tf_version = taken.tf_version
        self.keras_version, self.keras_flavour = taken.keras_version, taken.keras_flavour
        self.tf_warnings = tuple(taken.tf_warnings)
        if self.tf_warnings:
            self.on_tf_warnings(self.tf_warnings)

    def _own(self, req: Request[T], limit: float, what: str, path: str | None,
             on_progress: Any, why: str, said: bool) -> T:
        """The command's own worker, as with --no-daemon (said on stderr when ``said``)."""
        self.used_background, self.fallback_reason = False, why
        if said:
            print(f"agexplorer: {why.rstrip('.')}; this command starts a TensorFlow worker of "
                  "its own.", file=sys.stderr)
        worker = shared_worker(limit, self._python_flag)
        worker.on_tf_warnings = self.on_tf_warnings
        try:
            return worker.request(req, timeout=limit, what=what, path=path,
                                  on_progress=on_progress)
        finally:
            self.python_executable, self.python_version = (worker.python_executable,
                                                           worker.python_version)
            self.tf_version = worker.tf_version
            self.keras_version, self.keras_flavour = worker.keras_version, worker.keras_flavour
            self.tf_warnings = worker.tf_warnings


def _why(exc: BaseException) -> str:
    return exc.message if isinstance(exc, AgxError) else str(exc)


def _here() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the command runs in a folder that was deleted
        return None


def _ask(place: Place, question: Any) -> Any:
    """One question to a running background worker; None when none listens."""
    try:
        sock = _connect(place)
    except OSError:
        return None
    with sock:
        try:
            wire.send(sock, question, time.monotonic() + 10)
            return wire.receive(sock, time.monotonic() + 10)
        except (OSError, EOFError, TimeoutError):
            return None


def status(python: str | None = None) -> tuple[Place, Status | None]:
    """The background worker for this interpreter and environment, and its status (None:
    none runs)."""
    chosen = resolve(python)
    place = place_for(chosen.executable if chosen else None)
    answer = _ask(place, StatusAsk())
    return place, answer if isinstance(answer, Status) else None


def start(python: str | None = None) -> None:
    """Start the background worker for this interpreter and environment if none runs (AgxError
    when it cannot be)."""
    chosen = resolve(python)
    place = place_for(chosen.executable if chosen else None)
    try:
        connect(place, chosen, idle_seconds()).close()
    except _NotTaken as exc:
        raise AgxError("worker-start", f"no background worker could be started: {exc}",
                       advice="see its log, or pass --no-daemon to the commands.",
                       exit_code=1) from None


def stop(python: str | None = None, wait: float = 15.0) -> tuple[Place, int | None]:
    """Stop the background worker for this interpreter and environment; its pid, or None
    when none ran. Returns once its socket is gone (or after ``wait`` seconds)."""
    chosen = resolve(python)
    place = place_for(chosen.executable if chosen else None)
    answer = _ask(place, StopAsk())
    if not isinstance(answer, Stopping):
        return place, None
    deadline = time.monotonic() + wait
    while os.path.exists(place.socket) and time.monotonic() < deadline:
        time.sleep(0.05)
    return place, answer.pid


def explorer_zygote(python: Interpreter | None) -> tuple[str | None, str]:
    """The warm zygote a running background worker forks its workers from, for the explorer
    to fork its own worker there (TensorFlow loaded already), else None; and why not, in
    words. The explorer never starts a background worker itself."""
    if disabled():
        return None, "the background worker is off (--no-daemon or AGX_NO_DAEMON)"
    if python is not None:
        return None, f"its interpreter ({python.executable}) is not agexplorer's own"
    answer = _ask(place_for(None), StatusAsk())
    if not isinstance(answer, Status):
        return None, ("no background worker runs (`agexplorer daemon start` starts one, as "
                      "does a command such as `agexplorer devices`, kept for 10 minutes: the "
                      "next explorer then opens warm)")
    zygote = getattr(answer, "zygote", None)  # one of an older agexplorer has none
    if not zygote:
        return None, "the background worker running has no TensorFlow to fork a worker from"
    return zygote, ""
